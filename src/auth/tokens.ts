import { insertToken, type TokenView } from '../db/tokens'
import { ApiError } from '../http/errors'
import { sha256Hex } from '../lib/crypto'
import { bytesToBase62, newId } from '../lib/ids'

export const TOKEN_PREFIX = 'aak_'
/** `aak_` + base62 of 32 random bytes (43 characters). */
export const TOKEN_PATTERN = /^aak_[0-9A-Za-z]{43}$/
const START_LENGTH = TOKEN_PREFIX.length + 6

/** A token's own limits (null: the account's alone). */
export interface TokenLimits {
  rate_limit_per_minute: number | null
  rate_limit_per_day: number | null
}

/**
 * Creates a token for an account, unless the account already has `maxActive` active tokens (429
 * QUOTA_EXCEEDED naming MAX_TOKENS_PER_ACCOUNT). The plain value is returned once and never stored.
 */
export async function createToken(
  db: D1Database,
  accountId: string,
  name: string,
  expiresAt: number | null,
  now: number,
  limits: TokenLimits,
  maxActive: number,
): Promise<{ token: string; view: TokenView }> {
  const token = TOKEN_PREFIX + bytesToBase62(crypto.getRandomValues(new Uint8Array(32)))
  const row = {
    id: newId('tok'),
    account_id: accountId,
    name,
    hash: await sha256Hex(token),
    start: token.slice(0, START_LENGTH),
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    last_used_at: null,
    ...limits,
  }
  if (!(await insertToken(db, row, maxActive))) {
    throw new ApiError('QUOTA_EXCEEDED', `This account already has ${maxActive} active tokens (the MAX_TOKENS_PER_ACCOUNT setting): revoke one (DELETE /v1/tokens/:id) before creating another`)
  }
  const { hash: _hash, ...view } = row
  return { token, view }
}

/** Token as shown by the API: times as ISO strings. */
export function presentToken(t: TokenView) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    id: t.id,
    account_id: t.account_id,
    name: t.name,
    start: t.start,
    created_at: iso(t.created_at),
    expires_at: iso(t.expires_at),
    revoked_at: iso(t.revoked_at),
    last_used_at: iso(t.last_used_at),
    rate_limit_per_minute: t.rate_limit_per_minute,
    rate_limit_per_day: t.rate_limit_per_day,
  }
}

const WINDOWS = [
  ['rate_limit_per_minute', 'minute'],
  ['rate_limit_per_day', 'day'],
] as const

/**
 * The limits a token holder may give a token (a new one, or a change to one): a token with limits of
 * its own cannot hand out more than it has, so it can neither lift a limit (null) nor go above its
 * own. `base` fills what the request leaves out: the caller's own limits for a new token (so it
 * inherits them), the token's current limits for a change.
 */
export function limitsWithin(requested: Partial<TokenLimits>, caller: TokenLimits, base: TokenLimits): TokenLimits {
  const out = { ...base }
  for (const [field, unit] of WINDOWS) {
    const want = requested[field]
    if (want === undefined) continue
    const own = caller[field]
    if (own !== null && (want === null || want > own)) {
      throw new ApiError('FORBIDDEN', `This token is limited to ${own} requests per ${unit}, so it cannot give a token ${want === null ? 'no limit' : `a limit of ${want}`}`, [
        { path: `/${field}`, message: `At most ${own}` },
      ])
    }
    out[field] = want
  }
  return out
}
