import type { ActionLookup } from '../actions/define'
import { queuedRunScope } from '../agents/access'
import { maintainTextIndexes } from '../agents/maintenance'
import { readConfig } from '../config'
import { teamIdsOf } from '../db/accounts'
import { claimRun, failRun, getRun, releaseRun, setCallbackState, type RunRow } from '../db/runs'
import type { Env } from '../env'
import { isTransient } from '../http/map-error'
import { hmacSha256Hex } from '../lib/crypto'
import { createGuardedFetch } from '../providers/web/fetch'
import { errorBody } from '../http/envelope'
import { collectSecrets, createContext, executeRun, outcomeOf, recordFailure, runDeadline, userAgent, type Runtime } from './execute'
import { isContinueLater, type JobMessage } from './jobs'
import { createLogger, errorFields } from './log'
import { embedPending } from '../agents/embedding-jobs'
import { purgeStored } from './retention'
import { readJobInput } from './run-values'

const LEASE_MS = 5 * 60_000
/** Matches max_retries in wrangler.toml: after this many deliveries the message goes to the dead-letter queue. */
const MAX_DELIVERIES = 6

function backoffSeconds(attempt: number, base: number): number {
  return Math.min(300, base * 2 ** Math.max(0, attempt - 1))
}

/** What happened to one message, so the batch handler can ack or retry it. */
type Disposition = { ack: true } | { ack: false; delaySeconds: number }

/**
 * Runs one queued run. Idempotent per run: a finished run acks at once, and a run another consumer
 * holds (live lease) is retried later, so duplicated or redelivered messages never run it twice
 * at the same time; memoized steps stop a retried run from repeating finished side effects.
 */
export async function processRun(rt: Runtime, runId: string, delivery: number): Promise<Disposition> {
  const env = rt.env
  const now = Date.now()
  const claimed = await claimRun(env.DB, runId, now, LEASE_MS)
  if (!claimed) {
    const run = await getRun(env.DB, runId)
    if (!run || run.state === 'succeeded' || run.state === 'failed') return { ack: true }
    return { ack: false, delaySeconds: Math.max(1, Math.ceil(((run.lease_until ?? now) - now) / 1000)) }
  }
  const action = rt.actions(claimed.action)
  if (!action) {
    await failRun(env.DB, runId, { message: `Action "${claimed.action}" no longer exists`, code: 'INTERNAL', status: 500 }, null, Date.now())
    return { ack: true }
  }
  const account = await accountOf(env, claimed)
  const agent = await queuedRunScope({ db: env.DB, account, runId })
  const deadline = runDeadline(rt.config, true)
  const ctx = createContext(rt, { account, requestId: `job_${runId}`, workflowId: claimed.workflow_id, agent, signal: deadline.signal }, runId, true)
  try {
    const input = await readJobInput(env, claimed)
    await collectSecrets(action, input, ctx)
    await executeRun(rt, ctx, action, input, claimed)
    await deliverCallback(rt, runId)
    return { ack: true }
  } catch (err) {
    if (isContinueLater(err)) {
      await releaseRun(env.DB, runId, 'queued')
      await env.JOBS.send({ runId }, { delaySeconds: err.delaySeconds })
      return { ack: true }
    }
    if (isTransient(err) && delivery < MAX_DELIVERIES) {
      ctx.log.warn('run attempt failed; will retry', { action: claimed.action, delivery, ...errorFields(err) })
      await releaseRun(env.DB, runId, 'queued')
      return { ack: false, delaySeconds: backoffSeconds(delivery, rt.config.queueRetryBaseSeconds) }
    }
    await recordFailure(rt, runId, err, ctx)
    await deliverCallback(rt, runId)
    return { ack: true }
  } finally {
    deadline.clear()
  }
}

async function accountOf(env: Env, run: RunRow) {
  return { id: run.account_id, teamIds: await teamIdsOf(env.DB, run.account_id) }
}

/**
 * Posts the final envelope to the run's callback_url, signed:
 * `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with WEBHOOK_SIGNING_SECRET>`.
 * Retried by the guarded client on network errors, 429 and 5xx.
 */
