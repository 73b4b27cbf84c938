import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { embedderId, MAX_EMBEDDING_DIMENSIONS } from '../src/agents/embedder'
import { embedPending } from '../src/agents/embedding-jobs'
import type { GuardedFetch } from '../src/providers/web/fetch'
import { createLogger } from '../src/runtime/log'
import { newCaller, request } from './helpers'
import { D1_MAX_VALUE_BYTES, withD1ValueLimit } from './store-limits'

/**
 * Agent vectors are D1 values of a byte a dimension, their length an embeddings endpoint's to say
 * (a file of its own: the agents waiting for a vector are every agent of the file's database).
 */

const MODEL = 'sized'
const settings = { SEARCH_EMBEDDER: 'openai', SEARCH_EMBEDDING_BASE_URL: 'https://embeddings.test/v1', SEARCH_EMBEDDING_MODEL: MODEL }
const log = createLogger({ test: 'store-limits-vectors' })

/** An OpenAI-compatible endpoint answering every text with a vector of `dims` dimensions, as compact JSON as numbers allow. */
function endpointOf(dims: number): GuardedFetch {
  return (async (_url: string, init?: { body?: string }) => {
    const { input } = JSON.parse(init?.body ?? '{}') as { input: string[] }
    const vector = `[1${',0'.repeat(dims - 1)}]`
    return new Response(`{"data":[${input.map((_, index) => `{"index":${index},"embedding":${vector}}`).join(',')}]}`, { headers: { 'content-type': 'application/json' } })
  }) as unknown as GuardedFetch
}

async function savedDims(): Promise<number[]> {
  const { results } = await env.DB.prepare('SELECT length(vec) AS n FROM agent_vectors WHERE embedder = ? AND vec IS NOT NULL').bind(embedderId('openai', MODEL)).all<{ n: number }>()
  return results.map((r) => r.n)
}

describe('agent vectors hold at most MAX_EMBEDDING_DIMENSIONS dimensions', () => {
  // Failed before: the 2,100,000-dimension vector (4.2 MB of JSON, within the guarded client's 5 MiB)
  // went to D1 as a value past its 2,000,000 bytes: the save failed with D1's "too big", and each
  // run sent the same agents to the endpoint again.
  it('refuses an answer of more dimensions, naming the endpoint, and stores nothing; an answer within the bound is stored', async () => {
    const { token } = await newCaller('vector owner')
    const agent = { name: 'Vector sized', description: 'An agent to embed', workflow: { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] } }
    expect((await request('POST', '/v1/agents', { token, body: agent })).status).toBe(201)
    const db = withD1ValueLimit(env.DB)
    expect(2_100_000).toBeGreaterThan(D1_MAX_VALUE_BYTES)
    await expect(embedPending({ ...env, ...settings, DB: db }, endpointOf(2_100_000), log, 1)).rejects.toThrow(
      `embeddings endpoint returned vectors of 2100000 dimensions, more than the ${MAX_EMBEDDING_DIMENSIONS} agent search stores`,
    )
    expect(await savedDims()).toEqual([])
    expect((await embedPending({ ...env, ...settings, DB: db }, endpointOf(MAX_EMBEDDING_DIMENSIONS), log, 1)).embedded).toBe(1)
    expect(await savedDims()).toEqual([MAX_EMBEDDING_DIMENSIONS])
  }, 60_000)

  it('stores a vector exactly when it has at most MAX_EMBEDDING_DIMENSIONS dimensions (20 runs)', async () => {
    const { token } = await newCaller('vector sizes')
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.integer({ min: MAX_EMBEDDING_DIMENSIONS - 3, max: MAX_EMBEDDING_DIMENSIONS + 3 }), fc.integer({ min: 8193, max: 200_000 })),
        async (dims) => {
          // One agent waits at a time: the one this run changes.
          const agent = { name: `Vector ${++n}`, description: 'An agent to embed', workflow: { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] } }
          expect((await request('POST', '/v1/agents', { token, body: agent })).status).toBe(201)
          const before = (await savedDims()).length
          const run = embedPending({ ...env, ...settings, DB: withD1ValueLimit(env.DB) }, endpointOf(dims), log, 1)
          if (dims <= MAX_EMBEDDING_DIMENSIONS) {
            expect((await run).embedded).toBe(1)
            expect(await savedDims()).toContain(dims)
          } else {
            await expect(run).rejects.toThrow(`returned vectors of ${dims} dimensions`)
            expect(await savedDims()).toHaveLength(before)
            await env.DB.prepare('DELETE FROM agents WHERE name = ?').bind(agent.name).run()
          }
        },
      ),
      { numRuns: 20, seed: 20261201 },
    )
  }, 120_000)
})
