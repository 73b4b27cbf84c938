import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { agentText, embedderId } from '../src/agents/embedder'
import { embedPending } from '../src/agents/embedding-jobs'
import { indexCosine, quantize } from '../src/agents/vector-index'
import { searchCatalog } from '../src/agents/search'
import type { Embedder } from '../src/agents/embedder'
import { bestMatches, forgetAgentVector, remoteVectors, REMOTE_LEXICAL_CANDIDATES, upsertAgentVectors, vectorizeNamespace, vectorizeNearest, VECTORIZE_MAX_TOP_K } from '../src/agents/vectorize'
import { pendingAgents } from '../src/db/vectors'
import { createLogger } from '../src/runtime/log'
import { FakeVectorize } from './fake-vectorize'
import worker from '../src/index'
import { hashed, hashedEmbeddings, HASHED_DIMS } from './hashed-embeddings'
import { BASE, newCaller, type Json } from './helpers'
import { bruteForceHybrid, bruteForceRelevance } from './brute-force-search'

const MODEL = 'hashed-words'
const EMBEDDER_ID = embedderId('openai', MODEL)
const settings = { SEARCH_EMBEDDER: 'openai', SEARCH_EMBEDDING_BASE_URL: 'https://embeddings.test/v1', SEARCH_EMBEDDING_MODEL: MODEL }
const log = createLogger({ test: 'vectorize' })
const WORDS = ['invoice', 'ledger', 'video', 'transcript', 'lead', 'crm', 'ticket', 'support', 'seo', 'audit', 'post', 'social']

let owner = ''

async function insertAgents(n: number, prefix: string): Promise<void> {
  owner ||= (await newCaller('vectorize owner')).accountId
  const insert = env.DB.prepare(
    `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
     VALUES (?, NULL, '/icons/agent.svg', ?, ?, 'public', ?, NULL, 'studio', 0, '{"type":"object","properties":{},"required":[]}', '{"steps":[]}', '', 0, 0)`,
  )
  const rows = Array.from({ length: n }, (_, i) =>
    insert.bind(`${prefix}${i}`, `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`, `${WORDS[(i * 3) % WORDS.length]} agent number ${i}`, owner),
  )
  for (let i = 0; i < rows.length; i += 100) await env.DB.batch(rows.slice(i, i + 100))
}

