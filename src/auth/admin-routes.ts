import { Hono, type MiddlewareHandler } from 'hono'
import { addTeamMember, getAccount, getTeam, insertAccount, insertTeam, listAccounts, listTeamMembers, listTeams, removeTeamMember, updateAccountLimits, type AccountRow } from '../db/accounts'
import { setTrusted } from '../db/agent-access'
import { getToken, listTokens, revokeToken, updateTokenLimits } from '../db/tokens'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { safeEqual } from '../lib/crypto'
import { newId } from '../lib/ids'
import { CreateAccountBody, CreateTeamBody, CreateTokenBody, expiryOf, MemberBody, UpdateAccountBody, UpdateTokenBody } from './schemas'
import { createToken, presentToken } from './tokens'
import { searchMemory } from '../agents/search'

/** Admin routes exist only when ADMIN_TOKEN is set, and need it as the bearer token (compared in constant time). */
const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.env.ADMIN_TOKEN
  if (!secret) throw new ApiError('NOT_FOUND', `No route for ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}`)
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(c.req.header('authorization') ?? '')
  if (!match || !(await safeEqual(match[1], secret))) throw new ApiError('UNAUTHORIZED', 'Admin routes need "Authorization: Bearer <ADMIN_TOKEN>"')
  await next()
}

function presentAccount(a: AccountRow) {
  return {
    id: a.id,
    name: a.name,
    rate_limit_per_minute: a.rate_limit_per_minute,
    rate_limit_per_day: a.rate_limit_per_day,
    created_at: new Date(a.created_at).toISOString(),
  }
}

const ok = (response: unknown) => ({ status: 200, response })

