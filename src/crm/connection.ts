import { deleteAccountSecret, describeAccountSecret, putAccountSecret, type SecretInfo } from '../auth/secrets'
import type { Env } from '../env'
import { ProviderError } from '../providers/errors'
import { HubSpotClient } from '../providers/hubspot/client'
import { verifyTokenRequest } from '../providers/hubspot/transform'
import type { GuardedFetch } from '../providers/web/fetch'
import { builtinEnabled, CRM_SECRET_KIND, hubspotBase } from './service'

export type TokenType = 'private_app' | 'oauth'

/** What GET/PUT /v1/integrations/crm show: never the token. */
export interface ConnectionView {
  provider: 'hubspot' | 'builtin'
  connected: boolean
  connected_at?: string
  updated_at?: string
  token_type?: TokenType
  /** Granted scopes when known; null when HubSpot was not asked (no faithful token-info call is used). */
  scopes?: string[] | null
  verified_at?: string | null
  warnings?: string[]
  note?: string
}

/** Private-app tokens start with "pat-"; anything else is taken for an OAuth access token. */
export function guessTokenType(token: string): TokenType {
  return token.startsWith('pat-') ? 'private_app' : 'oauth'
}

/** The view of a stored connection, or of the built-in CRM when there is none. */
export function connectionView(info: SecretInfo | null, env: Env): ConnectionView {
  if (!info) {
    return builtinEnabled(env)
      ? { provider: 'builtin', connected: false, note: 'No CRM connected: the CRM actions use the built-in CRM of this account' }
      : { provider: 'builtin', connected: false, note: 'No CRM connected and the built-in CRM is turned off: the CRM actions answer "CRM not connected"' }
  }
  const meta = info.meta as { token_type?: TokenType; scopes?: string[] | null; verified_at?: string | null; warnings?: string[] }
  const view: ConnectionView = {
    provider: 'hubspot',
    connected: true,
    connected_at: info.connected_at,
    updated_at: info.updated_at,
    token_type: meta.token_type,
    scopes: meta.scopes ?? null,
    verified_at: meta.verified_at ?? null,
  }
  if (meta.warnings?.length) view.warnings = meta.warnings
  return view
}

/**
 * Checks a token with a one-object contacts read. A rejected token fails the connection; a token
 * that may not read contacts is kept with a warning (it may still have the scopes a workflow needs).
 */
export async function verifyHubSpotToken(fetch: GuardedFetch, env: Env, token: string): Promise<string[]> {
  const client = new HubSpotClient(fetch, hubspotBase(env), token)
  try {
    await client.send(verifyTokenRequest(), { objectType: 'contacts', operation: 'read', notFound: 'HubSpot contacts endpoint not found' })
    return []
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'forbidden') return [err.message]
    if (err instanceof ProviderError && err.kind === 'not_found') {
      throw new ProviderError('invalid_input', `HubSpot API at ${hubspotBase(env)} has no contacts endpoint; check HUBSPOT_API_BASE`)
    }
    throw err
  }
}

/** Stores the HubSpot token sealed for the account. */
export async function connectHubSpot(db: D1Database, env: Env, accountId: string, token: string, tokenType: TokenType, verifiedAt: string | null, warnings: string[]): Promise<SecretInfo> {
  return putAccountSecret(db, env.ENCRYPTION_KEY, accountId, CRM_SECRET_KIND, 'hubspot', token, { token_type: tokenType, scopes: null, verified_at: verifiedAt, warnings })
}

/** The account's connection, if any. */
export async function describeConnection(db: D1Database, accountId: string): Promise<SecretInfo | null> {
  return describeAccountSecret(db, accountId, CRM_SECRET_KIND)
}

/** Forgets the account's connection; true when there was one. */
export async function disconnect(db: D1Database, accountId: string): Promise<boolean> {
  return deleteAccountSecret(db, accountId, CRM_SECRET_KIND)
}
