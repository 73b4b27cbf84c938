import { expect } from 'vitest'
import { action, request, type Json } from '../helpers'

export const AUDIT_ACTION = 'content_audit_generate_audit_action'

/** Starts an audit as a queued run and polls the run until it ends. */
export async function runAudit(token: string, body: Record<string, unknown>): Promise<{ run: Json; response: Json }> {
  const started = await action(AUDIT_ACTION, body, token, { prefer: 'respond-async' })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  const runId = started.body.response.run_id
  for (let i = 0; i < 20; i++) {
    const res = await request('GET', `/v1/runs/${runId}?wait=20`, { token })
    if (res.body.response.state === 'succeeded' || res.body.response.state === 'failed') return { run: res.body.response, response: res.body.response.output }
  }
  throw new Error('the audit did not finish')
}
