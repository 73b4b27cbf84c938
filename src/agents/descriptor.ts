import type { AgentRow } from '../db/agents'
import type { ActionLookup } from '../runtime/context'
import type { Integration } from '../runtime/integrations'
import { agentIntegrations } from './access'
import type { Parameters } from './schema'

/** Average review score, two decimals; 0 with no reviews. */
export function reviewsScore(a: Pick<AgentRow, 'reviews_count' | 'reviews_sum'>): number {
  return a.reviews_count > 0 ? Math.round((a.reviews_sum / a.reviews_count) * 100) / 100 : 0
}

/**
 * What an agent may touch of a caller's account: the integrations its workflow uses ("crm", "model")
 * and whether an operator trusts it (then it needs no grant from the caller).
 */
export function agentAccess(a: Pick<AgentRow, 'workflow' | 'trusted'>, actions: ActionLookup): { integrations: Integration[]; trusted: boolean } {
  return { integrations: agentIntegrations(a.workflow, actions), trusted: a.trusted === 1 }
}

/** Parameters as the spec's descriptor shows them: `default` as text, whatever its JSON type. */
function textDefaults(properties: Parameters['properties']) {
  return Object.fromEntries(
    Object.entries(properties).map(([name, p]) => {
      const { default: value, ...rest } = p
      return [name, value === undefined ? rest : { ...rest, default: String(value) }]
    }),
  ) as Record<string, Omit<Parameters['properties'][string], 'default'> & { default?: string }>
}

/**
 * The OpenAI-style function descriptor of the spec, field for field, plus one metadata field of our
 * own after them: `access` (see agentAccess).
 */
export function agentDescriptor(a: AgentRow, score: number, actions: ActionLookup) {
  const parameters = JSON.parse(a.parameters) as Parameters
  return {
    type: 'function' as const,
    function: {
      name: `invoke_agent_${a.id}`,
      description: `Invoke agent "${a.name}": ${a.description}`,
      metadata: {
        id: a.id,
        slug: a.slug,
        icon: a.icon,
        name: a.name,
        description: a.description,
        status: a.visibility,
        type: a.type,
        executions: a.executions,
        reviews_count: a.reviews_count,
        reviews_score: reviewsScore(a),
        created_at: new Date(a.created_at).toUTCString(),
        updated_at: new Date(a.updated_at).toUTCString(),
        score,
        access: agentAccess(a, actions),
      },
      parameters: {
        type: 'object' as const,
        properties: textDefaults(parameters.properties),
        required: parameters.required,
        additionalProperties: false as const,
      },
      strict: true as const,
    },
  }
}

export type AgentDescriptor = ReturnType<typeof agentDescriptor>

/** An agent as its management API shows it (workflow only to its owner). */
export function presentAgent(a: AgentRow, viewerAccountId: string, actions: ActionLookup) {
  const own = a.owner_account_id === viewerAccountId
  return {
    id: a.id,
    slug: a.slug,
    icon: a.icon,
    name: a.name,
    description: a.description,
    visibility: a.visibility,
    team_id: own ? a.team_id : undefined,
    owner_account_id: own ? a.owner_account_id : undefined,
    type: a.type,
    executions: a.executions,
    reviews_count: a.reviews_count,
    reviews_score: reviewsScore(a),
    access: agentAccess(a, actions),
    parameters: JSON.parse(a.parameters) as Parameters,
    workflow: own ? JSON.parse(a.workflow) : undefined,
    created_at: new Date(a.created_at).toISOString(),
    updated_at: new Date(a.updated_at).toISOString(),
  }
}
