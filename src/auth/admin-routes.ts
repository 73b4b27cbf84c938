import type { Context, MiddlewareHandler } from 'hono'
import { z } from 'zod'
import { addTeamMember, getAccount, getTeam, insertAccount, insertTeam, listAccounts, listTeamMembers, listTeams, removeTeamMember, updateAccountLimits, type AccountRow } from '../db/accounts'
import { setTrusted } from '../db/agent-access'
import { getToken, listTokens, revokeToken, updateTokenLimits } from '../db/tokens'
import { readOptionalBody, readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import { Router, schemaRef } from '../http/route-table'
import type { AppEnv } from '../http/types'
import { safeEqual } from '../lib/crypto'
import { newId } from '../lib/ids'
import { CreateAccountBody, CreateTeamBody, CreateTokenBody, expiryOf, MemberBody, UpdateAccountBody, UpdateTokenBody } from './schemas'
import { createToken, presentToken } from './tokens'
import { searchMemory } from '../agents/search-state'

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

const AccountListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).optional().describe('Page size, 1-500; default 100'),
  after: z.string().max(100).optional().describe('Account id of the last row of the previous page'),
})
const memberParams = { id: { description: 'Team id' }, accountId: { description: 'Account id' } }
const Membership = z.object({ team_id: z.string(), account_id: z.string(), role: z.enum(['member', 'admin']) })