/** `/v1/admin/*`: accounts, teams, memberships, tokens and trusted agents, for operators and the admin CLI. */
export function adminRoutes() {
  const app = new Hono<AppEnv>()
  app.use('*', requireAdmin)

  app.post('/accounts', async (c) => {
    const body = await readValidBody(c, CreateAccountBody)
    const row: AccountRow = {
      id: newId('acc'),
      name: body.name,
      rate_limit_per_minute: body.rate_limit_per_minute ?? null,
      rate_limit_per_day: body.rate_limit_per_day ?? null,
      created_at: Date.now(),
    }
    await insertAccount(c.env.DB, row)
    return c.json({ status: 201, response: presentAccount(row) }, 201)
  })
  app.get('/accounts', async (c) => {
    const limit = Math.min(500, Math.max(1, Number(c.req.query('limit') ?? 100) || 100))
    const rows = await listAccounts(c.env.DB, limit, c.req.query('after') ?? null)
    return c.json(ok(rows.map(presentAccount)))
  })
  /** This isolate's search state in bytes, per piece (benchmarks read it; README, Search score). */
  app.get('/search-memory', (c) => c.json(ok(searchMemory())))
  app.get('/accounts/:id', async (c) => {
    const row = await getAccount(c.env.DB, c.req.param('id'))
    if (!row) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
    return c.json(ok(presentAccount(row)))
  })
  app.patch('/accounts/:id', async (c) => {
    const body = await readValidBody(c, UpdateAccountBody)
    const current = await getAccount(c.env.DB, c.req.param('id'))
    if (!current) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
    const perMinute = body.rate_limit_per_minute === undefined ? current.rate_limit_per_minute : body.rate_limit_per_minute
    const perDay = body.rate_limit_per_day === undefined ? current.rate_limit_per_day : body.rate_limit_per_day
    await updateAccountLimits(c.env.DB, current.id, perMinute, perDay)
    return c.json(ok(presentAccount({ ...current, rate_limit_per_minute: perMinute, rate_limit_per_day: perDay })))
  })

  app.post('/accounts/:id/tokens', async (c) => {
    const body = await readValidBody(c, CreateTokenBody)
    const account = await getAccount(c.env.DB, c.req.param('id'))
    if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
    const now = Date.now()
    const expiresAt = expiryOf(body, now)
    if (expiresAt !== null && expiresAt <= now) throw new ApiError('VALIDATION_FAILED', 'expires_at is in the past', [{ path: '/expires_at', message: 'Must be in the future' }])
    const limits = { rate_limit_per_minute: body.rate_limit_per_minute ?? null, rate_limit_per_day: body.rate_limit_per_day ?? null }
    const { token, view } = await createToken(c.env.DB, account.id, body.name, expiresAt, now, limits, c.get('config').maxTokensPerAccount)
    return c.json({ status: 201, response: { ...presentToken(view), token } }, 201)
  })
  app.get('/accounts/:id/tokens', async (c) => {
    const account = await getAccount(c.env.DB, c.req.param('id'))
    if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
    return c.json(ok((await listTokens(c.env.DB, account.id)).map(presentToken)))
  })
  app.patch('/tokens/:id', async (c) => {
    const body = await readValidBody(c, UpdateTokenBody)
    const existing = await getToken(c.env.DB, c.req.param('id'))
    if (!existing) throw new ApiError('NOT_FOUND', `Token "${c.req.param('id').slice(0, 64)}" not found`)
    const limits = {
      rate_limit_per_minute: body.rate_limit_per_minute === undefined ? existing.rate_limit_per_minute : body.rate_limit_per_minute,
      rate_limit_per_day: body.rate_limit_per_day === undefined ? existing.rate_limit_per_day : body.rate_limit_per_day,
    }
    await updateTokenLimits(c.env.DB, existing.id, null, limits)
    return c.json(ok(presentToken({ ...existing, ...limits })))
  })
  app.delete('/tokens/:id', async (c) => {
    const id = c.req.param('id')
    if (!(await revokeToken(c.env.DB, id, null, Date.now()))) {
      const existing = await getToken(c.env.DB, id)
      if (!existing) throw new ApiError('NOT_FOUND', `Token "${id}" not found`)
    }
    return c.json(ok(presentToken((await getToken(c.env.DB, id))!)))
  })

  app.post('/teams', async (c) => {
    const body = await readValidBody(c, CreateTeamBody)
    const row = { id: newId('team'), name: body.name, created_at: Date.now() }
    await insertTeam(c.env.DB, row)
    return c.json({ status: 201, response: { ...row, created_at: new Date(row.created_at).toISOString() } }, 201)
  })
  app.get('/teams', async (c) => {
    const rows = await listTeams(c.env.DB)
    return c.json(ok(rows.map((t) => ({ ...t, created_at: new Date(t.created_at).toISOString() }))))
  })
  app.get('/teams/:id/members', async (c) => {
    const team = await getTeam(c.env.DB, c.req.param('id'))
    if (!team) throw new ApiError('NOT_FOUND', `Team "${c.req.param('id')}" not found`)
    const rows = await listTeamMembers(c.env.DB, team.id)
    return c.json(ok(rows.map((m) => ({ ...m, created_at: new Date(m.created_at).toISOString() }))))
  })
  app.put('/teams/:id/members/:accountId', async (c) => {
    const body = c.req.header('content-length') === '0' || !c.req.header('content-type') ? { role: 'member' as const } : await readValidBody(c, MemberBody)
    const team = await getTeam(c.env.DB, c.req.param('id'))
    if (!team) throw new ApiError('NOT_FOUND', `Team "${c.req.param('id')}" not found`)
    const account = await getAccount(c.env.DB, c.req.param('accountId'))
    if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('accountId')}" not found`)
    await addTeamMember(c.env.DB, team.id, account.id, body.role, Date.now())
    return c.json(ok({ team_id: team.id, account_id: account.id, role: body.role }))
  })
  app.delete('/teams/:id/members/:accountId', async (c) => {
    if (!(await removeTeamMember(c.env.DB, c.req.param('id'), c.req.param('accountId')))) {
      throw new ApiError('NOT_FOUND', `Account "${c.req.param('accountId')}" is not a member of team "${c.req.param('id')}"`)
    }
    return c.json(ok({ team_id: c.req.param('id'), account_id: c.req.param('accountId'), removed: true }))
  })

  // Trust vouches for an agent's current workflow: it uses callers' integrations without their grants
  // until the workflow changes, which ends the trust (a trigger in D1, whatever route changes it).
  for (const [method, trusted] of [['put', true], ['delete', false]] as const) {
    app[method]('/agents/:id/trusted', async (c) => {
      if (!(await setTrusted(c.env.DB, c.req.param('id'), trusted))) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
      return c.json(ok({ agent_id: c.req.param('id'), trusted }))
    })
  }
  return app
}