export async function deliverCallback(rt: Runtime, runId: string): Promise<void> {
  const run = await getRun(rt.env.DB, runId)
  if (!run?.callback_url || run.callback_state === 'delivered' || !rt.env.WEBHOOK_SIGNING_SECRET) return
  const outcome = await outcomeOf(rt.env, run)
  const payload =
    outcome.kind === 'done'
      ? { status: 200, ...(outcome.presented.metadata === undefined ? {} : { metadata: outcome.presented.metadata }), response: outcome.presented.response, run_id: run.id }
      : outcome.kind === 'failed'
        ? { ...errorBody(outcome.error.status, outcome.error.message, outcome.error.code, [], `job_${run.id}`), run_id: run.id }
        : null
  if (!payload) return
  const body = JSON.stringify(payload)
  const t = Math.floor(Date.now() / 1000)
  const signature = await hmacSha256Hex(rt.env.WEBHOOK_SIGNING_SECRET, `${t}.${body}`)
  const fetcher = createGuardedFetch({ userAgent: userAgent(rt.config), allowPrivate: rt.config.allowPrivateFetch, dns: rt.config.outboundDns, log: rt.log })
  try {
    const res = await fetcher(run.callback_url, {
      method: 'POST',
      service: 'callback',
      idempotent: true,
      retries: 3,
      timeoutMs: 10_000,
      maxRedirects: 0,
      headers: { 'content-type': 'application/json', 'x-signature': `t=${t},v1=${signature}`, 'x-run-id': run.id },
      body,
    })
    await res.body?.cancel()
    await setCallbackState(rt.env.DB, runId, res.ok ? 'delivered' : `failed: HTTP ${res.status}`)
  } catch (err) {
    await setCallbackState(rt.env.DB, runId, `failed: ${(err as Error).message.slice(0, 200)}`)
  }
}

function runtimeFor(env: Env, ctx: ExecutionContext, actions: ActionLookup): Runtime {
  return { env, config: readConfig(env), log: createLogger({ component: 'queue' }), actions, waitUntil: (p) => ctx.waitUntil(p) }
}

/** The queue entry point over the registry `actions`: the jobs queue runs runs; the dead-letter queue ends them as failed. */
export function queueHandler(actions: ActionLookup): (batch: MessageBatch<JobMessage>, env: Env, ctx: ExecutionContext) => Promise<void> {
  return (batch, env, ctx) => handleQueue(batch, env, ctx, actions)
}

async function handleQueue(batch: MessageBatch<JobMessage>, env: Env, ctx: ExecutionContext, actions: ActionLookup): Promise<void> {
  const rt = runtimeFor(env, ctx, actions)
  const deadLetters = batch.queue.endsWith('-dlq')
  await Promise.all(
    batch.messages.map(async (msg) => {
      if (msg.body && 'embed' in msg.body) {
        if (deadLetters) return msg.ack()
        try {
          const run = await embedPending(env, guardedFetch(rt), rt.log, EMBED_BATCHES_PER_MESSAGE)
          if (run.more) await env.JOBS.send({ embed: true })
          msg.ack()
        } catch (err) {
          rt.log.error('embedding agents failed', errorFields(err))
          msg.retry({ delaySeconds: backoffSeconds(msg.attempts, rt.config.queueRetryBaseSeconds) })
        }
        return
      }
      const runId = msg.body && 'runId' in msg.body ? msg.body.runId : undefined
      if (typeof runId !== 'string') {
        msg.ack()
        return
      }
      try {
        if (deadLetters) {
          const ended = await failRun(env.DB, runId, { message: `The job failed after ${MAX_DELIVERIES} attempts and was dead-lettered`, code: 'INTERNAL', status: 500 }, null, Date.now())
          if (ended) await deliverCallback(rt, runId)
          msg.ack()
          return
        }
        const d = await processRun(rt, runId, msg.attempts)
        if (d.ack) msg.ack()
        else msg.retry({ delaySeconds: d.delaySeconds })
      } catch (err) {
        rt.log.error('queue message failed', { run_id: runId, ...errorFields(err) })
        msg.retry({ delaySeconds: backoffSeconds(msg.attempts, rt.config.queueRetryBaseSeconds) })
      }
    }),
  )
}

/**
 * Cron: drops expired variables, idempotency keys and old rate-limit rows, and runs past their
 * retention, with their KV blobs; merges the agent text indexes once agent text changed.
 */
export async function handleScheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const purged = await purgeStored(env, readConfig(env), Date.now())
  if (purged.runs + purged.variables > 0) createLogger({ component: 'cron' }).info('purged stored data', { ...purged })
  await maintainTextIndexes(env.DB)
  // Catches agents a lost message left without a vector, and re-embeds all after SEARCH_EMBEDDER changes.
  const log = createLogger({ component: 'cron' })
  try {
    await embedPending(env, guardedFetch({ config: readConfig(env), log }), log, EMBED_BATCHES_PER_CRON)
  } catch (err) {
    log.error('embedding agents failed', errorFields(err))
  }
}

/** Batches (of 16 agents) one queue message or one cron run embeds. */
const EMBED_BATCHES_PER_MESSAGE = 4
const EMBED_BATCHES_PER_CRON = 16

function guardedFetch(rt: Pick<Runtime, 'config' | 'log'>) {
  return createGuardedFetch({ userAgent: userAgent(rt.config), allowPrivate: rt.config.allowPrivateFetch, dns: rt.config.outboundDns, log: rt.log })
}
