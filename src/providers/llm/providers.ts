import { getAccountSecret, listAccountSecrets } from '../../auth/secrets'
import type { ActionContext } from '../../runtime/context'
import { useIntegration } from '../../runtime/integrations'
import { NotConfiguredError } from '../errors'
import { MODELS, type ModelId, type Vendor } from './registry'

/** Where model calls can go: the two vendors, any OpenAI-compatible server, or the Workers AI binding. */
export type ProviderName = 'openai' | 'anthropic' | 'openai_compatible' | 'workers_ai'

/** Providers an account may connect its own key for. */
export const ACCOUNT_PROVIDERS = ['openai', 'anthropic', 'openai_compatible'] as const
export type AccountProvider = (typeof ACCOUNT_PROVIDERS)[number]

/** Secret kind under which an account's key for `provider` is stored. */
export const secretKind = (provider: AccountProvider) => `llm:${provider}`

/** A concrete route for one public model id: provider, credentials, and the model name sent. */
export interface ProviderRoute {
  provider: ProviderName
  /** The model name sent upstream. */
  model: string
  apiKey?: string
  baseURL?: string
  /** "account" when the account's own key is used, "server" for server settings and bindings. */
  keySource: 'account' | 'server'
}

export const DEFAULT_WORKERS_AI_MODEL = '@cf/meta/llama-3.3-70b-instruct-fp8-fast'

/** Setting that enables a vendor, named in 503 messages. */
export const VENDOR_SETTING: Record<Vendor, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' }

const VENDOR_LABEL: Record<Vendor, string> = { openai: 'OpenAI', anthropic: 'Anthropic' }

interface AccountKey {
  apiKey: string
  baseURL?: string
  model?: string
}

/** Per-context cache of opened account keys, so parallel sections open each secret once. */
const accountKeys = new WeakMap<ActionContext, Map<AccountProvider, Promise<AccountKey | null>>>()

function accountKey(ctx: ActionContext, provider: AccountProvider): Promise<AccountKey | null> {
  let byProvider = accountKeys.get(ctx)
  if (!byProvider) accountKeys.set(ctx, (byProvider = new Map()))
  let pending = byProvider.get(provider)
  if (!pending) {
    pending = getAccountSecret(ctx.db, ctx.env.ENCRYPTION_KEY, ctx.account.id, secretKind(provider)).then((found) => {
      if (!found) return null
      // An agent's step reaches the account's own key only when allowed; the server's keys need no grant.
      useIntegration(ctx, 'model')
      // A vendor may echo the key it was sent; the run scrubs it from what it answers and keeps.
      ctx.secrets.add(found.secret)
      const meta = found.info.meta
      return {
        apiKey: found.secret,
        baseURL: typeof meta.base_url === 'string' && meta.base_url ? meta.base_url : undefined,
        model: typeof meta.model === 'string' && meta.model ? meta.model : undefined,
      }
    })
    byProvider.set(provider, pending)
  }
  return pending
}

const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined)

/**
 * Picks where a public model id runs. Order: the account's key for the model's vendor, the server's
 * key for that vendor, the account's OpenAI-compatible server, the server's OpenAI-compatible
 * server, the Workers AI binding. Nothing there: NotConfiguredError naming the vendor's key setting.
 */
export async function resolveRoute(ctx: ActionContext, id: ModelId): Promise<ProviderRoute> {
  const entry = MODELS[id]
  const env = ctx.env
  const own = await accountKey(ctx, entry.vendor)
  if (own) return { provider: entry.vendor, model: entry.apiId, apiKey: own.apiKey, baseURL: own.baseURL, keySource: 'account' }
  const serverKey = nonEmpty(entry.vendor === 'openai' ? env.OPENAI_API_KEY : env.ANTHROPIC_API_KEY)
  if (serverKey) {
    const baseURL = nonEmpty(entry.vendor === 'openai' ? env.OPENAI_BASE_URL : env.ANTHROPIC_BASE_URL)
    return { provider: entry.vendor, model: entry.apiId, apiKey: serverKey, baseURL, keySource: 'server' }
  }
  const compatible = await accountKey(ctx, 'openai_compatible')
  if (compatible?.baseURL) {
    return { provider: 'openai_compatible', model: compatible.model ?? entry.apiId, apiKey: compatible.apiKey, baseURL: compatible.baseURL, keySource: 'account' }
  }
  const compatibleUrl = nonEmpty(env.OPENAI_COMPATIBLE_BASE_URL)
  if (compatibleUrl) {
    return {
      provider: 'openai_compatible',
      model: nonEmpty(env.OPENAI_COMPATIBLE_MODEL) ?? entry.apiId,
      apiKey: nonEmpty(env.OPENAI_COMPATIBLE_API_KEY),
      baseURL: compatibleUrl,
      keySource: 'server',
    }
  }
  if (env.AI) return { provider: 'workers_ai', model: nonEmpty(env.WORKERS_AI_MODEL) ?? DEFAULT_WORKERS_AI_MODEL, keySource: 'server' }
  const setting = VENDOR_SETTING[entry.vendor]
  throw new NotConfiguredError(
    setting,
    `Model "${id}" needs an ${VENDOR_LABEL[entry.vendor]} API key: set ${setting} on the server, connect one with PUT /v1/integrations/llm/${entry.vendor}, or set OPENAI_COMPATIBLE_BASE_URL`,
  )
}

/**
 * Cheap check for actions that use a model only when one is configured: true when any route exists
 * (a server key, a compatible server, the AI binding, or any key the account connected).
 */
export async function isModelConfigured(ctx: ActionContext): Promise<boolean> {
  const env = ctx.env
  if (nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.ANTHROPIC_API_KEY) || nonEmpty(env.OPENAI_COMPATIBLE_BASE_URL) || env.AI) return true
  return (await listAccountSecrets(ctx.db, ctx.account.id, 'llm:')).length > 0
}
