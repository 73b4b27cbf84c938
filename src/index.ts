import { createApp } from './app'
import type { Env } from './env'
import { handleQueue, handleScheduled } from './runtime/consumer'
import type { JobMessage } from './runtime/jobs'

const app = createApp()

export default {
  fetch: app.fetch,
  queue: handleQueue,
  scheduled: handleScheduled,
} satisfies ExportedHandler<Env, JobMessage>