describe('agent vectors in Vectorize', () => {
  const vz = new FakeVectorize(HASHED_DIMS)

  beforeAll(async () => {
    await insertAgents(60, 'vz')
  })

  it('upserts every embedded agent under its rowid, in its embedder namespace, before D1 keeps the vector', async () => {
    for (;;) {
      const run = await embedPending({ ...env, ...settings, VECTORIZE: vz }, hashedEmbeddings, log, 4)
      if (!run.more) break
    }
    expect(await pendingAgents(env.DB, EMBEDDER_ID, 10)).toEqual([])
    const space = vz.spaces.get(vectorizeNamespace(EMBEDDER_ID))!
    const { results } = await env.DB.prepare('SELECT rowid, name, description, param_text FROM agents').all<{ rowid: number; name: string; description: string; param_text: string }>()
    expect(space.size).toBe(results.length)
    for (const a of results) expect(space.get(String(a.rowid))!.values).toEqual(Array.from(hashed(agentText(a))))
  })

  it('leaves agents pending when Vectorize refuses the write, so the next run writes them', async () => {
    await insertAgents(3, 'vz-late')
    vz.failWith = new Error('Vectorize unavailable')
    await expect(embedPending({ ...env, ...settings, VECTORIZE: vz }, hashedEmbeddings, log, 1)).rejects.toThrow('Vectorize unavailable')
    expect((await pendingAgents(env.DB, EMBEDDER_ID, 10)).length).toBe(3)
    vz.failWith = null
    await embedPending({ ...env, ...settings, VECTORIZE: vz }, hashedEmbeddings, log, 1)
    expect(await pendingAgents(env.DB, EMBEDDER_ID, 10)).toEqual([])
  })

  it('writes at most 1,000 vectors per call', async () => {
    const big = new FakeVectorize(HASHED_DIMS)
    await upsertAgentVectors(
      big,
      EMBEDDER_ID,
      Array.from({ length: 2500 }, (_, i) => ({ rowid: i + 1, vec: hashed(`agent ${i}`) })),
    )
    expect(big.calls.map((c) => c.size)).toEqual([1000, 1000, 500])
  })

  it('scores the nearest agents from D1 codes, and names the ones D1 no longer has as stale', async () => {
    const { results } = await env.DB.prepare("SELECT rowid, name, description, param_text FROM agents WHERE name LIKE 'video%' ORDER BY rowid LIMIT 2").all<{
      rowid: number
      name: string
      description: string
      param_text: string
    }>()
    const gone = results[0].rowid
    // The deleted agent's own text: Vectorize still holds its vector, nearest of all.
    const q = hashed(agentText(results[0]))
    await env.DB.prepare('DELETE FROM agents WHERE rowid = ?').bind(gone).run()
    const remote = await remoteVectors(vz, env.DB, EMBEDDER_ID, q, { rowids: [results[1].rowid], rels: Float64Array.of(3) }, 10)
    expect(remote.stale).toContain(gone)
    const nearest = remote.nearest(q, 10)
    expect(nearest.map((n) => n.rowid)).not.toContain(gone)
    const { results: codes } = await env.DB.prepare('SELECT agent_rowid, vec FROM agent_vectors WHERE vec IS NOT NULL').all<{ agent_rowid: number; vec: ArrayBuffer }>()
    const byRow = new Map(codes.map((c) => [c.agent_rowid, new Int8Array(c.vec)]))
    for (const n of nearest) expect(n.cos).toBe(indexCosine(q, byRow.get(n.rowid)!))
    for (let i = 1; i < nearest.length; i++) expect(nearest[i - 1].cos).toBeGreaterThanOrEqual(nearest[i].cos)
    expect(remote.cosineOf(q, results[1].rowid)).toBe(
      indexCosine(
        q,
        quantize(
          hashed(
            agentText(
              (await env.DB.prepare('SELECT name, description, param_text FROM agents WHERE rowid = ?').bind(results[1].rowid).first<{ name: string; description: string; param_text: string }>())!,
            ),
          ),
        ),
      ),
    )
  })

  it('asks for at most 100 nearest agents, however many a caller wants', async () => {
    const ids = await vectorizeNearest(vz, EMBEDDER_ID, hashed('invoice ledger'), 10_000)
    expect(ids.length).toBeLessThanOrEqual(VECTORIZE_MAX_TOP_K)
    expect(vz.calls.at(-1)).toEqual({ op: 'query', size: 0 })
  })
})

