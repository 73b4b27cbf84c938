import { ApiError } from '../http/errors'

/**
 * What of an account an action may reach beyond its input: `crm` is the account's CRM (its HubSpot
 * connection or its built-in records); `model` is the model keys the account connected. The server's
 * own model keys are the operator's, not an account's, so using them is no integration.
 */
export const INTEGRATIONS = ['crm', 'model'] as const
export type Integration = (typeof INTEGRATIONS)[number]

const LABEL: Record<Integration, string> = { crm: 'CRM (HubSpot connection or built-in records)', model: 'model keys' }

/** Is `value` an integration name? */
export function isIntegration(value: unknown): value is Integration {
  return typeof value === 'string' && (INTEGRATIONS as readonly string[]).includes(value)
}

/** What the check needs of an agent scope (`AgentScope` in ./context). */
interface Scoped {
  agent: { id: string; name: string; allowed: readonly Integration[] } | null
}

/** The 403 for an agent that reached an integration of the caller it was not allowed. */
export function notGranted(agent: { id: string; name: string }, integration: Integration): ApiError {
  return new ApiError(
    'INTEGRATION_NOT_GRANTED',
    `Agent "${agent.name.slice(0, 120)}" (${agent.id}) belongs to another account and may not use your ${LABEL[integration]} ("${integration}") until you allow it: PUT /v1/grants/${agent.id} with {"integrations":["${integration}"]}`,
    [{ path: `/integrations/${integration}`, message: `Not granted to agent ${agent.id}` }],
  )
}

/**
 * Checks, where an integration is opened, that the running code may use it: a direct call may, an
 * agent's step only when the agent is the caller's own, trusted, or granted it. Throws the 403.
 */
export function useIntegration(ctx: Scoped, integration: Integration): void {
  if (ctx.agent && !ctx.agent.allowed.includes(integration)) throw notGranted(ctx.agent, integration)
}
