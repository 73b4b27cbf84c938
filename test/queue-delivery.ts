import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test'
import { z } from 'zod'
import { defineAction } from '../src/actions/define'
import { getAction } from '../src/actions/registry'
import { queueHandler } from '../src/runtime/consumer'

/** A queued action that throws what `fail` makes on every delivery, counting its deliveries. */
export function failingAction(fail: () => unknown) {
  let deliveries = 0
  const action = defineAction({
    name: 'always_fails',
    summary: 'Fails the same way every time',
    input: z.object({}),
    hints: { readOnly: true },
    mode: 'queued',
    run: async (): Promise<unknown> => {
      deliveries++
      throw fail()
    },
  })
  return { action, deliveries: () => deliveries }
}

/**
 * Queues run `runId` of `accountId` for the failing action and delivers its message once, as the
 * queue's first delivery: what the consumer acked or sent back to be retried.
 */
export async function deliverFailingRun(fail: () => unknown, accountId: string, runId: string) {
  const failing = failingAction(fail)
  await env.DB.prepare("INSERT INTO runs (id, account_id, action, state, input, job_input, created_at) VALUES (?, ?, 'always_fails', 'queued', '{}', '{}', ?)").bind(runId, accountId, Date.now()).run()
  const batch = createMessageBatch('agent-action-jobs', [{ id: 'm1', timestamp: new Date(), attempts: 1, body: { runId } }])
  const ctx = createExecutionContext()
  await queueHandler((name) => (name === failing.action.name ? failing.action : getAction(name)))(batch as MessageBatch<{ runId: string }>, env, ctx)
  return { result: await getQueueResult(batch, ctx), deliveries: failing.deliveries() }
}
