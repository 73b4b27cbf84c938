import type { Env } from './env'

/** Settings parsed once per request from string vars, with the documented defaults. */
export interface Config {
  rateLimitPerMinute: number
  rateLimitPerDay: number
  maxBodyBytes: number
  queueWaitDefaultSeconds: number
  queueWaitMaxSeconds: number
  /** First retry delay of a failed queued run; doubles per attempt, capped at 300 s. */
  queueRetryBaseSeconds: number
  variableTtlSeconds: number
  idempotencyTtlSeconds: number
  allowPrivateFetch: boolean
  contactEmail: string
}

function int(value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  return Number.isFinite(n) && n >= min ? Math.floor(n) : fallback
}

/** Reads settings from the environment; bad values fall back to defaults rather than failing requests. */
export function readConfig(env: Env): Config {
  return {
    rateLimitPerMinute: int(env.RATE_LIMIT_PER_MINUTE, 20, 1),
    rateLimitPerDay: int(env.RATE_LIMIT_PER_DAY, 1000, 1),
    maxBodyBytes: int(env.MAX_BODY_BYTES, 1024 * 1024, 1),
    queueWaitDefaultSeconds: int(env.QUEUE_WAIT_DEFAULT_SECONDS, 25),
    queueWaitMaxSeconds: int(env.QUEUE_WAIT_MAX_SECONDS, 60),
    queueRetryBaseSeconds: int(env.QUEUE_RETRY_BASE_SECONDS, 5),
    variableTtlSeconds: int(env.VARIABLE_TTL_SECONDS, 7 * 24 * 3600, 1),
    idempotencyTtlSeconds: int(env.IDEMPOTENCY_TTL_SECONDS, 24 * 3600, 1),
    allowPrivateFetch: env.ALLOW_PRIVATE_FETCH === 'true',
    contactEmail: env.CONTACT_EMAIL ?? '',
  }
}
