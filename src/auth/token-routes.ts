import type { Context } from 'hono'
import { getToken, listTokens, revokeToken, updateTokenLimits } from '../db/tokens'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import { Router, schemaRef } from '../http/route-table'
import type { AppEnv } from '../http/types'
import { CreateTokenBody, expiryOf, UpdateTokenBody } from './schemas'
import { createToken, limitsWithin, presentToken, type TokenLimits } from './tokens'

/**
 * `/v1/tokens`: a token holder lists, creates and revokes its own account's tokens and sets their
 * own limits. Every token counts against the account's rate limits; a token with limits of its own
 * passes them on to the tokens it creates and cannot raise any token above them.
 */
export function tokenRoutes() {
  const app = new Router('Account')
  const callerLimits = (c: Context<AppEnv>): TokenLimits => {
    const p = c.get('principal')
    return { rate_limit_per_minute: p.tokenRateLimitPerMinute, rate_limit_per_day: p.tokenRateLimitPerDay }
  }
  const ownToken = async (c: Context<AppEnv>, accountId: string, id: string) => {
    const existing = await getToken(c.env.DB, id)
    // Another account's token reads as absent.
    if (!existing || existing.account_id !== accountId) throw new ApiError('NOT_FOUND', `Token "${id.slice(0, 64)}" not found`)
    return existing
  }

  app.get(
    '/',
    { operationId: 'listTokens', summary: "List the account's tokens", response: { description: 'Tokens (never their values)', schema: { type: 'array', items: schemaRef('Token') } } },
    async (c) => {
      const rows = await listTokens(c.env.DB, c.get('principal').accountId)
      return c.json({ status: 200, response: rows.map(presentToken) })
    },
  )
  app.post(
    '/',
    {
      operationId: 'createToken',
      summary: 'Create a token (its value is shown once)',
      body: { schema: CreateTokenBody, examples: [{ name: 'ci', expires_in_days: 30 }] },
      response: { status: 201, description: 'The new token, with `token` shown once', schema: schemaRef('NewToken') },
      errors: [403],
    },
    async (c) => {
      const body = await readValidBody(c, CreateTokenBody)
      const now = Date.now()
      const expiresAt = expiryOf(body, now)
      if (expiresAt !== null && expiresAt <= now) throw new ApiError('VALIDATION_FAILED', 'expires_at is in the past', [{ path: '/expires_at', message: 'Must be in the future' }])
      const caller = callerLimits(c)
      const limits = limitsWithin(body, caller, caller)
      const { token, view } = await createToken(c.env.DB, c.get('principal').accountId, body.name, expiresAt, now, limits, c.get('config').maxTokensPerAccount)
      return c.json({ status: 201, response: { ...presentToken(view), token } }, 201)
    },
  )
  const idParam = { id: { description: 'Token id (tok_...)' } }
  app.patch(
    '/:id',
    {
      operationId: 'updateToken',
      summary: "Set one of the account's tokens' own rate limits (never above the caller's)",
      params: idParam,
      body: { schema: UpdateTokenBody, examples: [{ rate_limit_per_minute: 30 }] },
      response: { description: 'The token', schema: schemaRef('Token') },
      errors: [404],
    },
    async (c) => {
      const body = await readValidBody(c, UpdateTokenBody)
      const accountId = c.get('principal').accountId
      const existing = await ownToken(c, accountId, c.req.param('id'))
      const limits = limitsWithin(body, callerLimits(c), existing)
      await updateTokenLimits(c.env.DB, existing.id, accountId, limits)
      return c.json({ status: 200, response: presentToken({ ...existing, ...limits }) })
    },
  )
  app.delete(
    '/:id',
    { operationId: 'revokeToken', summary: 'Revoke a token of the account', params: idParam, response: { description: 'The revoked token', schema: schemaRef('Token') }, errors: [404] },
    async (c) => {
      const accountId = c.get('principal').accountId
      const existing = await ownToken(c, accountId, c.req.param('id'))
      await revokeToken(c.env.DB, existing.id, accountId, Date.now())
      return c.json({ status: 200, response: presentToken((await getToken(c.env.DB, existing.id))!) })
    },
  )
  return app
}
