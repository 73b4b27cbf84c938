import { Hono } from 'hono'
import { getToken, listTokens, revokeToken } from '../db/tokens'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { CreateTokenBody, expiryOf } from './schemas'
import { createToken, presentToken } from './tokens'

/** `/v1/tokens`: a token holder lists, creates and revokes its own account's tokens. */
export function tokenRoutes() {
  const app = new Hono<AppEnv>()
  app.get('/', async (c) => {
    const rows = await listTokens(c.env.DB, c.get('principal').accountId)
    return c.json({ status: 200, response: rows.map(presentToken) })
  })
  app.post('/', async (c) => {
    const body = await readValidBody(c, CreateTokenBody)
    const now = Date.now()
    const expiresAt = expiryOf(body, now)
    if (expiresAt !== null && expiresAt <= now) throw new ApiError('VALIDATION_FAILED', 'expires_at is in the past', [{ path: '/expires_at', message: 'Must be in the future' }])
    const { token, view } = await createToken(c.env.DB, c.get('principal').accountId, body.name, expiresAt, now)
    return c.json({ status: 201, response: { ...presentToken(view), token } }, 201)
  })
  app.delete('/:id', async (c) => {
    const accountId = c.get('principal').accountId
    const id = c.req.param('id')
    const existing = await getToken(c.env.DB, id)
    // Another account's token reads as absent.
    if (!existing || existing.account_id !== accountId) throw new ApiError('NOT_FOUND', `Token "${id.slice(0, 64)}" not found`)
    await revokeToken(c.env.DB, id, accountId, Date.now())
    return c.json({ status: 200, response: presentToken((await getToken(c.env.DB, id))!) })
  })
  return app
}
