import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { getAction } from '../src/actions/registry'
import { invokeAgentAction } from '../src/actions/invoke_agent'
import { readConfig } from '../src/config'
import type { Env } from '../src/env'
import { getModel } from '../src/providers/llm'
import { callAction, createContext, runDeadline, type Runtime } from '../src/runtime/execute'
import { createLogger } from '../src/runtime/log'
import { fakeDnsAnswer } from './fake-dns'
import { countingDb, createAccount, newCaller, request } from './helpers'

/** A runtime over `e` whose D1 statements are recorded (their SQL text) as they are prepared. */
function recordingRuntime(e: Env): { rt: Runtime; statements: string[] } {
  const statements: string[] = []
  const env2 = { ...e, DB: countingDb(e.DB, [], statements) } as Env
  return { rt: { env: env2, config: readConfig(env2), log: createLogger({ test: 'run-context' }), actions: getAction, waitUntil: () => undefined }, statements }
}

function contextWith(accountId: string, extra: Partial<Env>, persisted = true) {
  const e = { ...env, ...extra } as Env
  const config = readConfig(e)
  return createContext(
    { env: e, config, log: createLogger({ test: 'run-context' }), actions: getAction, waitUntil: () => undefined },
    { account: { id: accountId, teamIds: [] }, requestId: 'req_deadline', workflowId: null, signal: runDeadline(config, false).signal },
    `run_deadline${crypto.randomUUID().slice(0, 8)}`,
    false,
    persisted,
  )
}

/** An upstream that never answers: each call ends only when its signal aborts, with the signal's reason (as the runtime's fetch does). */
function hangingUpstream(): void {
  vi.spyOn(globalThis, 'fetch').mockImplementation((input: RequestInfo | URL, init?: RequestInit) => {
    const dns = fakeDnsAnswer(new Request(input, init))
    if (dns) return Promise.resolve(dns)
    const signal = init?.signal
    return new Promise((_, reject) => {
      if (!signal) return
      if (signal.aborted) reject(signal.reason)
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    })
  })
}

describe('the run deadline aborts ctx.signal', () => {
  it('ends an outbound call in flight at the inline run deadline with a 504 naming the setting', async () => {
    hangingUpstream()
    const ctx = contextWith(await createAccount(), { INLINE_RUN_TIMEOUT_SECONDS: '1' })
    await expect(ctx.fetch('https://slow.example.com/page', { timeoutMs: 20_000 })).rejects.toMatchObject({
      name: 'ApiError',
      code: 'UPSTREAM_TIMEOUT',
      message: expect.stringContaining('INLINE_RUN_TIMEOUT_SECONDS'),
    })
    expect(ctx.signal.aborted).toBe(true)
  })

  it('ends a model call in flight at the deadline, before the model timeout', async () => {
    hangingUpstream()
    const ctx = contextWith(await createAccount(), { INLINE_RUN_TIMEOUT_SECONDS: '1', OPENAI_API_KEY: 'sk-test-openai', LLM_TIMEOUT_MS: '30000' })
    const model = await getModel(ctx, 'gpt-4.1')
    await expect(model.generateObject({ schema: z.object({ answer: z.string() }), name: 'answer', system: 's', prompt: 'p' })).rejects.toMatchObject({
      message: expect.stringMatching(/deadline|did not answer in time/),
    })
    expect(ctx.signal.aborted).toBe(true)
  })

  it('gives a queued run its own deadline setting', async () => {
    const e = { ...env, QUEUED_RUN_TIMEOUT_SECONDS: '1' } as Env
    const config = readConfig(e)
    const ctx = createContext(
      { env: e, config, log: createLogger({}), actions: getAction, waitUntil: () => undefined },
      { account: { id: await createAccount(), teamIds: [] }, requestId: 'job_x', workflowId: null, signal: runDeadline(config, true).signal },
      'run_queueddeadline',
      true,
    )
    const reason = await new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason), { once: true }))
    expect(reason).toMatchObject({ code: 'UPSTREAM_TIMEOUT', message: expect.stringContaining('QUEUED_RUN_TIMEOUT_SECONDS') })
  })
})

/** An inline run's context for a new account, persisted (with a row) or not. */
async function progressContext(rt: Runtime, runId: string, persisted: boolean) {
  return createContext(rt, { account: { id: await createAccount(), teamIds: [] }, requestId: 'req_progress', workflowId: null, signal: new AbortController().signal }, runId, false, persisted)
}

describe('run records', () => {
  it('writes no progress for an inline run that has no row until it ends', async () => {
    const { rt, statements } = recordingRuntime(env)
    const ctx = await progressContext(rt, 'run_noprogressrow', false)
    await ctx.progress({ step: 'one' })
    expect(statements).toEqual([])
  })

  it('records progress on a run that has a row', async () => {
    const { rt, statements } = recordingRuntime(env)
    const ctx = await progressContext(rt, 'run_progressrow', true)
    await ctx.progress({ step: 'one' })
    expect(statements).toHaveLength(1)
  })
})

describe('invoke_agent', () => {
  it('reads its agent from D1 once per call', async () => {
    const owner = await newCaller('Agent owner')
    const created = await request('POST', '/v1/agents', {
      token: owner.token,
      body: {
        name: 'Remember a topic',
        description: 'Stores the topic it is given',
        parameters: { type: 'object', properties: { topic: { type: 'string', description: 'Topic' } }, required: ['topic'], additionalProperties: false },
        workflow: { steps: [{ id: 'remember', action: 'store_variable', input: { name: 'topic', value: '{{input.topic}}' } }] },
      },
    })
    expect(created.status).toBe(201)
    const { rt, statements } = recordingRuntime(env)
    const outcome = await callAction(rt, { account: { id: owner.accountId, teamIds: [] }, requestId: 'req_loads', workflowId: null, idempotencyKey: null, waitSeconds: 0 }, invokeAgentAction, {
      id: created.body.response.id,
      input: { topic: 'pricing' },
    })
    expect(outcome.kind).toBe('done')
    expect(statements.filter((sql) => /FROM agents a\b[^;]* WHERE \(a\.id = \? OR a\.slug = \?\)/.test(sql))).toHaveLength(1)
  })
})
