import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { agentText, createEmbedder, inInputOrder, vectorsOf, type Embedder } from '../src/agents/embedder'
import { normalize, offlineEncoder } from '../src/agents/encoder'
import { FEEDBACK_AGENTS, feedbackQuery, SEMANTIC_CANDIDATES } from '../src/agents/hybrid'
import { wideLists } from '../src/agents/relevance'
import { searchCatalog } from '../src/agents/search'
import { resetVectorIndex } from '../src/agents/search-state'
import { cosine, indexCosine, quantize } from '../src/agents/vector-index'
import { pendingAgents, saveVectors } from '../src/db/vectors'
import { createTeam, newCaller } from './helpers'
import { bruteForceHybrid, bruteForceRelevance, insertAgent } from './brute-force-search'
import { seededRandom } from './seeded'

const noFetch = async () => new Response('no network in tests', { status: 599 })

type ProcessEvents = { listeners(event: string): unknown[] }
const processHandlers = () => ['uncaughtException', 'unhandledRejection'].map((e) => (globalThis as unknown as { process: ProcessEvents }).process.listeners(e).length)
// Taken before this file loads the encoder: its WASM loader adds handlers that rethrow errors.
const handlersBefore = processHandlers()

describe('the offline encoder', () => {
  it('runs in the Worker from the static assets and puts paraphrases nearer than unrelated tasks', async () => {
    const embedder = createEmbedder({ ...env, SEARCH_EMBEDDER: 'offline' }, noFetch)!
    expect(embedder.id).toMatch(/^offline:/)
    const [a, b, c] = await embedder.embed(['get the transcript of a youtube video', 'download what is said in a video clip', 'pay supplier invoices at month end'])
    expect(a.length).toBe(512)
    const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0))
    expect(norm).toBeCloseTo(1, 4)
    const near = cosine(a, quantize(b))
    const far = cosine(a, quantize(c))
    expect(near).toBeGreaterThan(far + 0.1)
  })

  it('gives the vectors its id names: the WASM backend matches the CPU backend the stored vectors came from', async () => {
    const embedder = createEmbedder({ ...env, SEARCH_EMBEDDER: 'offline' }, noFetch)!
    const [v] = await embedder.embed(['get the transcript of a youtube video'])
    // Recorded with TensorFlow.js's CPU backend (scripts/lib/node-encoder.mjs before the WASM backend).
    const cpu = [0.040693, -0.064044, -0.030927, 0.064477, 0.049213, -0.017591, -0.051325, -0.002241]
    cpu.forEach((x, i) => expect(v[i]).toBeCloseTo(x, 5))
  })

  it("runs the graph as direct calls with the graph executor's vectors, text by text", async () => {
    const assets = (path: string) => env.ASSETS!.fetch(new Request(`https://assets.invalid/${path}`))
    const texts = [
      'x',
      '',
      'get the transcript of a youtube video',
      // Unknown pieces (id 0) are tokens like any other to the graph.
      'send the 📧 to 日本 ☃ résumé team',
      'We just moved offices and my manager wants me to, well, basically figure out which of our vendors we are overpaying, can you help?',
      // Past the 128 tokens the graph keeps.
      'compare supplier invoices with purchase orders '.repeat(30),
    ]
    const direct = await offlineEncoder(assets).embed(texts)
    const graph = await offlineEncoder(assets, { graph: true }).embed(texts)
    let largest = 0
    direct.forEach((v, i) => v.forEach((x, j) => (largest = Math.max(largest, Math.abs(x - graph[i][j])))))
    expect(largest).toBeLessThanOrEqual(1e-5)
    expect(direct[1].every((x) => x === 0)).toBe(true)
  })

  it("leaves the Worker's process error handlers as they were once loaded", async () => {
    await createEmbedder({ ...env, SEARCH_EMBEDDER: 'offline' }, noFetch)!.embed(['anything'])
    expect(processHandlers()).toEqual(handlersBefore)
  })
})

/**
 * A deterministic stand-in embedder for ranking tests (the real encoder is tested above): each word
 * hashed to one of 32 dimensions, so agents sharing words are near.
 */
const hashEmbedder: Embedder = {
  id: 'test:hashed-words',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(32)
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        let h = 7
        for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0
        v[h % 32] += 1
        v[(h >>> 8) % 32] -= 0.5
      }
      return normalize(v)
    })
  },
}

const rand = seededRandom(11)
const VOCAB = Array.from({ length: 80 }, (_, i) => ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'bar'][i % 10] + ['den', 'fin', 'gal', 'hum', 'lex', 'mor', 'nix', 'pol'][Math.floor(i / 10)])
const word = () => VOCAB[Math.floor(rand() ** 2 * VOCAB.length)]
const words = (n: number) => Array.from({ length: n }, word).join(' ')

