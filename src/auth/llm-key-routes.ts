import { Hono } from 'hono'
import { z } from 'zod'
import { deleteAccountSecret, describeAccountSecret, listAccountSecrets, putAccountSecret, type SecretInfo } from './secrets'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { assertPublicUrl } from '../providers/web/address'
import { ACCOUNT_PROVIDERS, secretKind, type AccountProvider } from '../providers/llm/providers'

export const LlmKeyBody = z.strictObject({
  api_key: z.string().trim().min(8).max(500).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces').describe('The provider API key; stored encrypted, never returned'),
  base_url: z.string().trim().max(500).optional().describe('Base URL of the API (a gateway, proxy, or the OpenAI-compatible server); required for openai_compatible'),
  model: z.string().trim().min(1).max(200).optional().describe('openai_compatible only: model name the server serves for every public model id'),
})

/** A connected model key as shown back: never the key itself. */
function present(info: SecretInfo) {
  return {
    provider: info.provider,
    connected_at: info.connected_at,
    updated_at: info.updated_at,
    key_hint: info.meta.key_hint ?? null,
    base_url: info.meta.base_url ?? null,
    model: info.meta.model ?? null,
  }
}

function providerParam(value: string): AccountProvider {
  if ((ACCOUNT_PROVIDERS as readonly string[]).includes(value)) return value as AccountProvider
  throw new ApiError('NOT_FOUND', `Unknown model provider "${value.slice(0, 40)}"; use one of ${ACCOUNT_PROVIDERS.join(', ')}`)
}

function checkBaseUrl(raw: string, allowPrivate: boolean): string {
  const bad = (message: string) => new ApiError('VALIDATION_FAILED', `base_url ${message}`, [{ path: '/base_url', message }])
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw bad('is not a valid URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('must be an http or https URL')
  if (url.username || url.password) throw bad('must not carry credentials; send the key as api_key')
  try {
    assertPublicUrl(url, allowPrivate)
  } catch (err) {
    throw bad(`is not reachable from this service: ${(err as Error).message}`)
  }
  return url.toString().replace(/\/$/, '')
}

/**
 * `/v1/integrations/llm`: an account connects its own model keys (openai, anthropic, openai_compatible).
 * Keys are sealed with ENCRYPTION_KEY and win over the server's keys; reads show a hint, never the key.
 */
export function llmKeyRoutes() {
  const app = new Hono<AppEnv>()
  app.get('/', async (c) => {
    const rows = await listAccountSecrets(c.env.DB, c.get('principal').accountId, 'llm:')
    return c.json({ status: 200, response: rows.map(present) })
  })
  app.get('/:provider', async (c) => {
    const provider = providerParam(c.req.param('provider'))
    const info = await describeAccountSecret(c.env.DB, c.get('principal').accountId, secretKind(provider))
    if (!info) throw new ApiError('NOT_FOUND', `No ${provider} key is connected to this account`)
    return c.json({ status: 200, response: present(info) })
  })
  app.put('/:provider', async (c) => {
    const provider = providerParam(c.req.param('provider'))
    const body = await readValidBody(c, LlmKeyBody)
    if (provider === 'openai_compatible' && !body.base_url) {
      throw new ApiError('VALIDATION_FAILED', 'base_url is required for openai_compatible', [{ path: '/base_url', message: 'Required for openai_compatible' }])
    }
    if (provider !== 'openai_compatible' && body.model) {
      throw new ApiError('VALIDATION_FAILED', 'model is only accepted for openai_compatible', [{ path: '/model', message: 'Only for openai_compatible' }])
    }
    const meta: Record<string, unknown> = { key_hint: `…${body.api_key.slice(-4)}` }
    if (body.base_url) meta.base_url = checkBaseUrl(body.base_url, c.get('config').allowPrivateFetch)
    if (body.model) meta.model = body.model
    const info = await putAccountSecret(c.env.DB, c.env.ENCRYPTION_KEY, c.get('principal').accountId, secretKind(provider), provider, body.api_key, meta)
    return c.json({ status: 200, response: present(info) })
  })
  app.delete('/:provider', async (c) => {
    const provider = providerParam(c.req.param('provider'))
    const removed = await deleteAccountSecret(c.env.DB, c.get('principal').accountId, secretKind(provider))
    if (!removed) throw new ApiError('NOT_FOUND', `No ${provider} key is connected to this account`)
    return c.json({ status: 200, response: { provider, deleted: true } })
  })
  return app
}
