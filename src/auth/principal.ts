import type { Context, MiddlewareHandler } from 'hono'
import { findPrincipalByHash, touchToken, type TokenPrincipalRow } from '../db/tokens'
import { ApiError } from '../http/errors'
import type { AppEnv, Principal } from '../http/types'
import { sha256Hex } from '../lib/crypto'
import { TOKEN_PATTERN } from './tokens'

/** last_used_at is written at most this often per token, off the request path. */
const TOUCH_INTERVAL_MS = 60_000

/** Reads `Authorization: Bearer <token>` and resolves it to a Principal, or answers 401. */
export async function authenticate(c: Context<AppEnv>, authorization: string | undefined): Promise<Principal> {
  if (!authorization) throw new ApiError('UNAUTHORIZED', 'Missing bearer token: send "Authorization: Bearer <token>"')
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)
  if (!match) throw new ApiError('UNAUTHORIZED', 'Malformed Authorization header: expected "Bearer <token>"')
  const token = match[1]
  if (!TOKEN_PATTERN.test(token)) throw new ApiError('UNAUTHORIZED', 'Invalid token')
  const row = await findPrincipalByHash(c.env.DB, await sha256Hex(token))
  if (!row) throw new ApiError('UNAUTHORIZED', 'Invalid token')
  return principalFromRow(c, row)
}

/** The principal of a token row, after the checks every credential gets (revoked, expired). */
export function principalFromRow(c: Context<AppEnv>, row: TokenPrincipalRow): Principal {
  const now = Date.now()
  if (row.revoked_at !== null) throw new ApiError('UNAUTHORIZED', 'Token has been revoked')
  if (row.expires_at !== null && row.expires_at <= now) throw new ApiError('UNAUTHORIZED', 'Token has expired')
  if (row.last_used_at === null || now - row.last_used_at > TOUCH_INTERVAL_MS) {
    c.executionCtx.waitUntil(touchToken(c.env.DB, row.token_id, now, TOUCH_INTERVAL_MS).catch(() => undefined))
  }
  return {
    accountId: row.account_id,
    accountName: row.account_name,
    tokenId: row.token_id,
    teamIds: row.team_ids ? row.team_ids.split(',') : [],
    rateLimitPerMinute: row.rate_limit_per_minute,
    rateLimitPerDay: row.rate_limit_per_day,
    tokenRateLimitPerMinute: row.token_rate_limit_per_minute,
    tokenRateLimitPerDay: row.token_rate_limit_per_day,
    catalogVersion: row.catalog_version,
    vocabularyPoint: row.vocabulary_point,
  }
}

/** Middleware: authenticates the request and stores the principal on the context. */
export const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('principal', await authenticate(c, c.req.header('authorization')))
  await next()
}
