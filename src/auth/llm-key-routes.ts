import type { Context } from 'hono'
import { z } from 'zod'
import { deleteAccountSecret, describeAccountSecret, listAccountSecrets, putAccountSecret, type SecretInfo } from './secrets'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import { Router } from '../http/route-table'
import type { AppEnv } from '../http/types'
import { assertPublicUrl } from '../providers/web/address'
import { ACCOUNT_PROVIDERS, secretKind, type AccountProvider } from '../providers/llm/providers'

export const LlmKeyBody = z.strictObject({
  api_key: z
    .string()
    .trim()
    .min(8)
    .max(500)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .describe('The provider API key; stored encrypted, never returned'),
  base_url: z
    .string()
    .trim()
    .max(500)
    .optional()
    .meta({ format: 'uri', description: 'Base URL (http or https) of the API (a gateway, proxy, or the OpenAI-compatible server); required for openai_compatible' }),
  model: z.string().trim().min(1).max(200).optional().describe('openai_compatible only: model name the server serves for every public model id'),
})

const KEY_VIEW = {
  type: 'object',
  required: ['provider', 'key_hint'],
  properties: {
    provider: { type: 'string' },
    connected_at: { type: 'string' },
    updated_at: { type: 'string' },
    key_hint: { type: ['string', 'null'] },
    base_url: { type: ['string', 'null'] },
    model: { type: ['string', 'null'] },
  },
}
const providerParamDoc = { provider: { description: 'Model provider', schema: { enum: [...ACCOUNT_PROVIDERS] } } }

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
  const app = new Router('Integrations')
  app.get('/', { operationId: 'listModelKeys', summary: 'Connected model keys (never the keys)', response: { description: 'Keys', schema: { type: 'array', items: KEY_VIEW } } }, async (c) => {
    const rows = await listAccountSecrets(c.env.DB, c.get('principal').accountId, 'llm:')
    return c.json({ status: 200, response: rows.map(present) })
  })
  app.get(
    '/:provider',
    { operationId: 'getModelKey', summary: 'A connected model key', params: providerParamDoc, response: { description: 'The key (hint only)', schema: KEY_VIEW }, errors: [404] },
    async (c) => {
      const provider = providerParam(c.req.param('provider'))
      const info = await describeAccountSecret(c.env.DB, c.get('principal').accountId, secretKind(provider))
      if (!info) throw new ApiError('NOT_FOUND', `No ${provider} key is connected to this account`)
      return c.json({ status: 200, response: present(info) })
    },
  )
  const putKey = async (c: Context<AppEnv>, provider: AccountProvider) => {
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
  }
  // openai_compatible has a path of its own in the document: its body needs base_url and may name a model.
  app.put(
    '/openai_compatible',
    {
      operationId: 'putCompatibleModelKey',
      summary: 'Connect an OpenAI-compatible server (key stored encrypted)',
      body: { schema: LlmKeyBody.required({ base_url: true }), examples: [{ api_key: 'sk-local-key', base_url: 'https://llm.example.com/v1', model: 'llama-3.1-70b' }] },
      response: { description: 'The key (hint only)', schema: KEY_VIEW },
    },
    (c) => putKey(c, 'openai_compatible'),
  )
  app.put(
    '/:provider',
    {
      operationId: 'putModelKey',
      summary: 'Connect a model key (stored encrypted)',
      params: { provider: { description: 'Model provider (openai_compatible: see its own path)', schema: { enum: ACCOUNT_PROVIDERS.filter((p) => p !== 'openai_compatible') } } },
      body: { schema: LlmKeyBody.omit({ model: true }), examples: [{ api_key: 'sk-proj-...' }] },
      response: { description: 'The key (hint only)', schema: KEY_VIEW },
      errors: [404],
    },
    (c) => putKey(c, providerParam(c.req.param('provider'))),
  )
  app.delete(
    '/:provider',
    {
      operationId: 'deleteModelKey',
      summary: 'Disconnect a model key',
      params: providerParamDoc,
      response: { description: 'Removed', schema: { type: 'object', required: ['provider', 'deleted'], properties: { provider: { type: 'string' }, deleted: { const: true } } } },
      errors: [404],
    },
    async (c) => {
      const provider = providerParam(c.req.param('provider'))
      const removed = await deleteAccountSecret(c.env.DB, c.get('principal').accountId, secretKind(provider))
      if (!removed) throw new ApiError('NOT_FOUND', `No ${provider} key is connected to this account`)
      return c.json({ status: 200, response: { provider, deleted: true } })
    },
  )
  return app
}