describe('hybrid search pages', () => {
  let viewer: { token: string; accountId: string }
  let teamId: string
  const viewerOf = () => ({ accountId: viewer.accountId, teamIds: [teamId] })

  beforeAll(async () => {
    viewer = await newCaller('hybrid viewer')
    const other = await newCaller('hybrid other')
    teamId = await createTeam('hybrid team', [viewer.accountId])
    const insert = insertAgent()
    const rows = []
    for (let i = 0; i < 600; i++) {
      const r = rand()
      const [visibility, owner, team] =
        r < 0.1 ? ['private', viewer.accountId, null] : r < 0.2 ? ['private', other.accountId, null] : r < 0.3 ? ['team', other.accountId, teamId] : ['public', other.accountId, null]
      rows.push(insert.bind(`hyb${i}`, words(1 + Math.floor(rand() * 2)), words(3 + Math.floor(rand() * 8)), visibility, owner, team, [0, 0, 7, 300][Math.floor(rand() * 4)], ''))
    }
    for (let i = 0; i < rows.length; i += 200) await env.DB.batch(rows.slice(i, i + 200))
    // Every agent but a few gets its vector, as the queue would leave it: those few rank lexically.
    for (let n = 0; n < 100; n++) {
      const pending = (await pendingAgents(env.DB, hashEmbedder.id, 50)).filter((a) => !a.name.endsWith('x'))
      if (pending.length === 0) break
      const vectors = await hashEmbedder.embed(pending.map(agentText))
      const skip = pending.filter((_, i) => i % 37 === 0).length
      await saveVectors(
        env.DB,
        hashEmbedder.id,
        pending.slice(skip).map((agent, i) => ({ agent, vec: quantize(vectors[skip + i]) })),
      )
      if (skip > 0)
        await env.DB.prepare("UPDATE agents SET name = name || ' x' WHERE rowid IN (SELECT value FROM json_each(?))")
          .bind(JSON.stringify(pending.slice(0, skip).map((a) => a.rowid)))
          .run()
    }
    resetVectorIndex()
  })

  let semanticOnly = 0

  /** Every candidate (all lexical matches and the agents nearest the query) the caller may see, ranked by the documented formula. */
  async function bruteForce(query: string, status: string): Promise<{ id: string; score: number }[]> {
    const [q] = await hashEmbedder.embed([query])
    const terms = [...new Set(query.split(' '))]
    const rel = await bruteForceRelevance(terms.map((t) => `"${t}"`).join(' OR '))
    const { results: agents } = await env.DB.prepare(
      `SELECT a.rowid, a.id, a.visibility, a.owner_account_id AS owner, a.team_id AS team, a.executions, v.vec FROM agents a LEFT JOIN agent_vectors v ON v.agent_rowid = a.rowid AND v.vec IS NOT NULL`,
    ).all<{ rowid: number; id: string; visibility: string; owner: string; team: string | null; executions: number; vec: ArrayBuffer | null }>()
    // The documented cosine of the index's codes (vector-index.ts), not the plain int8 cosine.
    const cos = new Map(agents.filter((a) => a.vec).map((a) => [a.rowid, indexCosine(q, new Int8Array(a.vec!))]))
    const nearest = [...cos].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, SEMANTIC_CANDIDATES)
    for (const [rowid] of nearest) {
      if (rel.has(rowid)) continue
      rel.set(rowid, 0)
      semanticOnly++
    }
    const own = (a: { owner: string }) => a.owner === viewer.accountId
    const visible = (a: (typeof agents)[number]) =>
      status === 'public'
        ? a.visibility === 'public'
        : status === 'private'
          ? a.visibility === 'private' && own(a)
          : status === 'team'
            ? a.visibility === 'team' && (a.team === teamId || own(a))
            : a.visibility === 'public' || own(a) || (a.visibility === 'team' && a.team === teamId)
    return bruteForceHybrid(
      q,
      agents.filter((a) => rel.has(a.rowid) && visible(a)).map((a) => ({ ...a, rel: rel.get(a.rowid)!, vec: a.vec && new Int8Array(a.vec) })),
    )
  }

  /** Each page (limit, page) of each query, under every filter, equals the brute-force ranking. */
  async function expectPagesExact(queries: string[], pages: [number, number][]): Promise<void> {
    for (const query of queries) {
      for (const status of ['public', 'private', 'team', 'all'] as const) {
        const expected = await bruteForce(query, status)
        for (const [limit, page] of pages) {
          const hits = await searchCatalog(env.DB, { viewer: viewerOf(), query, filter: status, limit, page, embedder: hashEmbedder })
          expect(
            hits.map((h) => ({ id: h.id, score: h.score })),
            `${query} ${status} ${limit}/${page}`,
          ).toEqual(expected.slice(page * limit, (page + 1) * limit))
        }
      }
    }
  }

  it('equal ranking every candidate with the fused formula, for every filter and page', async () => {
    const queries = Array.from({ length: 12 }, () => words(1 + Math.floor(rand() * 3)))
    await expectPagesExact(queries, [
      [10, 0],
      [7, 2],
      [100, 0],
    ])
    // The pages held agents that only the semantic part brought in, and the query's vector moved.
    expect(semanticOnly).toBeGreaterThan(0)
    expect(bruteForceHybrid.moved).toBeGreaterThan(0)
  })

  it('stay exact when a query word is in half the agents or more (read only for the agents that can reach the page)', async () => {
    const common = VOCAB[0]
    const [{ n }] = (await env.DB.prepare('SELECT count(*) AS n FROM agents_fts WHERE agents_fts MATCH ?').bind(`"${common}"`).all<{ n: number }>()).results
    const [{ total }] = (await env.DB.prepare('SELECT count(*) AS total FROM agents_fts_docsize').all<{ total: number }>()).results
    // A wide word, once any word in half the agents counts as one.
    expect(2 * n).toBeGreaterThanOrEqual(total)
    const before = wideLists.min
    wideLists.min = 1
    try {
      const queries = [common, ...Array.from({ length: 8 }, () => `${common} ${words(1 + Math.floor(rand() * 2))}`)]
      await expectPagesExact(queries, [
        [10, 0],
        [7, 2],
        [1, 0],
        [20, 3],
      ])
    } finally {
      wideLists.min = before
    }
  })

  it('keep scores in [0, 1] and leave out exactly the hits below min_score', async () => {
    for (let i = 0; i < 6; i++) {
      const query = words(2)
      const all = await searchCatalog(env.DB, { viewer: viewerOf(), query, filter: 'all', limit: 100, page: 0, embedder: hashEmbedder })
      expect(all.every((h) => h.score >= 0 && h.score <= 1)).toBe(true)
      const min = all[Math.floor(all.length / 2)]?.score ?? 0.5
      const kept = await searchCatalog(env.DB, { viewer: viewerOf(), query, filter: 'all', limit: 100, page: 0, embedder: hashEmbedder, minScore: min })
      expect(kept).toEqual(all.filter((h) => h.score >= min))
    }
  })

  it('rank an agent lexically until its vector exists', async () => {
    const pending = await pendingAgents(env.DB, hashEmbedder.id, 1000)
    expect(pending.length).toBeGreaterThan(0)
    const target = pending[0]
    const query = target.name.split(' ')[0]
    const hits = await searchCatalog(env.DB, { viewer: viewerOf(), query, filter: 'all', limit: 100, page: 0, embedder: hashEmbedder })
    expect(hits.some((h) => h.rowid === target.rowid)).toBe(true)
  })
})

