import { getAccountSecret } from '../auth/secrets'
import type { Env } from '../env'
import { NotConfiguredError, ProviderError } from '../providers/errors'
import { HubSpotClient } from '../providers/hubspot/client'
import { HubSpotCrm } from './hubspot'
import { DEFAULT_API_BASE } from '../providers/hubspot/transform'
import type { ActionContext } from '../runtime/context'
import { useIntegration } from '../runtime/integrations'
import { BuiltinCrm } from './builtin'
import type { CrmService } from './types'

/** Secret kind under which an account's CRM credential is sealed. */
export const CRM_SECRET_KIND = 'crm'

/** The HubSpot API base from HUBSPOT_API_BASE (default https://api.hubapi.com). */
export function hubspotBase(env: Env): string {
  const value = env.HUBSPOT_API_BASE?.trim() || DEFAULT_API_BASE
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new NotConfiguredError('HUBSPOT_API_BASE', 'HUBSPOT_API_BASE is not a valid URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new NotConfiguredError('HUBSPOT_API_BASE', 'HUBSPOT_API_BASE must be an http(s) URL')
  return url.toString().replace(/(?<!\/)\/+$/, '')
}

/** Is the built-in CRM on (CRM_BUILTIN_ENABLED, default true)? */
export function builtinEnabled(env: Env): boolean {
  return (env.CRM_BUILTIN_ENABLED ?? 'true').trim().toLowerCase() !== 'false'
}

/**
 * The CRM an account's actions use: its connected HubSpot portal, else the built-in CRM (unless
 * turned off, then "CRM not connected"). In an agent's step, only when the agent may use the CRM.
 */
export async function openCrm(ctx: Pick<ActionContext, 'db' | 'env' | 'fetch' | 'account' | 'agent' | 'secrets'>): Promise<CrmService> {
  useIntegration(ctx, 'crm')
  const deps = { db: ctx.db, env: ctx.env, fetch: ctx.fetch, accountId: ctx.account.id }
  const connection = await getAccountSecret(deps.db, deps.env.ENCRYPTION_KEY, deps.accountId, CRM_SECRET_KIND).catch((err: unknown) => {
    if (err instanceof Error && err.name === 'MissingKeyError') throw err
    // Sealed under another key (ENCRYPTION_KEY was rotated) or damaged: the account must connect again.
    throw new ProviderError('not_connected', 'CRM not connected: the stored HubSpot token can no longer be opened; reconnect HubSpot at PUT /v1/integrations/crm')
  })
  // HubSpot may echo the token it was sent; the run scrubs it from what it answers and keeps.
  if (connection) ctx.secrets.add(connection.secret)
  if (connection?.info.provider === 'hubspot') return new HubSpotCrm(new HubSpotClient(deps.fetch, hubspotBase(deps.env), connection.secret))
  if (!builtinEnabled(deps.env)) {
    throw new ProviderError('not_connected', 'CRM not connected: connect HubSpot at PUT /v1/integrations/crm (the built-in CRM is turned off on this server)')
  }
  return new BuiltinCrm(deps.db, deps.accountId)
}
