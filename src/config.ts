import type { Env } from './env'
import { DEFAULT_DOH_URL, type DnsCheck } from './providers/web/dns'

/** Settings parsed once per request from string vars, with the documented defaults. */
export interface Config {
  /** Requests per minute and per day of an account (all its tokens together), unless it has an override. */
  rateLimitPerMinute: number
  rateLimitPerDay: number
  /** Active (unrevoked, unexpired) tokens an account may hold. */
  maxTokensPerAccount: number
  /** Agents an account may own. */
  maxAgentsPerAccount: number
  /** Queued runs of an account that may be waiting or running at once. */
  maxQueuedRunsPerAccount: number
  maxBodyBytes: number
  queueWaitDefaultSeconds: number
  queueWaitMaxSeconds: number
  /** First retry delay of a failed queued run; doubles per attempt, capped at 300 s. */
  queueRetryBaseSeconds: number
  /** Deadline of a run answered in the request, from its start: `ctx.signal` aborts then. */
  inlineRunTimeoutSeconds: number
  /** Deadline of one attempt of a queued run in the consumer: `ctx.signal` aborts then. */
  queuedRunTimeoutSeconds: number
  variableTtlSeconds: number
  idempotencyTtlSeconds: number
  /** Largest input after resolving `{{...}}` references, in bytes of JSON (default MAX_BODY_BYTES). */
  maxResolvedInputBytes: number
  /** Largest value of one workflow variable, in bytes of JSON. */
  maxVariableBytes: number
  /** Largest total of the live variables of one Workflow-Id scope, in bytes of JSON. */
  maxScopeBytes: number
  /** Finished runs (and their KV blobs) are purged this many days after they end; 0 keeps them. */
  runRetentionDays: number
  allowPrivateFetch: boolean
  /** How outbound host names are checked for private addresses (OUTBOUND_DNS_CHECK, OUTBOUND_DOH_URL). */
  outboundDns: DnsCheck
  contactEmail: string
}

function int(value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  return Number.isFinite(n) && n >= min ? Math.floor(n) : fallback
}

/** Reads settings from the environment; bad values fall back to defaults rather than failing requests. */
export function readConfig(env: Env): Config {
  const maxBodyBytes = int(env.MAX_BODY_BYTES, 1024 * 1024, 1)
  return {
    rateLimitPerMinute: int(env.RATE_LIMIT_PER_MINUTE, 20, 1),
    rateLimitPerDay: int(env.RATE_LIMIT_PER_DAY, 1000, 1),
    maxTokensPerAccount: int(env.MAX_TOKENS_PER_ACCOUNT, 100, 1),
    maxAgentsPerAccount: int(env.MAX_AGENTS_PER_ACCOUNT, 1000, 1),
    maxQueuedRunsPerAccount: int(env.MAX_QUEUED_RUNS_PER_ACCOUNT, 50, 1),
    maxBodyBytes,
    queueWaitDefaultSeconds: int(env.QUEUE_WAIT_DEFAULT_SECONDS, 25),
    queueWaitMaxSeconds: int(env.QUEUE_WAIT_MAX_SECONDS, 60),
    queueRetryBaseSeconds: int(env.QUEUE_RETRY_BASE_SECONDS, 5),
    inlineRunTimeoutSeconds: int(env.INLINE_RUN_TIMEOUT_SECONDS, 300, 1),
    // A queue consumer invocation may run 15 minutes of wall time: the run stops its calls before that.
    queuedRunTimeoutSeconds: int(env.QUEUED_RUN_TIMEOUT_SECONDS, 840, 1),
    variableTtlSeconds: int(env.VARIABLE_TTL_SECONDS, 7 * 24 * 3600, 1),
    idempotencyTtlSeconds: int(env.IDEMPOTENCY_TTL_SECONDS, 24 * 3600, 1),
    // KV holds at most 25 MiB per value: larger limits could accept what cannot be stored.
    maxResolvedInputBytes: Math.min(int(env.MAX_RESOLVED_INPUT_BYTES, maxBodyBytes, 1), 16 * 1024 * 1024),
    maxVariableBytes: Math.min(int(env.MAX_VARIABLE_BYTES, 2 * 1024 * 1024, 1), 16 * 1024 * 1024),
    maxScopeBytes: int(env.MAX_SCOPE_BYTES, 16 * 1024 * 1024, 1),
    runRetentionDays: int(env.RUN_RETENTION_DAYS, 30),
    allowPrivateFetch: env.ALLOW_PRIVATE_FETCH === 'true',
    // Anything but an explicit "platform" resolves: the safe reading of a typo.
    outboundDns: { mode: env.OUTBOUND_DNS_CHECK?.trim() === 'platform' ? 'platform' : 'doh', url: env.OUTBOUND_DOH_URL?.trim() || DEFAULT_DOH_URL },
    contactEmail: env.CONTACT_EMAIL ?? '',
  }
}