describe('search input as data', () => {
  it('answers any query text with scores in [0, 1], operators and quotes inert, in the hybrid path', async () => {
    const viewer = { accountId: 'acc_nobody', teamIds: [] }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc.constantFrom('"', 'a" OR "b', 'NEAR(x y)', '*', 'col:word', 'invocies^2', 'kalo" AND'),
          fc.string({ unit: fc.constantFrom('𐀀', '😀', '𝔸', 'a', 'é', ' '), maxLength: 12 }),
        ),
        async (query) => {
          const hits = await searchCatalog(env.DB, { viewer, query, filter: 'public', limit: 5, page: 0, embedder: hashEmbedder, minScore: 0 })
          for (const h of hits) expect(h.score >= 0 && h.score <= 1).toBe(true)
        },
      ),
      // Two astral characters are four UTF-16 units but no trigram: that query once reached FTS5 as an empty MATCH (a 500).
      { numRuns: 60, examples: [['𐀀𐀀'], ['😀😀 invoices'], ['𝔸𝔸𝔸']] },
    )
  })

  it("moves any query's vector toward its feedback to a finite unit vector, never away from it", () => {
    // Scaled by the largest magnitude first: the norm of subnormal coordinates is too coarse to divide by.
    const unit = (xs: number[]) => {
      const top = Math.max(0, ...xs.map(Math.abs))
      const scaled = xs.map((x) => (top > 0 ? x / top : 0))
      const n = Math.hypot(...scaled)
      return Float32Array.from(scaled, (x) => (n > 0 ? x / n : 0))
    }
    const raw = (d: number) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: d, maxLength: d })
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }).chain((d) => fc.tuple(raw(d), fc.array(raw(d), { maxLength: FEEDBACK_AGENTS }))),
        ([rawQ, rawVectors]) => {
          // Query vectors and agents' decoded vectors are unit vectors (or zero).
          const q = unit(rawQ)
          const vectors = rawVectors.map(unit)
          const moved = feedbackQuery(q, vectors)
          if (vectors.length === 0) {
            expect(moved).toBe(q)
            return
          }
          expect(moved.length).toBe(q.length)
          expect(moved.every(Number.isFinite)).toBe(true)
          const norm = Math.hypot(...moved)
          // A zero query moved by opposite vectors stays the zero query; any other becomes a unit vector.
          expect(norm === 0 ? moved === q : Math.abs(norm - 1) < 1e-5).toBe(true)
          const mean = Array.from(q, (_, d) => vectors.reduce((s, v) => s + v[d], 0) / vectors.length)
          const dot = (a: ArrayLike<number>) => Array.from(a).reduce((s, x, d) => s + x * mean[d], 0)
          if (Math.hypot(...q) > 0) expect(dot(moved)).toBeGreaterThanOrEqual(dot(q) - 1e-5)
        },
      ),
      {
        numRuns: 300,
        examples: [
          [[[1, 0], [[-1, 0]]]],
          [[[-5e-324, -5e-324], [[0, -5e-324]]]],
          [
            [
              [0, 0, 0],
              [
                [0, 1, 0],
                [0, -1, 0],
              ],
            ],
          ],
          [
            [
              [9, 7],
              [
                [0, 1],
                [1, 0],
              ],
            ],
          ],
        ],
      },
    )
  })

  it('pairs an embeddings answer with its inputs by index, and refuses indexes that are not exactly 0..n-1', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))),
        ([n, order]) => {
          const data = order.map((i) => ({ index: i, embedding: [i + 1] }))
          expect(inInputOrder(data)).toEqual([...Array(n).keys()].map((i) => [i + 1]))
          if (n > 1) {
            expect(inInputOrder(data.map((d, k) => (k === 0 ? { ...d, index: data[1].index } : d)))).toBeNull()
            expect(inInputOrder(data.map((d, k) => (k === 0 ? { embedding: d.embedding } : d)))).toBeNull()
          }
          expect(inInputOrder(data.map((d, k) => (k === 0 ? { ...d, index: n } : d)))).toBeNull()
          expect(inInputOrder(data.map((d, k) => (k === 0 ? { ...d, index: String(d.index) } : d)))).toBeNull()
        },
      ),
      { numRuns: 200 },
    )
    expect(inInputOrder([{ embedding: [1] }, { embedding: [2] }])).toEqual([[1], [2]])
    expect(inInputOrder({ data: [] })).toBeNull()
  })

  it('accepts from an embeddings endpoint only finite vectors of one length, unit length once read', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 3 }), (data, count) => {
        let vectors: Float32Array[]
        try {
          vectors = vectorsOf(data, count, 'test endpoint')
        } catch (err) {
          expect(err).toBeInstanceOf(Error)
          return
        }
        expect(vectors.length).toBe(count)
        for (const v of vectors) {
          expect(v.length).toBe(vectors[0].length)
          const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
          expect(Number.isFinite(norm)).toBe(true)
          expect(norm === 0 || Math.abs(norm - 1) < 1e-3).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
    // Any finite doubles, the ones past 32-bit range and whose squares overflow included.
    const finite = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(3.4028235677973366e38, -1.7976931348623157e308, 5e-324, 1e-40, 0))
    fc.assert(
      fc.property(fc.array(finite, { minLength: 1, maxLength: 8 }), (v) => {
        const [u] = vectorsOf([v], 1, 'test endpoint')
        const norm = Math.sqrt(u.reduce((s, x) => s + x * x, 0))
        expect(u.every(Number.isFinite)).toBe(true)
        expect(v.every((x) => x === 0) ? norm === 0 : Math.abs(norm - 1) < 1e-3).toBe(true)
      }),
      { numRuns: 500 },
    )
    expect([...vectorsOf([[3.4028235677973366e38]], 1, 'x')[0]]).toEqual([1])
    expect([...vectorsOf([[1e308, -1e308]], 1, 'x')[0]].map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.707107, -0.707107])
    expect(vectorsOf([[3, 4]], 1, 'x')[0][0]).toBeCloseTo(0.6, 5)
    expect(() => vectorsOf([[1, Number.NaN]], 1, 'x')).toThrow()
    expect(() => vectorsOf([[1, 2], [1]], 2, 'x')).toThrow()
  })
})
