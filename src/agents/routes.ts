import { z } from 'zod'
import { getAction } from '../actions/registry'
import type { Env } from '../env'
import type { Principal } from '../http/types'
import {
  countOwnAgents,
  deleteAgent,
  deleteReview,
  getVisibleAgent,
  insertOwnAgents,
  listOwnAgents,
  ownSlugs,
  putReview,
  slugTaken,
  updateAgent,
  type AgentPatch,
  type AgentRow,
  type NewAgent,
  type Viewer,
} from '../db/agents'
import { readValidBody } from '../http/body'
import { ApiError, isApiError, type ErrorCode, type ErrorDetail } from '../http/errors'
import { cursorPage, Router, schemaRef } from '../http/route-table'
import { parseOrThrow, summarize } from '../http/validate'
import { newAgentId } from '../lib/ids'
import { createLogger, errorFields } from '../runtime/log'
import { presentAgent } from './descriptor'
import { markSecretParameters } from './secret-params'
import { CreateAgentBody, ImportAgentsBody, MAX_IMPORT, MergedAgent, ReviewBody, UpdateAgentBody, type CreateAgentInput } from './bodies'
import { parameterText, type Parameters, type Workflow } from './schema'
import { forgetAgentVector } from './vectorize'

const ok = (response: unknown, status = 200) => ({ status, response })

const AgentListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Page size, 1-100'),
  cursor: z
    .string()
    .regex(/^\d{1,20}$/, 'must be the next_cursor of the previous page')
    .optional()
    .describe('next_cursor of the previous page'),
})
const agentId = { id: { description: 'Agent id or slug' } }
const ImportResult = z.object({
  created: z.number().int(),
  existing: z.number().int(),
  agents: z.array(z.object({ id: z.string(), slug: z.string().nullable(), name: z.string(), status: z.enum(['created', 'existing']) })),
})
const AGENT_EXAMPLE = {
  name: 'Domain brief',
  description: 'Summarises what a company does from its domain.',
  visibility: 'private',
  parameters: { type: 'object', properties: { domain: { type: 'string', description: 'Company domain' } }, required: ['domain'], additionalProperties: false },
  workflow: { steps: [{ id: 'lookup', action: 'crm.v2.lookup_object', input: { object_type: 'companies', object_id: '{{input.domain}}' } }] },
}

function assertTeam(teamIds: string[], teamId: string | null | undefined): void {
  if (teamId && !teamIds.includes(teamId)) {
    throw new ApiError('FORBIDDEN', `You are not a member of team "${teamId.slice(0, 64)}"`, [{ path: '/team_id', message: 'Not a team you belong to' }])
  }
}

const slugConflict = (slug: string) => new ApiError('CONFLICT', `You already have an agent with slug "${slug}"`, [{ path: '/slug', message: 'Used by another of your agents' }])

/**
 * Every write to an agent that belongs to a team (change, delete, review) needs the caller to be a
 * member of that team now: membership is read with the token on each request, so leaving a team ends
 * it at once, whatever the body holds.
 */
function assertStillInTeam(p: Viewer, agent: AgentRow): void {
  if (agent.team_id && !p.teamIds.includes(agent.team_id)) {
    throw new ApiError('FORBIDDEN', `This agent belongs to team "${agent.team_id.slice(0, 64)}" and you are not a member of it`, [
      { path: '/team_id', message: "Only current members of the agent's team may change it" },
    ])
  }
}

/**
 * The agent a write targets: 404 when the caller may not see it; 403 when it is not the caller's
 * (changes and deletes) or belongs to a team the caller is no longer in (a review of a team-visible
 * agent too; anyone who sees a public agent may review it).
 */
async function writableAgent(db: D1Database, p: Viewer, id: string, role: 'owner' | 'reviewer'): Promise<AgentRow> {
  const agent = await getVisibleAgent(db, p, id)
  if (!agent) throw new ApiError('NOT_FOUND', `Agent "${id.slice(0, 64)}" not found`)
  if (role === 'owner' && agent.owner_account_id !== p.accountId) throw new ApiError('FORBIDDEN', 'Only the owner of an agent can change or delete it')
  if (role === 'owner' || agent.visibility === 'team') assertStillInTeam(p, agent)
  return agent
}

