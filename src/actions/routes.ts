import { Hono, type Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { requireAuth } from '../auth/principal'
import { readJsonObject } from '../http/body'
import { errorResponse, successBody } from '../http/envelope'
import { ApiError } from '../http/errors'
import { deferredRateLimit } from '../http/rate-limit'
import { queryGuard } from '../http/route-table'
import type { AppEnv } from '../http/types'
import { createLogger } from '../runtime/log'
import { callAction, type CallOutcome, type Caller, type Runtime } from '../runtime/execute'
import type { AnyAction } from './define'
import { getAction } from './registry'
import { agentAliasBody, AGENT_ALIAS } from './invoke_agent'

const WORKFLOW_ID = /^[A-Za-z0-9._:-]{1,128}$/
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** Does the Prefer header ask for an asynchronous answer? */
export function prefersAsync(prefer: string | undefined): boolean {
  return (prefer ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async')
}

/** Reads `Prefer: wait=<s>` / `respond-async` into seconds to wait (capped by config). */
export function waitSeconds(prefer: string | undefined, defaults: { queueWaitDefaultSeconds: number; queueWaitMaxSeconds: number }): number {
  let wait = defaults.queueWaitDefaultSeconds
  for (const part of (prefer ?? '').split(/[,;]/)) {
    const token = part.trim().toLowerCase()
    if (token === 'respond-async') return 0
    const m = /^wait\s*=\s*(\d{1,6})$/.exec(token)
    if (m) wait = Number(m[1])
  }
  return Math.min(wait, defaults.queueWaitMaxSeconds)
}

/** The runtime pieces of an HTTP request. */
export function runtimeOf(c: Context<AppEnv>): Runtime {
  return {
    env: c.env,
    config: c.get('config'),
    log: createLogger({ request_id: c.get('requestId') }),
    actions: getAction,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
  }
}

/** Caller details from the headers: Workflow-Id, Idempotency-Key, Prefer. */
export function callerOf(c: Context<AppEnv>): Caller {
  const p = c.get('principal')
  const workflowId = c.req.header('workflow-id') ?? null
  if (workflowId !== null && !WORKFLOW_ID.test(workflowId)) {
    throw new ApiError('VALIDATION_FAILED', 'Workflow-Id header must be 1-128 characters of letters, digits, ".", "_", ":" or "-"', [{ path: 'header:Workflow-Id', message: 'Invalid format' }])
  }
  const idempotencyKey = c.req.header('idempotency-key') ?? null
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new ApiError('VALIDATION_FAILED', 'Idempotency-Key header must be 1-255 visible ASCII characters', [{ path: 'header:Idempotency-Key', message: 'Invalid format' }])
  }
  return {
    account: { id: p.accountId, teamIds: p.teamIds, catalogVersion: p.catalogVersion, vocabularyPoint: p.vocabularyPoint },
    requestId: c.get('requestId'),
    workflowId,
    idempotencyKey,
    waitSeconds: waitSeconds(c.req.header('prefer'), c.get('config')),
    respondAsync: prefersAsync(c.req.header('prefer')),
    admission: c.get('admission'),
  }
}

/** Renders an outcome: 200 envelope, the error envelope, or 202 with the run to poll. */
export function renderOutcome(c: Context<AppEnv>, outcome: CallOutcome): Response {
  c.header('x-run-id', outcome.runId)
  if (outcome.kind === 'done') {
    if (outcome.body !== undefined) return c.body(outcome.body, 200, { 'content-type': 'application/json' })
    const { response, metadata } = outcome.presented
    return c.json(successBody(response, metadata === undefined ? {} : { metadata }))
  }
  if (outcome.kind === 'failed') return errorResponse(c, outcome.error)
  const poll = `/v1/runs/${outcome.runId}`
  c.header('location', poll)
  return c.json({ status: 202, response: { run_id: outcome.runId, state: outcome.state, poll } }, 202 as ContentfulStatusCode)
}

function resolveAction(name: string): { action: AnyAction; alias?: string } {
  const direct = getAction(name)
  if (direct) return { action: direct }
  const alias = AGENT_ALIAS.exec(name)
  const invoke = getAction('invoke_agent')
  if (alias && invoke) return { action: invoke, alias: alias[1] }
  throw new ApiError('NOT_FOUND', `Unknown action "${name.slice(0, 200)}"`)
}

/** `POST /v1/action/:name` for every registered action (and `invoke_agent_<id>`). */
export function actionRoutes() {
  const app = new Hono<AppEnv>()
  // Actions read no query parameters: any is refused, as on every other route.
  app.post('/:name', requireAuth, deferredRateLimit, queryGuard(), async (c) => {
    const { action, alias } = resolveAction(c.req.param('name'))
    const body = await readJsonObject(c)
    const outcome = await callAction(runtimeOf(c), callerOf(c), action, alias ? agentAliasBody(alias, body) : body)
    return renderOutcome(c, outcome)
  })
  return app
}
