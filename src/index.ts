import { getAction } from './actions/registry'
import { createApp } from './app'
import type { Env } from './env'
import { handleScheduled, queueHandler } from './runtime/consumer'
import type { JobMessage } from './runtime/jobs'

const app = createApp()

export default {
  fetch: app.fetch,
  queue: queueHandler(getAction),
  scheduled: handleScheduled,
} satisfies ExportedHandler<Env, JobMessage>