/** Unique per owner: two concurrent saves of one slug meet the index, and the second is a 409 too. */
async function saving<T>(clash: ApiError | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (err) {
    if (clash && err instanceof Error && /UNIQUE constraint failed: agents\.owner_account_id, agents\.slug/.test(err.message)) throw clash
    throw err
  }
}

const agentCapReached = (max: number) =>
  new ApiError('QUOTA_EXCEEDED', `This account may own at most ${max} agents (the MAX_AGENTS_PER_ACCOUNT setting): delete one (DELETE /v1/agents/:id) before creating another`)

/**
 * 429 when the account owns `adding` agents too many for MAX_AGENTS_PER_ACCOUNT. Only an early
 * answer (a full account hears so before any slug check): `insertWithin` decides atomically.
 */
async function assertAgentRoom(db: D1Database, p: Principal, max: number, adding: number): Promise<void> {
  if ((await countOwnAgents(db, p.accountId)) + adding > max) throw agentCapReached(max)
}

/** Inserts the caller's new agents unless that passes MAX_AGENTS_PER_ACCOUNT, counted in the insert itself. */
async function insertWithin(db: D1Database, rows: NewAgent[], max: number): Promise<void> {
  if (!(await insertOwnAgents(db, rows, max))) throw agentCapReached(max)
}

/**
 * A new agent's row from a valid create body, after the checks a create needs beyond its schema (team
 * membership, a slug free among the caller's agents). Single create and import both go through here.
 */
async function prepareCreate(db: D1Database, p: Principal, body: CreateAgentInput, now: number): Promise<NewAgent> {
  assertTeam(p.teamIds, body.team_id)
  if (body.slug && (await slugTaken(db, p.accountId, body.slug, null))) throw slugConflict(body.slug)
  return {
    id: newAgentId(),
    slug: body.slug ?? null,
    icon: body.icon ?? '/icons/agent.svg',
    name: body.name,
    description: body.description,
    visibility: body.visibility,
    owner_account_id: p.accountId,
    team_id: body.team_id ?? null,
    type: 'studio',
    executions: 0,
    parameters: JSON.stringify(body.parameters),
    workflow: JSON.stringify(body.workflow),
    param_text: parameterText(body.parameters),
    created_at: now,
    updated_at: now,
  }
}

