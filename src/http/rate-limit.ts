import type { Context, MiddlewareHandler } from 'hono'
import { countRequestStatements, readCount, type RateCount, type RateLimits } from '../db/rate-limits'
import type { Admission } from '../runtime/context'
import { ApiError } from './errors'
import type { AppEnv } from './types'

const MINUTE = 60_000
const DAY = 86_400_000

/**
 * Accounts and tokens refused in this isolate, until their window resets: their next requests are
 * counted on their own before any work, so a caller over its limit cannot make search run its first read.
 */
const refusedUntil = new Map<string, number>()
const REFUSED_ENTRIES = 10_000

/** One limit a request is counted against: the account's or the token's, per minute or per day. */
interface Window {
  scope: 'account' | 'token'
  unit: 'minute' | 'day'
  limit: number
  count: number
  resetAt: number
}

/**
 * Limits per account (all its tokens together; the setting's default or the account's override),
 * and a token's own lower limits when it has them, counted once per request. Every authenticated
 * response carries the ratelimit-* headers of the limit that binds: the one closest to running out,
 * or the one that refused the request; a 429 adds retry-after.
 */
export class RateLimitAdmission implements Admission {
  headers: Record<string, string> | null = null
  refused = false
  private counting: Promise<void> | null = null
  private readonly now = Date.now()
  private readonly minuteStart = this.now - (this.now % MINUTE)
  private readonly dayStart = this.now - (this.now % DAY)
  /** The token's limits within the account's. */
  private readonly tokenLimits: RateLimits

  constructor(
    private readonly db: D1Database,
    private readonly accountId: string,
    private readonly tokenId: string,
    private readonly accountLimits: RateLimits,
    /** The token's own limits (either may be null: the account's applies). */
    private readonly tokenOwn: { perMinute: number | null; perDay: number | null },
  ) {
    this.tokenLimits = {
      perMinute: Math.min(accountLimits.perMinute, tokenOwn.perMinute ?? Infinity),
      perDay: Math.min(accountLimits.perDay, tokenOwn.perDay ?? Infinity),
    }
  }

  admit(): Promise<void> {
    this.counting ??= this.db.batch<Record<string, unknown>>(this.statements()).then(([account, token]) => this.settle(readCount(account, token)))
    return this.counting
  }

  async read(statements: D1PreparedStatement[]): Promise<D1Result<Record<string, unknown>>[]> {
    const refused = Math.max(refusedUntil.get(this.accountId) ?? 0, refusedUntil.get(this.tokenId) ?? 0)
    if (this.counting || refused > this.now) {
      await this.admit()
      return this.db.batch(statements)
    }
    const counted = this.statements()
    const results = this.db.batch<Record<string, unknown>>([...counted, ...statements])
    this.counting = results.then(([account, token]) => this.settle(readCount(account, token)))
    await this.counting
    return (await results).slice(counted.length)
  }

  private statements(): D1PreparedStatement[] {
    return countRequestStatements(this.db, this.accountId, this.tokenId, this.minuteStart, this.dayStart, this.accountLimits, this.tokenLimits)
  }

  private windows(count: RateCount): Window[] {
    const minuteReset = this.minuteStart + MINUTE
    const dayReset = this.dayStart + DAY
    const out: Window[] = [
      { scope: 'account', unit: 'minute', limit: this.accountLimits.perMinute, count: count.account.minuteCount, resetAt: minuteReset },
      { scope: 'account', unit: 'day', limit: this.accountLimits.perDay, count: count.account.dayCount, resetAt: dayReset },
    ]
    if (this.tokenOwn.perMinute !== null) out.push({ scope: 'token', unit: 'minute', limit: this.tokenLimits.perMinute, count: count.token.minuteCount, resetAt: minuteReset })
    if (this.tokenOwn.perDay !== null) out.push({ scope: 'token', unit: 'day', limit: this.tokenLimits.perDay, count: count.token.dayCount, resetAt: dayReset })
    return out
  }

  private settle(count: RateCount): void {
    const windows = this.windows(count)
    const left = (w: Window) => Math.max(0, w.limit - w.count)
    // Allowed: the limit closest to running out. Refused: of the limits used up, the one that frees last.
    const usedUp = windows.filter((w) => w.count >= w.limit)
    const binding = count.allowed || usedUp.length === 0 ? windows.reduce((best, w) => (left(w) < left(best) ? w : best)) : usedUp.reduce((best, w) => (w.resetAt > best.resetAt ? w : best))
    const resetSeconds = Math.max(1, Math.ceil((binding.resetAt - this.now) / 1000))
    this.headers = {
      'ratelimit-limit': String(binding.limit),
      'ratelimit-remaining': String(left(binding)),
      'ratelimit-reset': String(resetSeconds),
      'ratelimit-reset-date': new Date(binding.resetAt).toUTCString(),
    }
    if (count.allowed) return
    this.refused = true
    if (refusedUntil.size >= REFUSED_ENTRIES) refusedUntil.clear()
    refusedUntil.set(binding.scope === 'account' ? this.accountId : this.tokenId, binding.resetAt)
    const whose = binding.scope === 'account' ? 'this account (all its tokens together)' : "this token (its own limit, below the account's)"
    throw new ApiError('RATE_LIMITED', `Rate limit exceeded: ${binding.limit} requests per ${binding.unit} for ${whose}; retry in ${resetSeconds} s`, [], {
      ...this.headers,
      'retry-after': String(resetSeconds),
    })
  }
}

/**
 * The count of one more request of the authenticated caller, not yet made (`admit()` makes it). The
 * HTTP request's own count is `c.get('admission')`; a request that carries several calls (an MCP
 * JSON-RPC batch) counts each call after the first with one of these.
 */
export function anotherRequest(c: Context<AppEnv>): RateLimitAdmission {
  const p = c.get('principal')
  const config = c.get('config')
  return new RateLimitAdmission(
    c.env.DB,
    p.accountId,
    p.tokenId,
    { perMinute: p.rateLimitPerMinute ?? config.rateLimitPerMinute, perDay: p.rateLimitPerDay ?? config.rateLimitPerDay },
    { perMinute: p.tokenRateLimitPerMinute, perDay: p.tokenRateLimitPerDay },
  )
}

function admissionOf(c: Context<AppEnv>): RateLimitAdmission {
  const admission = anotherRequest(c)
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
