import { z } from 'zod'
import { getAction } from '../actions/registry'
import { deleteGrant, listGrants, putGrant, type ListedGrant } from '../db/agent-access'
import { getVisibleAgent } from '../db/agents'
import { readOptionalBody } from '../http/body'
import { ApiError } from '../http/errors'
import { Router, schemaRef } from '../http/route-table'
import { INTEGRATIONS } from '../runtime/integrations'
import { agentIntegrations, parseIntegrations } from './access'

export const GrantBody = z.strictObject({
  integrations: z
    .array(z.enum(INTEGRATIONS))
    .max(INTEGRATIONS.length * 4)
    .optional()
    .describe(`Integrations of yours the agent may use, of ${INTEGRATIONS.join(', ')}; default: those the agent declares now`),
})

function presentGrant(g: Pick<ListedGrant, 'agent_id' | 'agent_name' | 'integrations' | 'created_at' | 'updated_at'>) {
  return {
    agent_id: g.agent_id,
    agent_name: g.agent_name,
    integrations: parseIntegrations(g.integrations),
    created_at: new Date(g.created_at).toISOString(),
    updated_at: new Date(g.updated_at).toISOString(),
  }
}

const ok = (response: unknown) => ({ status: 200, response })

/** A grant decided again this often on a workflow that keeps changing under it answers 409, so an owner cannot hold the request. */
const GRANT_ATTEMPTS = 5

const agentParam = { agent: { description: 'Agent id or slug' } }

/**
 * `/v1/grants`: the agents of other accounts a caller allows to use its integrations. A grant holds
 * until it is revoked or the agent's workflow changes (which removes it).
 */
export function grantRoutes() {
  const app = new Router('Agents')

  app.get(
    '/',
    { operationId: 'listGrants', summary: 'Agents of other accounts you allowed to use your integrations', response: { description: 'Grants', schema: { type: 'array', items: schemaRef('Grant') } } },
    async (c) => {
      const rows = await listGrants(c.env.DB, c.get('principal').accountId)
      return c.json(ok(rows.map(presentGrant)))
    },
  )

  app.put(
    '/:agent',
    {
      operationId: 'grantAgent',
      summary: "Allow another account's agent to use your integrations (until revoked or its workflow changes)",
      params: agentParam,
      body: { schema: GrantBody, required: false, examples: [{ integrations: ['crm'] }] },
      response: {
        description: 'The grant, with what the agent declares',
        schema: {
          allOf: [
            schemaRef('Grant'),
            { type: 'object', required: ['declared', 'trusted'], properties: { declared: { type: 'array', items: { enum: [...INTEGRATIONS] } }, trusted: { type: 'boolean' } } },
          ],
        },
      },
      errors: [404, 409],
    },
    async (c) => {
      const p = c.get('principal')
      const body = await readOptionalBody(c, GrantBody, {})
      // A workflow changed between the read and the write refuses the write: the grant is decided again on the new one.
      for (let attempt = 1; ; attempt++) {
        const agent = await getVisibleAgent(c.env.DB, p, c.req.param('agent'))
        if (!agent) throw new ApiError('NOT_FOUND', `Agent "${c.req.param('agent').slice(0, 64)}" not found`, [{ path: '/agent', message: 'No agent with this id that you can see' }])
        if (agent.owner_account_id === p.accountId) {
          throw new ApiError('VALIDATION_FAILED', 'Your own agents use your integrations without a grant', [{ path: '/agent', message: 'An agent of your own account' }])
        }
        const declared = agentIntegrations(agent.workflow, getAction)
        const integrations = INTEGRATIONS.filter((i) => (body.integrations ?? declared).includes(i))
        const row = await putGrant(c.env.DB, p.accountId, agent.id, JSON.stringify(integrations), Date.now(), agent.workflow)
        if (row) return c.json(ok({ ...presentGrant({ ...row, agent_name: agent.name }), declared, trusted: agent.trusted === 1 }))
        if (attempt === GRANT_ATTEMPTS) throw new ApiError('CONFLICT', `The workflow of agent "${agent.id}" kept changing while the grant was made; nothing was granted: send the grant again`)
      }
    },
  )

  app.delete(
    '/:agent',
    {
      operationId: 'revokeAgentGrant',
      summary: 'Revoke a grant',
      params: agentParam,
      response: { description: 'Revoked', schema: z.object({ agent_id: z.string(), revoked: z.literal(true) }) },
      errors: [404],
    },
    async (c) => {
      const p = c.get('principal')
      const ref = c.req.param('agent')
      // A grant outlives the agent's visibility: revoking goes by id when the slug no longer resolves.
      const agentId = (await getVisibleAgent(c.env.DB, p, ref))?.id ?? ref
      if (!(await deleteGrant(c.env.DB, p.accountId, agentId))) throw new ApiError('NOT_FOUND', `You have no grant for agent "${ref.slice(0, 64)}"`)
      return c.json(ok({ agent_id: agentId, revoked: true }))
    },
  )
  return app
}