describe('deleting an agent with Vectorize bound', () => {
  const vz = new FakeVectorize(HASHED_DIMS)
  const vzEnv = { ...env, ...settings, VECTORIZE: vz }
  let caller: { accountId: string; token: string }

  async function embedAll(): Promise<void> {
    while ((await embedPending(vzEnv, hashedEmbeddings, log, 4)).more);
  }

  async function createAgent(name: string): Promise<{ id: string; rowid: number }> {
    const res = await worker.fetch(
      new Request(`${BASE}/v1/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, description: `${name} for the ledger`, workflow: { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] } }),
      }),
      vzEnv,
      createExecutionContext(),
    )
    expect(res.status).toBe(201)
    const id = ((await res.json()) as Json).response.id as string
    const row = await env.DB.prepare('SELECT rowid FROM agents WHERE id = ?').bind(id).first<{ rowid: number }>()
    return { id, rowid: row!.rowid }
  }

  async function remove(id: string): Promise<number> {
    const ctx = createExecutionContext()
    const res = await worker.fetch(new Request(`${BASE}/v1/agents/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${caller.token}` } }), vzEnv, ctx)
    await waitOnExecutionContext(ctx)
    return res.status
  }

  const held = (rowid: number) => vz.spaces.get(vectorizeNamespace(EMBEDDER_ID))?.has(String(rowid)) ?? false

  beforeAll(async () => {
    caller = await newCaller('vectorize deleter')
  })

  it("takes the agent's vector out of Vectorize", async () => {
    const agent = await createAgent('Invoice ledger sorter')
    await embedAll()
    expect(held(agent.rowid)).toBe(true)
    expect(await remove(agent.id)).toBe(200)
    expect(held(agent.rowid)).toBe(false)
    expect(await env.DB.prepare('SELECT 1 FROM agents WHERE id = ?').bind(agent.id).first()).toBeNull()
  })

  it('deletes the agent when Vectorize fails, leaving a vector that never scores', async () => {
    const agent = await createAgent('Ticket ledger triage')
    await embedAll()
    vz.failWith = new Error('Vectorize unavailable')
    try {
      expect(await remove(agent.id)).toBe(200)
    } finally {
      vz.failWith = null
    }
    expect(held(agent.rowid)).toBe(true)
    expect(await env.DB.prepare('SELECT 1 FROM agents WHERE id = ?').bind(agent.id).first()).toBeNull()
    const codes = await remoteVectors(vz, env.DB, EMBEDDER_ID, hashed('ticket ledger triage'), { rowids: [], rels: new Float64Array(0) }, 10)
    expect(codes.stale).toContain(agent.rowid)
  })

  it('leaves an agent whose D1 delete did not happen waiting for its vector, so it is written again', async () => {
    const agent = await createAgent('Lead ledger scorer')
    await embedAll()
    // The first half of a delete whose D1 statement then failed.
    await forgetAgentVector(env.DB, vz, agent.rowid)
    expect(held(agent.rowid)).toBe(false)
    expect((await pendingAgents(env.DB, EMBEDDER_ID, 100)).map((a) => a.rowid)).toContain(agent.rowid)
    await embedAll()
    expect(held(agent.rowid)).toBe(true)
  })
})

describe('what Vectorize answers is data', () => {
  it('keeps only agent rowids from any answer, without throwing, at most topK of them', () => {
    const id = fc.oneof(fc.string(), fc.integer().map(String), fc.constantFrom('0', '-1', '1e3', '01', ' 7', '9007199254740993', '__proto__', '12'))
    const match = fc.record({ id: fc.oneof(id, fc.constant(undefined as unknown as string), fc.integer() as unknown as fc.Arbitrary<string>), score: fc.oneof(fc.double(), fc.constant(Number.NaN)) })
    return fc.assert(
      fc.asyncProperty(fc.array(match, { maxLength: 150 }), fc.integer({ min: -5, max: 500 }), async (matches, k) => {
        const vz = { query: async () => ({ matches, count: matches.length }) } as unknown as Vectorize
        const ids = await vectorizeNearest(vz, EMBEDDER_ID, hashed('x'), k)
        expect(ids.length).toBeLessThanOrEqual(Math.max(1, Math.min(VECTORIZE_MAX_TOP_K, k)))
        expect(new Set(ids).size).toBe(ids.length)
        for (const n of ids) expect(Number.isSafeInteger(n) && n > 0).toBe(true)
      }),
    )
  })

  it('keeps a malformed answer (no matches array) from throwing', async () => {
    for (const answer of [null, {}, { matches: 'no' }, { matches: [null, 1, 'x'] }]) {
      const vz = { query: async () => answer } as unknown as Vectorize
      expect(await vectorizeNearest(vz, EMBEDDER_ID, hashed('x'), 5)).toEqual([])
    }
  })

  it('names every embedder with a namespace of at most 64 bytes, its own id when that fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (id) => {
        const ns = vectorizeNamespace(id)
        expect(new TextEncoder().encode(ns).length).toBeLessThanOrEqual(64)
        if (new TextEncoder().encode(id).length <= 64) expect(ns).toBe(id)
        expect(vectorizeNamespace(id)).toBe(ns)
      }),
    )
    expect(vectorizeNamespace('x'.repeat(100))).not.toBe(vectorizeNamespace('x'.repeat(99) + 'y'))
  })

  it('picks the best lexical matches as a sort would', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 800 }), fc.integer({ min: 0, max: 900 }), (rowids, n) => {
        const rels = rowids.map((r) => (r * 7919) % 13)
        const expected = rowids
          .map((r, i) => ({ r, rel: rels[i] }))
          .sort((a, b) => b.rel - a.rel || a.r - b.r)
          .slice(0, n)
          .map((x) => x.r)
        const got = bestMatches({ rowids, rels: Float64Array.from(rels) }, n)
        expect(new Set(got)).toEqual(new Set(expected))
      }),
    )
    expect(REMOTE_LEXICAL_CANDIDATES).toBeGreaterThan(0)
  })
})

describe('hybrid search served by Vectorize', () => {
  const vz = new FakeVectorize(HASHED_DIMS)
  const embedder: Embedder = { id: EMBEDDER_ID, embed: async (texts) => texts.map(hashed) }
  let viewer = ''

  beforeAll(async () => {
    viewer = (await newCaller('vectorize viewer')).accountId
    await insertAgents(40, 'vzs')
    for (;;) {
      const run = await embedPending({ ...env, ...settings, VECTORIZE: vz }, hashedEmbeddings, log, 8)
      if (!run.more) break
    }
  })

  /** Every candidate (the lexical matches and Vectorize's nearest with a D1 vector) ranked by the documented formula. */
  async function bruteForce(query: string): Promise<{ id: string; score: number }[]> {
    const q = hashed(query)
    const terms = [...new Set(query.split(' '))]
    const rel = await bruteForceRelevance(terms.map((t) => `"${t}"`).join(' OR '))
    const nearest = (await vz.query(Array.from(q), { topK: 100, namespace: vectorizeNamespace(EMBEDDER_ID) })).matches.map((m) => Number(m.id))
    const { results: agents } = await env.DB.prepare(
      "SELECT a.rowid, a.id, a.executions, v.vec FROM agents a LEFT JOIN agent_vectors v ON v.agent_rowid = a.rowid AND v.vec IS NOT NULL AND v.embedder = ? WHERE a.visibility = 'public'",
    )
      .bind(EMBEDDER_ID)
      .all<{ rowid: number; id: string; executions: number; vec: ArrayBuffer | null }>()
    for (const a of agents) if (a.vec && nearest.includes(a.rowid) && !rel.has(a.rowid)) rel.set(a.rowid, 0)
    return bruteForceHybrid(
      q,
      agents.filter((a) => rel.has(a.rowid)).map((a) => ({ ...a, rel: rel.get(a.rowid)!, vec: a.vec && new Int8Array(a.vec) })),
    )
  }

  it('equals ranking every candidate with the fused formula, Vectorize choosing the nearest', async () => {
    for (const query of ['video transcript', 'invoice', 'crm lead support', 'seo audit social post']) {
      const expected = await bruteForce(query)
      for (const [limit, page] of [
        [10, 0],
        [5, 1],
        [100, 0],
      ]) {
        const hits = await searchCatalog(env.DB, { viewer: { accountId: viewer, teamIds: [] }, query, filter: 'public', limit, page, embedder, vectorize: vz })
        expect(
          hits.map((h) => ({ id: h.id, score: h.score })),
          `${query} ${limit}/${page}`,
        ).toEqual(expected.slice(page * limit, (page + 1) * limit))
      }
    }
  })

  it('answers lexically and reports the failure when Vectorize is unreachable', async () => {
    const errors: unknown[] = []
    vz.failWith = new Error('Vectorize unreachable')
    try {
      const hits = await searchCatalog(env.DB, {
        viewer: { accountId: viewer, teamIds: [] },
        query: 'invoice ledger',
        filter: 'public',
        limit: 10,
        page: 0,
        embedder,
        vectorize: vz,
        onEmbedError: (e) => errors.push(e),
      })
      const lexical = await searchCatalog(env.DB, { viewer: { accountId: viewer, teamIds: [] }, query: 'invoice ledger', filter: 'public', limit: 10, page: 0 })
      expect(hits.map((h) => h.id)).toEqual(lexical.map((h) => h.id))
      expect(errors.map(String)).toEqual(['Error: Vectorize unreachable'])
    } finally {
      vz.failWith = null
    }
  })
})
