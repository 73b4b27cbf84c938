import { Hono } from 'hono'
import { deleteAgent, deleteReview, getVisibleAgent, insertAgent, listOwnAgents, putReview, slugTaken, updateAgent, type AgentPatch } from '../db/agents'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { newAgentId } from '../lib/ids'
import { presentAgent } from './descriptor'
import { CreateAgentBody, MergedAgent, parameterText, ReviewBody, UpdateAgentBody, type Parameters, type Workflow } from './schema'
import { parseOrThrow } from '../http/validate'

const ok = (response: unknown, status = 200) => ({ status, response })

function assertTeam(teamIds: string[], teamId: string | null | undefined): void {
  if (teamId && !teamIds.includes(teamId)) {
    throw new ApiError('FORBIDDEN', `You are not a member of team "${teamId.slice(0, 64)}"`, [{ path: '/team_id', message: 'Not a team you belong to' }])
  }
}

/** `/v1/agents`: owners create, read, update, delete and list their agents; anyone who can see an agent reviews it. */
export function agentRoutes() {
  const app = new Hono<AppEnv>()

  app.get('/', async (c) => {
    const p = c.get('principal')
    const limit = Math.min(100, Math.max(1, Number(c.req.query('limit') ?? 50) || 50))
    const after = Math.max(0, Number(c.req.query('cursor') ?? 0) || 0)
    const rows = await listOwnAgents(c.env.DB, p.accountId, limit, after)
    const next = rows.length === limit ? String(rows[rows.length - 1].rowid) : null
    return c.json({ status: 200, response: rows.map((a) => presentAgent(a, p.accountId)), next_cursor: next })
  })

  app.post('/', async (c) => {
    const p = c.get('principal')
    const body = await readValidBody(c, CreateAgentBody)
    assertTeam(p.teamIds, body.team_id)
    if (body.slug && (await slugTaken(c.env.DB, body.slug, null))) {
      throw new ApiError('CONFLICT', `Slug "${body.slug}" is taken`, [{ path: '/slug', message: 'Already used by another agent' }])
    }
    const now = Date.now()
    const row = {
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
    await insertAgent(c.env.DB, row)
    return c.json(ok(presentAgent({ ...row, rowid: 0, reviews_count: 0, reviews_sum: 0 }, p.accountId), 201), 201)
  })

  app.get('/:id', async (c) => {
    const p = c.get('principal')
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    return c.json(ok(presentAgent(agent, p.accountId)))
  })

  app.patch('/:id', async (c) => {
    const p = c.get('principal')
    const body = await readValidBody(c, UpdateAgentBody)
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    if (agent.owner_account_id !== p.accountId) throw new ApiError('FORBIDDEN', 'Only the owner of an agent can change it')
    const parameters = body.parameters ?? (JSON.parse(agent.parameters) as Parameters)
    const workflow = body.workflow ?? (JSON.parse(agent.workflow) as Workflow)
    const visibility = body.visibility ?? agent.visibility
    const teamId = body.team_id === undefined ? agent.team_id : body.team_id
    parseOrThrow(MergedAgent, { visibility, team_id: teamId, parameters, workflow })
    assertTeam(p.teamIds, body.team_id)
    if (body.slug && (await slugTaken(c.env.DB, body.slug, agent.id))) {
      throw new ApiError('CONFLICT', `Slug "${body.slug}" is taken`, [{ path: '/slug', message: 'Already used by another agent' }])
    }
    const patch: AgentPatch = {}
    if (body.slug !== undefined) patch.slug = body.slug
    if (body.icon !== undefined) patch.icon = body.icon
    if (body.name !== undefined) patch.name = body.name
    if (body.description !== undefined) patch.description = body.description
    if (body.visibility !== undefined) patch.visibility = body.visibility
    if (body.team_id !== undefined) patch.team_id = body.team_id
    if (body.parameters !== undefined) {
      patch.parameters = JSON.stringify(body.parameters)
      patch.param_text = parameterText(body.parameters)
    }
    if (body.workflow !== undefined) patch.workflow = JSON.stringify(body.workflow)
    await updateAgent(c.env.DB, p.accountId, agent.id, patch, Date.now())
    const updated = await getVisibleAgent(c.env.DB, p, agent.id)
    return c.json(ok(presentAgent(updated!, p.accountId)))
  })

  app.delete('/:id', async (c) => {
    const p = c.get('principal')
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    if (agent.owner_account_id !== p.accountId) throw new ApiError('FORBIDDEN', 'Only the owner of an agent can delete it')
    await deleteAgent(c.env.DB, p.accountId, agent.id)
    return c.json(ok({ id: agent.id, deleted: true }))
  })

  app.put('/:id/review', async (c) => {
    const p = c.get('principal')
    const body = await readValidBody(c, ReviewBody)
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    await putReview(c.env.DB, agent.id, p.accountId, body.rating, Date.now())
    const updated = await getVisibleAgent(c.env.DB, p, agent.id)
    return c.json(ok({ agent_id: agent.id, rating: body.rating, reviews_count: updated!.reviews_count, reviews_score: presentAgent(updated!, p.accountId).reviews_score }))
  })

  app.delete('/:id/review', async (c) => {
    const p = c.get('principal')
    const agent = await getVisibleAgent(c.env.DB, p, c.req.param('id'))
    if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('id').slice(0, 64)}" not found`)
    if (!(await deleteReview(c.env.DB, agent.id, p.accountId))) throw new ApiError('NOT_FOUND', 'You have not reviewed this agent')
    return c.json(ok({ agent_id: agent.id, deleted: true }))
  })
  return app
}
