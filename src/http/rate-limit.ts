import type { Context, MiddlewareHandler } from 'hono'
import { countRequestStatement, readCount, type RateCount } from '../db/rate-limits'
import type { Admission } from '../runtime/context'
import { ApiError } from './errors'
import type { AppEnv } from './types'

const MINUTE = 60_000
const DAY = 86_400_000

/**
 * Tokens refused in this isolate, until their window resets: their next requests are counted on
 * their own before any work, so a caller over its limit cannot make search run its first read.
 */
const refusedUntil = new Map<string, number>()
const REFUSED_ENTRIES = 10_000

/**
 * Per-token limits (per minute and per day, account override first), counted once per request.
 * Every authenticated response carries the ratelimit-* headers of the window closest to running out;
 * a 429 adds retry-after.
 */
export class RateLimitAdmission implements Admission {
  headers: Record<string, string> | null = null
  refused = false
  private counting: Promise<void> | null = null
  private readonly now = Date.now()
  private readonly minuteStart = this.now - (this.now % MINUTE)
  private readonly dayStart = this.now - (this.now % DAY)

  constructor(
    private readonly db: D1Database,
    private readonly tokenId: string,
    private readonly perMinute: number,
    private readonly perDay: number,
  ) {}

  admit(): Promise<void> {
    this.counting ??= this.statement()
      .all()
      .then((result) => this.settle(readCount(result)))
    return this.counting
  }

  async read(statements: D1PreparedStatement[]): Promise<D1Result<Record<string, unknown>>[]> {
    if (this.counting || (refusedUntil.get(this.tokenId) ?? 0) > this.now) {
      await this.admit()
      return this.db.batch(statements)
    }
    const results = this.db.batch<Record<string, unknown>>([this.statement(), ...statements])
    this.counting = results.then(([count]) => this.settle(readCount(count)))
    await this.counting
    return (await results).slice(1)
  }

  private statement(): D1PreparedStatement {
    return countRequestStatement(this.db, this.tokenId, this.minuteStart, this.dayStart, this.perMinute, this.perDay)
  }

  private settle(count: RateCount): void {
    const { perMinute, perDay, now } = this
    const minuteLeft = Math.max(0, perMinute - count.minuteCount)
    const dayLeft = Math.max(0, perDay - count.dayCount)
    const minuteExhausted = !count.allowed && count.minuteCount >= perMinute
    // Report the window that blocks (or would block first).
    const useDay = count.allowed ? dayLeft < minuteLeft : !minuteExhausted
    const limit = useDay ? perDay : perMinute
    const remaining = useDay ? dayLeft : minuteLeft
    const resetAt = useDay ? this.dayStart + DAY : this.minuteStart + MINUTE
    const resetSeconds = Math.max(1, Math.ceil((resetAt - now) / 1000))
    this.headers = {
      'ratelimit-limit': String(limit),
      'ratelimit-remaining': String(remaining),
      'ratelimit-reset': String(resetSeconds),
      'ratelimit-reset-date': new Date(resetAt).toUTCString(),
    }
    if (count.allowed) return
    this.refused = true
    if (refusedUntil.size >= REFUSED_ENTRIES) refusedUntil.clear()
    refusedUntil.set(this.tokenId, resetAt)
    throw new ApiError(
      'RATE_LIMITED',
      `Rate limit exceeded: ${limit} requests per ${useDay ? 'day' : 'minute'} for this token; retry in ${resetSeconds} s`,
      [],
      { ...this.headers, 'retry-after': String(resetSeconds) },
    )
  }
}

function admissionOf(c: Context<AppEnv>): RateLimitAdmission {
  const p = c.get('principal')
  const config = c.get('config')
  const admission = new RateLimitAdmission(c.env.DB, p.tokenId, p.rateLimitPerMinute ?? config.rateLimitPerMinute, p.rateLimitPerDay ?? config.rateLimitPerDay)
  c.set('admission', admission)
  return admission
}

function setHeaders(c: Context<AppEnv>, admission: RateLimitAdmission): void {
  for (const [k, v] of Object.entries(admission.headers ?? {})) c.res.headers.set(k, v)
}

/** Counts the request before anything else runs. */
export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const admission = admissionOf(c)
  await admission.admit()
  await next()
  setHeaders(c, admission)
}

/**
 * For action calls: the handler counts the request before the action has any effect, or lets a
 * read-only action send the count with its first read. Whatever the handler did, the request is
 * counted by the time it answers; a request over the limit answers 429 in place of anything else.
 */
export const deferredRateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const admission = admissionOf(c)
  await next()
  await admission.admit()
  setHeaders(c, admission)
}
