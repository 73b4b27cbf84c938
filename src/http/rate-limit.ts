import type { MiddlewareHandler } from 'hono'
import { countRequest } from '../db/rate-limits'
import { ApiError } from './errors'
import type { AppEnv } from './types'

const MINUTE = 60_000
const DAY = 86_400_000

/**
 * Per-token limits (per minute and per day, account override first). Every authenticated response
 * carries the ratelimit-* headers of the window closest to running out; a 429 adds retry-after.
 */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const p = c.get('principal')
  const config = c.get('config')
  const perMinute = p.rateLimitPerMinute ?? config.rateLimitPerMinute
  const perDay = p.rateLimitPerDay ?? config.rateLimitPerDay
  const now = Date.now()
  const minuteStart = now - (now % MINUTE)
  const dayStart = now - (now % DAY)
  const count = await countRequest(c.env.DB, p.tokenId, minuteStart, dayStart, perMinute, perDay)

  const minuteLeft = Math.max(0, perMinute - count.minuteCount)
  const dayLeft = Math.max(0, perDay - count.dayCount)
  const minuteExhausted = !count.allowed && count.minuteCount >= perMinute
  // Report the window that blocks (or would block first).
  const useDay = count.allowed ? dayLeft < minuteLeft : !minuteExhausted
  const limit = useDay ? perDay : perMinute
  const remaining = useDay ? dayLeft : minuteLeft
  const resetAt = useDay ? dayStart + DAY : minuteStart + MINUTE
  const resetSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000))
  const headers: Record<string, string> = {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(remaining),
    'ratelimit-reset': String(resetSeconds),
    'ratelimit-reset-date': new Date(resetAt).toUTCString(),
  }
  if (!count.allowed) {
    throw new ApiError(
      'RATE_LIMITED',
      `Rate limit exceeded: ${limit} requests per ${useDay ? 'day' : 'minute'} for this token; retry in ${resetSeconds} s`,
      [],
      { ...headers, 'retry-after': String(resetSeconds) },
    )
  }
  await next()
  for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v)
}
