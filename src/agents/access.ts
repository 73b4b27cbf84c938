import { listAccountSecrets } from '../auth/secrets'
import { agentForScope, getGrant, runAgent } from '../db/agent-access'
import type { AgentRow, VisibilityFilter } from '../db/agents'
import type { ActionContext, ActionLookup, AgentScope } from '../runtime/context'
import { INTEGRATIONS, notGranted, type Integration } from '../runtime/integrations'
import type { Workflow } from './schema'

/**
 * The integrations an agent declares: those of the actions its steps call, in `INTEGRATIONS` order.
 * Derived from the saved workflow, so it changes exactly when the workflow does (which also ends the
 * agent's trust and the grants made to it).
 */
export function agentIntegrations(workflow: string | Workflow, actions: ActionLookup): Integration[] {
  const steps = (typeof workflow === 'string' ? (JSON.parse(workflow) as Workflow) : workflow).steps
  const used = new Set(steps.flatMap((s) => actions(s.action)?.integrations ?? []))
  return INTEGRATIONS.filter((i) => used.has(i))
}

/** Integration names stored in a grant, keeping only known ones. */
export function parseIntegrations(text: string): Integration[] {
  const parsed = JSON.parse(text) as unknown
  return Array.isArray(parsed) ? INTEGRATIONS.filter((i) => parsed.includes(i)) : []
}

/** An agent whose scope is asked; `grant_integrations` when the caller's grant was read with it (getRunnableAgent). */
type ScopedAgent = Pick<AgentRow, 'id' | 'name' | 'owner_account_id' | 'trusted'> & { grant_integrations?: string | null }

/**
 * The scope an agent's steps run in for the account of `ctx`: all integrations for the account's own
 * agent or a trusted one, else those the account granted it. Inside another agent's step (nesting),
 * never more than that agent had, and foreign when either is.
 */
export async function agentScope(ctx: Pick<ActionContext, 'db' | 'account' | 'agent' | 'runId'>, agent: ScopedAgent): Promise<AgentScope> {
  const own = agent.owner_account_id === ctx.account.id
  let allowed: readonly Integration[] = INTEGRATIONS
  if (!own && agent.trusted !== 1) {
    const granted = agent.grant_integrations !== undefined ? agent.grant_integrations : ((await getGrant(ctx.db, ctx.account.id, agent.id))?.integrations ?? null)
    allowed = granted === null ? [] : parseIntegrations(granted)
  }
  const outer = ctx.agent
  if (outer) allowed = allowed.filter((i) => outer.allowed.includes(i))
  return { id: agent.id, name: agent.name, foreign: !own || Boolean(outer?.foreign), allowed, workflowId: `agent/${ctx.runId}` }
}

/** Does the account have this integration in use, so that an agent's step would reach it? */
async function inUse(ctx: Pick<ActionContext, 'db' | 'account'>, integration: Integration): Promise<boolean> {
  // The CRM is always the account's: its HubSpot connection or its built-in records.
  if (integration === 'crm') return true
  // Without keys of its own, model calls run on the operator's server keys, which are no account's.
  return (await listAccountSecrets(ctx.db, ctx.account.id, 'llm:')).length > 0
}

/**
 * Refuses, before any step runs, an agent that declares an integration the account has in use and
 * did not allow it: the 403 names the agent, the integration and the grant route.
 */
export async function assertMayRun(ctx: Pick<ActionContext, 'db' | 'account' | 'actions'>, agent: Pick<AgentRow, 'workflow'>, scope: AgentScope): Promise<void> {
  for (const integration of agentIntegrations(agent.workflow, ctx.actions)) {
    if (!scope.allowed.includes(integration) && (await inUse(ctx, integration))) throw notGranted(scope, integration)
  }
}

/**
 * The scope of a queued run that an agent's step started, read when the Queue consumer runs it, so
 * a grant revoked or a workflow changed meanwhile holds; null for a run started directly. An agent
 * deleted meanwhile keeps its run in a scope with nothing allowed.
 */
export async function queuedRunScope(ctx: Pick<ActionContext, 'db' | 'account' | 'runId'>): Promise<AgentScope | null> {
  const agentId = await runAgent(ctx.db, ctx.runId)
  if (!agentId) return null
  const agent = await agentForScope(ctx.db, agentId)
  if (!agent) return { id: agentId, name: agentId, foreign: true, allowed: [], workflowId: `agent/${ctx.runId}` }
  return agentScope({ ...ctx, agent: null }, agent)
}

/**
 * The visibility filter a catalog read may use: a step of another account's agent sees public agents
 * only (the caller's private and team agents are the caller's data); null when nothing is left.
 */
export function catalogFilter(ctx: Pick<ActionContext, 'agent'>, filter: VisibilityFilter): VisibilityFilter | null {
  if (!ctx.agent?.foreign) return filter
  return filter === 'public' || filter === 'all' ? 'public' : null
}
