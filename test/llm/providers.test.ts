import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { putAccountSecret } from '../../src/auth/secrets'
import { readConfig } from '../../src/config'
import type { Env } from '../../src/env'
import { getModel, isModelConfigured } from '../../src/providers/llm'
import { resolveRoute } from '../../src/providers/llm/providers'
import { FAST_MODEL_IDS, MODELS, QUALITY_MODEL_IDS } from '../../src/providers/llm/registry'
import { createContext } from '../../src/runtime/execute'
import { createLogger } from '../../src/runtime/log'
import { createAccount, mockFetch } from '../helpers'
import { createFakeLlm } from './fake-llm'
import { getAction } from '../../src/actions/registry'

/** An action context for `accountId` with extra settings. */
function contextWith(accountId: string, extra: Partial<Env> = {}) {
  const e = { ...env, ...extra } as Env
  return createContext(
    { env: e, config: readConfig(e), log: createLogger({}), actions: getAction, waitUntil: () => undefined },
    { account: { id: accountId, teamIds: [] }, requestId: 'req_test', workflowId: null, signal: new AbortController().signal },
    'run_test',
    false,
  )
}

describe('model registry', () => {
  it('offers five models per tier from two vendors with the spec defaults', () => {
    for (const ids of [FAST_MODEL_IDS, QUALITY_MODEL_IDS]) {
      expect(ids).toHaveLength(5)
      expect(new Set(ids.map((id) => MODELS[id].vendor))).toEqual(new Set(['openai', 'anthropic']))
    }
    expect(FAST_MODEL_IDS[0]).toBe('gpt-5.4-nano')
    expect(QUALITY_MODEL_IDS[0]).toBe('gpt-5.4')
  })
})

describe('provider routing', () => {
  it('prefers the account key over the server key', async () => {
    const accountId = await createAccount()
    await putAccountSecret(env.DB, env.ENCRYPTION_KEY, accountId, 'llm:openai', 'openai', 'sk-account-key')
    const route = await resolveRoute(contextWith(accountId, { OPENAI_API_KEY: 'sk-server-key' }), 'gpt-5.4')
    expect(route).toMatchObject({ provider: 'openai', apiKey: 'sk-account-key', keySource: 'account', model: 'gpt-5.4' })
  })

  it('uses the server key and base URL when the account has none', async () => {
    const accountId = await createAccount()
    const route = await resolveRoute(contextWith(accountId, { ANTHROPIC_API_KEY: 'sk-ant-server', ANTHROPIC_BASE_URL: 'https://proxy.example.com/v1' }), 'claude-opus-4-6')
    expect(route).toMatchObject({ provider: 'anthropic', apiKey: 'sk-ant-server', baseURL: 'https://proxy.example.com/v1', keySource: 'server' })
  })

  it('falls back to the OpenAI-compatible server, then the Workers AI binding', async () => {
    const accountId = await createAccount()
    const compatible = await resolveRoute(contextWith(accountId, { OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1', OPENAI_COMPATIBLE_MODEL: 'qwen3' }), 'claude-haiku-4-5')
    expect(compatible).toMatchObject({ provider: 'openai_compatible', model: 'qwen3', baseURL: 'http://localhost:11434/v1' })
    const workers = await resolveRoute(contextWith(accountId, { AI: {} as Ai }), 'gpt-5.4-mini')
    expect(workers).toMatchObject({ provider: 'workers_ai', model: '@cf/meta/llama-3.3-70b-instruct-fp8-fast' })
  })

  it('names the vendor key setting when nothing can serve a model', async () => {
    const accountId = await createAccount()
    await expect(resolveRoute(contextWith(accountId), 'claude-sonnet-4-6')).rejects.toMatchObject({ name: 'NotConfiguredError', setting: 'ANTHROPIC_API_KEY' })
  })

  it('serves a tier from the other vendor when only that vendor is configured', async () => {
    const accountId = await createAccount()
    const model = await getModel(contextWith(accountId, { ANTHROPIC_API_KEY: 'sk-ant-server' }), 'fast')
    expect(model.info).toMatchObject({ id: 'claude-haiku-4-5', provider: 'anthropic' })
    await expect(getModel(contextWith(accountId), 'quality')).rejects.toMatchObject({ setting: 'OPENAI_API_KEY' })
  })

  it('tells actions cheaply whether any model is configured', async () => {
    const accountId = await createAccount()
    expect(await isModelConfigured(contextWith(accountId))).toBe(false)
    expect(await isModelConfigured(contextWith(accountId, { OPENAI_COMPATIBLE_BASE_URL: 'http://localhost:11434/v1' }))).toBe(true)
    await putAccountSecret(env.DB, env.ENCRYPTION_KEY, accountId, 'llm:anthropic', 'anthropic', 'sk-ant-account')
    expect(await isModelConfigured(contextWith(accountId))).toBe(true)
  })
})

describe('model calls', () => {
  it('gives up on a model that does not answer within LLM_TIMEOUT_MS', async () => {
    const accountId = await createAccount()
    const llm = createFakeLlm({ delayMs: 5_000 })
    mockFetch((req) => llm.handle(req))
    const ctx = contextWith(accountId, { OPENAI_API_KEY: 'sk-test-openai', LLM_TIMEOUT_MS: '1000' })
    const model = await getModel(ctx, 'gpt-5.4-nano')
    const call = model.generateObject({ schema: z.object({ answer: z.string() }), name: 'answer', system: 'Section: overview', prompt: 'Say hi' })
    await expect(call).rejects.toMatchObject({ name: 'UpstreamError', kind: 'timeout' })
  })

  it('returns the validated object and its token usage', async () => {
    const accountId = await createAccount()
    const llm = createFakeLlm({ respond: () => ({ object: { answer: 'hello' } }) })
    mockFetch((req) => llm.handle(req))
    const model = await getModel(contextWith(accountId, { ANTHROPIC_API_KEY: 'sk-ant-test' }), 'claude-haiku-4-5')
    const result = await model.generateObject({ schema: z.object({ answer: z.string() }), name: 'answer', system: 'Be brief', prompt: 'Say hello' })
    expect(result.object).toEqual({ answer: 'hello' })
    expect(result.usage.total_tokens).toBe(result.usage.input_tokens + result.usage.output_tokens)
    expect(llm.calls[0].body.max_tokens).toEqual(expect.any(Number))
  })

  it('reports an answer that does not match the schema as an invalid upstream answer', async () => {
    const accountId = await createAccount()
    const llm = createFakeLlm({ respond: () => ({ object: { something_else: 1 } }) })
    mockFetch((req) => llm.handle(req))
    const model = await getModel(contextWith(accountId, { OPENAI_API_KEY: 'sk-test-openai' }), 'gpt-4.1')
    await expect(model.generateObject({ schema: z.object({ answer: z.string() }), name: 'answer', system: 's', prompt: 'p' })).rejects.toMatchObject({
      name: 'UpstreamError',
      kind: 'invalid',
    })
  })
})