/** `/v1/agents`: owners create, read, update, delete and list their agents; anyone who can see an agent reviews it. */
export function agentRoutes() {
  const app = new Router('Agents')

  app.get(
    '/',
    {
      operationId: 'listAgents',
      summary: 'List your own agents',
      query: AgentListQuery,
      response: cursorPage('Your agents', 'Agent'),
    },
    async (c) => {
      const p = c.get('principal')
      const q = parseOrThrow(AgentListQuery, c.req.query())
      const limit = q.limit
      const after = q.cursor === undefined ? 0 : Number(q.cursor)
      const rows = await listOwnAgents(c.env.DB, p.accountId, limit, after)
      const next = rows.length === limit ? String(rows[rows.length - 1].rowid) : null
      return c.json({ status: 200, response: rows.map((a) => presentAgent(a, p.accountId, getAction)), next_cursor: next })
    },
  )

  app.post(
    '/',
    {
      operationId: 'createAgent',
      summary: 'Create an agent',
      body: { schema: CreateAgentBody, examples: [AGENT_EXAMPLE] },
      response: { status: 201, description: 'The agent', schema: schemaRef('Agent') },
      errors: [403, 409],
    },
    async (c) => {
      const p = c.get('principal')
      const body = await readValidBody(c, CreateAgentBody)
      const max = c.get('config').maxAgentsPerAccount
      await assertAgentRoom(c.env.DB, p, max, 1)
      const row = await prepareCreate(c.env.DB, p, body, Date.now())
      await saving(row.slug ? slugConflict(row.slug) : null, () => insertWithin(c.env.DB, [row], max))
      await queueEmbedding(c.env)
      return c.json(ok(presentAgent({ ...row, rowid: 0, trusted: 0, reviews_count: 0, reviews_sum: 0 }, p.accountId, getAction), 201), 201)
    },
  )

  app.post(
    '/import',
    {
      operationId: 'importAgents',
      summary: 'Create many agents at once, all or nothing',
      description: `Each agent as createAgent takes it. Every problem is reported (details under /agents/<index>/...) and then nothing is written. An agent whose slug already names one of the caller's agents is left as it is (status "existing"), so a repeated import creates nothing twice. At most ${MAX_IMPORT} agents.`,
      body: { schema: ImportAgentsBody, examples: [{ agents: [{ ...AGENT_EXAMPLE, slug: 'domain-brief' }] }] },
      response: { status: 201, description: 'What was created and what existed', schema: ImportResult },
      errors: [403, 409],
    },
    async (c) => {
      const p = c.get('principal')
      const body = await readValidBody(c, ImportAgentsBody)
      const now = Date.now()
      const details: ErrorDetail[] = []
      const codes = new Set<ErrorCode>()
      const slugs = body.agents.map((a) => a.slug).filter((s): s is string => !!s)
      const own = await ownSlugs(c.env.DB, p.accountId, slugs)
      const rows: NewAgent[] = []
      const results: { id: string; slug: string | null; name: string; status: 'created' | 'existing' }[] = []
      const seen = new Set<string>()
      for (const [i, agent] of body.agents.entries()) {
        const at = `/agents/${i}`
        if (agent.slug && seen.has(agent.slug)) {
          details.push({ path: `${at}/slug`, message: `"${agent.slug}" is given to an earlier agent of this import` })
          codes.add('CONFLICT')
          continue
        }
        if (agent.slug) seen.add(agent.slug)
        const existing = agent.slug ? own.get(agent.slug) : undefined
        // A slug that is already one of the caller's agents makes the import safe to repeat: that agent stays as it is.
        if (existing) {
          results.push({ id: existing, slug: agent.slug ?? null, name: agent.name, status: 'existing' })
          continue
        }
        try {
          const row = await prepareCreate(c.env.DB, p, agent, now)
          rows.push(row)
          results.push({ id: row.id, slug: row.slug, name: row.name, status: 'created' })
        } catch (err) {
          if (!isApiError(err) || err.code === 'INTERNAL') throw err
          // The single create's errors, placed at this agent: /slug becomes /agents/3/slug.
          codes.add(err.code)
          const found = err.details?.length ? err.details : [{ path: '', message: err.message }]
          details.push(...found.map((d) => ({ path: `${at}${d.path === '/' ? '' : d.path}`, message: d.message })))
        }
      }
      if (details.length) {
        // One kind of failure keeps its status (409 for taken slugs, 403 for a foreign team); mixed ones are a 400.
        const code = codes.size === 1 ? [...codes][0] : 'VALIDATION_FAILED'
        throw new ApiError(code, `Nothing was imported: ${summarize(details).replace(/^Invalid request: /, '')}`, details)
      }
      const max = c.get('config').maxAgentsPerAccount
      await assertAgentRoom(c.env.DB, p, max, rows.length)
      const raced = new ApiError(
        'CONFLICT',
        'Nothing was imported: another request saved an agent with one of these slugs meanwhile; send the import again (agents whose slug you already use are kept as they are)',
      )
      await saving(raced, () => insertWithin(c.env.DB, rows, max))
      if (rows.length) await queueEmbedding(c.env)
      const created = results.filter((r) => r.status === 'created').length
      return c.json(ok({ created, existing: results.length - created, agents: results }, 201), 201)
    },
  )

  app.get('/:id', { operationId: 'getAgent', summary: 'Read an agent you can see', params: agentId, response: { description: 'The agent', schema: schemaRef('Agent') }, errors: [404] }, async (c) => {
    const p = c.get('principal')
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    return c.json(ok(presentAgent(agent, p.accountId, getAction)))
  })

  app.patch(
    '/:id',
    {
      operationId: 'updateAgent',
      summary: 'Change your agent',
      params: agentId,
      body: { schema: UpdateAgentBody, examples: [{ description: 'Now with more detail.' }] },
      response: { description: 'The agent', schema: schemaRef('Agent') },
      errors: [403, 404, 409],
    },
    async (c) => {
      const p = c.get('principal')
      const body = await readValidBody(c, UpdateAgentBody)
      const agent = await writableAgent(c.env.DB, p, c.req.param('id'), 'owner')
      const parameters = body.parameters ?? (JSON.parse(agent.parameters) as Parameters)
      const workflow = body.workflow ?? (JSON.parse(agent.workflow) as Workflow)
      const visibility = body.visibility ?? agent.visibility
      const teamId = body.team_id === undefined ? agent.team_id : body.team_id
      parseOrThrow(MergedAgent, { visibility, team_id: teamId, parameters, workflow })
      assertTeam(p.teamIds, body.team_id)
      if (body.slug && (await slugTaken(c.env.DB, p.accountId, body.slug, agent.id))) throw slugConflict(body.slug)
      const patch: AgentPatch = {}
      if (body.slug !== undefined) patch.slug = body.slug
      if (body.icon !== undefined) patch.icon = body.icon
      if (body.name !== undefined) patch.name = body.name
      if (body.description !== undefined) patch.description = body.description
      if (body.visibility !== undefined) patch.visibility = body.visibility
      if (body.team_id !== undefined) patch.team_id = body.team_id
      if (body.parameters !== undefined || body.workflow !== undefined) {
        const marked = markSecretParameters(parameters, workflow, getAction)
        patch.parameters = JSON.stringify(marked)
        patch.param_text = parameterText(marked)
      }
      if (body.workflow !== undefined) patch.workflow = JSON.stringify(body.workflow)
      await saving(body.slug ? slugConflict(body.slug) : null, () => updateAgent(c.env.DB, p.accountId, agent.id, patch, Date.now()))
      if (patch.name !== undefined || patch.description !== undefined || patch.param_text !== undefined) await queueEmbedding(c.env)
      const updated = await getVisibleAgent(c.env.DB, p, agent.id)
      return c.json(ok(presentAgent(updated!, p.accountId, getAction)))
    },
  )

  app.delete(
    '/:id',
    {
      operationId: 'deleteAgent',
      summary: 'Delete your agent',
      params: agentId,
      response: { description: 'Deleted', schema: z.object({ id: z.string(), deleted: z.literal(true) }) },
      errors: [403, 404],
    },
    async (c) => {
      const p = c.get('principal')
      const agent = await writableAgent(c.env.DB, p, c.req.param('id'), 'owner')
      const vz = c.env.VECTORIZE
      if (vz) {
        // A vector left behind costs a search candidate slot, never a wrong score: the delete goes on.
        await forgetAgentVector(c.env.DB, vz, agent.rowid).catch((err: unknown) =>
          createLogger({ request_id: c.get('requestId') }).warn('deleting the agent vector from Vectorize failed', { agent_rowid: agent.rowid, ...errorFields(err) }),
        )
      }
      await deleteAgent(c.env.DB, p.accountId, agent.id)
      return c.json(ok({ id: agent.id, deleted: true }))
    },
  )

  app.put(
    '/:id/review',
    {
      operationId: 'reviewAgent',
      summary: 'Rate an agent 1-5 (one review per account)',
      params: agentId,
      body: { schema: ReviewBody, examples: [{ rating: 5 }] },
      response: { description: 'Your rating and the new score', schema: z.object({ agent_id: z.string(), rating: z.number(), reviews_count: z.number(), reviews_score: z.number() }) },
      errors: [403, 404],
    },
    async (c) => {
      const p = c.get('principal')
      const body = await readValidBody(c, ReviewBody)
      const agent = await writableAgent(c.env.DB, p, c.req.param('id'), 'reviewer')
      await putReview(c.env.DB, agent.id, p.accountId, body.rating, Date.now())
      const updated = await getVisibleAgent(c.env.DB, p, agent.id)
      return c.json(ok({ agent_id: agent.id, rating: body.rating, reviews_count: updated!.reviews_count, reviews_score: presentAgent(updated!, p.accountId, getAction).reviews_score }))
    },
  )

  app.delete(
    '/:id/review',
    {
      operationId: 'unreviewAgent',
      summary: 'Remove your review',
      params: agentId,
      response: { description: 'Removed', schema: z.object({ agent_id: z.string(), deleted: z.literal(true) }) },
      errors: [403, 404],
    },
    async (c) => {
      const p = c.get('principal')
      const agent = await writableAgent(c.env.DB, p, c.req.param('id'), 'reviewer')
      if (!(await deleteReview(c.env.DB, agent.id, p.accountId))) throw new ApiError('NOT_FOUND', 'You have not reviewed this agent')
      return c.json(ok({ agent_id: agent.id, deleted: true }))
    },
  )
  return app
}

/**
 * Asks the queue to embed agents whose text is new: the write stays fast, and search ranks the agent
 * lexically until its vector lands (the cron catches a message that was lost).
 */
async function queueEmbedding(env: Env): Promise<void> {
  if (env.SEARCH_EMBEDDER?.trim() === 'none') return
  await env.JOBS.send({ embed: true })
}
