import type { MiddlewareHandler } from 'hono'
import { authenticate, principalFromRow } from '../auth/principal'
import { findPrincipalByTokenId } from '../db/tokens'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { hmacSha256Hex, safeEqual } from '../lib/crypto'
import { encodeUriText } from '../lib/text'

/**
 * A browser cannot send a bearer header when it navigates, and the long-lived token must never sit in
 * a URL (history, logs, Referer). So the console asks for a link that opens one run's report for a few
 * minutes: signed with a key derived from ENCRYPTION_KEY, naming the token that asked (a revoked or
 * expired token ends its links at once) and bound to the run.
 */
export const REPORT_LINK_TTL_SECONDS = 300

const message = (runId: string, tokenId: string, expires: number) => `report-link:v1:${runId}:${tokenId}:${expires}`

function linkKey(env: { ENCRYPTION_KEY?: string }): string {
  if (!env.ENCRYPTION_KEY) throw new ApiError('NOT_CONFIGURED', 'Report links need the ENCRYPTION_KEY setting (secret); send the bearer header instead')
  // Its own purpose string, so a link signature is never valid as any other HMAC of this key.
  return `report-link:${env.ENCRYPTION_KEY}`
}

/** A signed path that opens the run's report until `expires_at`. */
export async function signReportLink(env: { ENCRYPTION_KEY?: string }, runId: string, tokenId: string, now = Date.now()): Promise<{ url: string; expires_at: string }> {
  const expires = Math.floor(now / 1000) + REPORT_LINK_TTL_SECONDS
  const signature = await hmacSha256Hex(linkKey(env), message(runId, tokenId, expires))
  const query = new URLSearchParams({ token_id: tokenId, expires: String(expires), signature })
  return { url: `/v1/runs/${encodeUriText(runId)}/report?${query}`, expires_at: new Date(expires * 1000).toISOString() }
}

const bad = () => new ApiError('UNAUTHORIZED', 'The report link is invalid or has expired: open the report again from the console')

/**
 * Middleware for `GET /v1/runs/:id/report`: a bearer header as on every route, or else a signed link
 * for this run. Either way the principal is the token's, with the same revocation and expiry checks.
 */
export const reportAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const authorization = c.req.header('authorization')
  const signature = c.req.query('signature')
  if (authorization !== undefined || signature === undefined) {
    c.set('principal', await authenticate(c, authorization))
    return next()
  }
  const tokenId = c.req.query('token_id') ?? ''
  const expiresText = c.req.query('expires') ?? ''
  if (!/^\d{1,12}$/.test(expiresText) || !/^[A-Za-z0-9_]{1,64}$/.test(tokenId) || !/^[0-9a-f]{64}$/.test(signature)) throw bad()
  const expires = Number(expiresText)
  const nowSeconds = Date.now() / 1000
  if (expires <= nowSeconds || expires > nowSeconds + REPORT_LINK_TTL_SECONDS + 60) throw bad()
  const expected = await hmacSha256Hex(linkKey(c.env), message(c.req.param('id') ?? '', tokenId, expires))
  if (!(await safeEqual(expected, signature))) throw bad()
  const row = await findPrincipalByTokenId(c.env.DB, tokenId)
  if (!row) throw bad()
  c.set('principal', principalFromRow(c, row))
  await next()
}