/** `/v1/admin/*`: accounts, teams, memberships, tokens and trusted agents, for operators and the admin CLI. */
export function adminRoutes() {
  const app = new Router('Admin')
  app.app.use('*', requireAdmin)

  app.post(
    '/accounts',
    {
      operationId: 'adminCreateAccount',
      summary: 'Create an account',
      body: { schema: CreateAccountBody, examples: [{ name: 'Acme' }] },
      response: { status: 201, description: 'The account', schema: schemaRef('Account') },
    },
    async (c) => {
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
    },
  )
  app.get(
    '/accounts',
    {
      operationId: 'adminListAccounts',
      summary: 'List accounts, oldest first',
      query: AccountListQuery,
      response: { description: 'Accounts', schema: { type: 'array', items: schemaRef('Account') } },
    },
    async (c) => {
      const limit = Number(c.req.query('limit') ?? 100)
      const rows = await listAccounts(c.env.DB, limit, c.req.query('after') ?? null)
      return c.json(ok(rows.map(presentAccount)))
    },
  )
  app.get(
    '/search-memory',
    {
      operationId: 'adminSearchMemory',
      summary: "This isolate's search state in bytes, per piece (benchmarks read it)",
      response: { description: 'Bytes per piece of per-isolate search state', schema: { type: 'object', additionalProperties: { type: 'number' } } },
    },
    (c) => c.json(ok(searchMemory())),
  )
  app.get(
    '/accounts/:id',
    {
      operationId: 'adminGetAccount',
      summary: 'Read an account',
      params: { id: { description: 'Account id (acc_...)' } },
      response: { description: 'The account', schema: schemaRef('Account') },
      errors: [404],
    },
    async (c) => {
      const row = await getAccount(c.env.DB, c.req.param('id'))
      if (!row) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
      return c.json(ok(presentAccount(row)))
    },
  )
  app.patch(
    '/accounts/:id',
    {
      operationId: 'adminUpdateAccount',
      summary: "Change an account's rate limits",
      params: { id: { description: 'Account id (acc_...)' } },
      body: { schema: UpdateAccountBody, examples: [{ rate_limit_per_minute: 120 }] },
      response: { description: 'The account', schema: schemaRef('Account') },
      errors: [404],
    },
    async (c) => {
      const body = await readValidBody(c, UpdateAccountBody)
      const current = await getAccount(c.env.DB, c.req.param('id'))
      if (!current) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
      const perMinute = body.rate_limit_per_minute === undefined ? current.rate_limit_per_minute : body.rate_limit_per_minute
      const perDay = body.rate_limit_per_day === undefined ? current.rate_limit_per_day : body.rate_limit_per_day
      await updateAccountLimits(c.env.DB, current.id, perMinute, perDay)
      return c.json(ok(presentAccount({ ...current, rate_limit_per_minute: perMinute, rate_limit_per_day: perDay })))
    },
  )

  app.post(
    '/accounts/:id/tokens',
    {
      operationId: 'adminCreateToken',
      summary: 'Create a token for an account',
      params: { id: { description: 'Account id (acc_...)' } },
      body: { schema: CreateTokenBody, examples: [{ name: 'default' }] },
      response: { status: 201, description: 'The new token, shown once', schema: schemaRef('NewToken') },
      errors: [404, 429],
    },
    async (c) => {
      const body = await readValidBody(c, CreateTokenBody)
      const account = await getAccount(c.env.DB, c.req.param('id'))
      if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
      const now = Date.now()
      const expiresAt = expiryOf(body, now)
      if (expiresAt !== null && expiresAt <= now) throw new ApiError('VALIDATION_FAILED', 'expires_at is in the past', [{ path: '/expires_at', message: 'Must be in the future' }])
      const limits = { rate_limit_per_minute: body.rate_limit_per_minute ?? null, rate_limit_per_day: body.rate_limit_per_day ?? null }
      const { token, view } = await createToken(c.env.DB, account.id, body.name, expiresAt, now, limits, c.get('config').maxTokensPerAccount)
      return c.json({ status: 201, response: { ...presentToken(view), token } }, 201)
    },
  )
  app.get(
    '/accounts/:id/tokens',
    {
      operationId: 'adminListTokens',
      summary: "List an account's tokens",
      params: { id: { description: 'Account id (acc_...)' } },
      response: { description: 'Tokens', schema: { type: 'array', items: schemaRef('Token') } },
      errors: [404],
    },
    async (c) => {
      const account = await getAccount(c.env.DB, c.req.param('id'))
      if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('id')}" not found`)
      return c.json(ok((await listTokens(c.env.DB, account.id)).map(presentToken)))
    },
  )
  app.patch(
    '/tokens/:id',
    {
      operationId: 'adminUpdateToken',
      summary: "Set any token's own rate limits",
      params: { id: { description: 'Token id' } },
      body: { schema: UpdateTokenBody, examples: [{ rate_limit_per_day: 500 }] },
      response: { description: 'The token', schema: schemaRef('Token') },
      errors: [404],
    },
    async (c) => {
      const body = await readValidBody(c, UpdateTokenBody)
      const existing = await getToken(c.env.DB, c.req.param('id'))
      if (!existing) throw new ApiError('NOT_FOUND', `Token "${c.req.param('id').slice(0, 64)}" not found`)
      const limits = {
        rate_limit_per_minute: body.rate_limit_per_minute === undefined ? existing.rate_limit_per_minute : body.rate_limit_per_minute,
        rate_limit_per_day: body.rate_limit_per_day === undefined ? existing.rate_limit_per_day : body.rate_limit_per_day,
      }
      await updateTokenLimits(c.env.DB, existing.id, null, limits)
      return c.json(ok(presentToken({ ...existing, ...limits })))
    },
  )
  app.delete(
    '/tokens/:id',
    {
      operationId: 'adminRevokeToken',
      summary: 'Revoke any token',
      params: { id: { description: 'Token id' } },
      response: { description: 'The revoked token', schema: schemaRef('Token') },
      errors: [404],
    },
    async (c) => {
      const id = c.req.param('id')
      if (!(await revokeToken(c.env.DB, id, null, Date.now()))) {
        const existing = await getToken(c.env.DB, id)
        if (!existing) throw new ApiError('NOT_FOUND', `Token "${id}" not found`)
      }
      return c.json(ok(presentToken((await getToken(c.env.DB, id))!)))
    },
  )

  app.post(
    '/teams',
    {
      operationId: 'adminCreateTeam',
      summary: 'Create a team',
      body: { schema: CreateTeamBody, examples: [{ name: 'Sales' }] },
      response: { status: 201, description: 'The team', schema: schemaRef('Team') },
    },
    async (c) => {
      const body = await readValidBody(c, CreateTeamBody)
      const row = { id: newId('team'), name: body.name, created_at: Date.now() }
      await insertTeam(c.env.DB, row)
      return c.json({ status: 201, response: { ...row, created_at: new Date(row.created_at).toISOString() } }, 201)
    },
  )
  app.get('/teams', { operationId: 'adminListTeams', summary: 'List teams', response: { description: 'Teams', schema: { type: 'array', items: schemaRef('Team') } } }, async (c) => {
    const rows = await listTeams(c.env.DB)
    return c.json(ok(rows.map((t) => ({ ...t, created_at: new Date(t.created_at).toISOString() }))))
  })
  app.get(
    '/teams/:id/members',
    {
      operationId: 'adminListMembers',
      summary: "List a team's members",
      params: { id: { description: 'Team id' } },
      response: { description: 'Members', schema: { type: 'array', items: { type: 'object' } } },
      errors: [404],
    },
    async (c) => {
      const team = await getTeam(c.env.DB, c.req.param('id'))
      if (!team) throw new ApiError('NOT_FOUND', `Team "${c.req.param('id')}" not found`)
      const rows = await listTeamMembers(c.env.DB, team.id)
      return c.json(ok(rows.map((m) => ({ ...m, created_at: new Date(m.created_at).toISOString() }))))
    },
  )
  app.put(
    '/teams/:id/members/:accountId',
    {
      operationId: 'adminAddMember',
      summary: 'Add an account to a team',
      params: memberParams,
      body: { schema: MemberBody, required: false, examples: [{ role: 'member' }] },
      response: { description: 'The membership', schema: Membership },
      errors: [404],
    },
    async (c) => {
      const body = await readOptionalBody(c, MemberBody, { role: 'member' as const })
      const team = await getTeam(c.env.DB, c.req.param('id'))
      if (!team) throw new ApiError('NOT_FOUND', `Team "${c.req.param('id')}" not found`)
      const account = await getAccount(c.env.DB, c.req.param('accountId'))
      if (!account) throw new ApiError('NOT_FOUND', `Account "${c.req.param('accountId')}" not found`)
      await addTeamMember(c.env.DB, team.id, account.id, body.role, Date.now())
      return c.json(ok({ team_id: team.id, account_id: account.id, role: body.role }))
    },
  )
  app.delete(
    '/teams/:id/members/:accountId',
    {
      operationId: 'adminRemoveMember',
      summary: 'Remove an account from a team',
      params: memberParams,
      response: { description: 'Removed', schema: z.object({ team_id: z.string(), account_id: z.string(), removed: z.literal(true) }) },
      errors: [404],
    },
    async (c) => {
      if (!(await removeTeamMember(c.env.DB, c.req.param('id'), c.req.param('accountId')))) {
        throw new ApiError('NOT_FOUND', `Account "${c.req.param('accountId')}" is not a member of team "${c.req.param('id')}"`)
      }
      return c.json(ok({ team_id: c.req.param('id'), account_id: c.req.param('accountId'), removed: true }))
    },
  )

  // Trust vouches for an agent's current workflow: it uses callers' integrations without their grants
  // until the workflow changes, which ends the trust (a trigger in D1, whatever route changes it).
  const agentParam = { id: { description: 'Agent id' } }
  const trust = (trusted: boolean) => async (c: Context<AppEnv, '/agents/:id/trusted'>) => {
    if (!(await setTrusted(c.env.DB, c.req.param('id'), trusted))) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    return c.json(ok({ agent_id: c.req.param('id'), trusted }))
  }
  const Trust = z.object({ agent_id: z.string(), trusted: z.boolean() })
  app.put(
    '/agents/:id/trusted',
    {
      operationId: 'adminTrustAgent',
      summary: "Trust an agent's current workflow: it uses callers' integrations without their grants",
      params: agentParam,
      response: { description: 'Trusted', schema: Trust },
      errors: [404],
    },
    trust(true),
  )
  app.delete(
    '/agents/:id/trusted',
    { operationId: 'adminDistrustAgent', summary: 'End the trust of an agent', params: agentParam, response: { description: 'Not trusted', schema: Trust }, errors: [404] },
    trust(false),
  )
  return app
}
