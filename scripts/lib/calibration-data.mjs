/**
 * What fitting the search score needs, per query: each visible agent's lexical relevance r (-bm25
 * with typo fixes, as the Worker computes it) and its cosine with the query (as the Worker's vector
 * index computes it, from int8 codes). r comes from the real Worker run lexical-only
 * (SEARCH_EMBEDDER=none, where part = 0.98 · r / (r + 8) is invertible), 100 hits a query; cosines
 * from the same encoder in this process. So a candidate formula is scored offline over every agent,
 * exactly as fuse() would, in milliseconds.
 */
import { createBenchToken, pool, startDevServer } from './devserver.mjs'
import { nodeEncoder } from './node-encoder.mjs'

const POPULARITY = 0.02
const SCORE_K = 8

/** int8 codes of a unit vector, as src/agents/vector-index.ts stores them. */
const quantize = (v) => Int8Array.from(v, (x) => Math.max(-127, Math.min(127, Math.round(x * 127))))
function cosine(q, codes) {
  let dot = 0
  let norm = 0
  for (let i = 0; i < q.length; i++) (dot += q[i] * codes[i]), (norm += codes[i] * codes[i])
  return norm > 0 ? dot / Math.sqrt(norm) : 0
}

/**
 * @param {{ name: string, sql: string, agents: { id: string, name: string, description: string, param_text: string, executions?: number, visible: boolean }[], queries: string[] }} o
 * @returns per query { r: number[], cos: number[] } over `agents` (r = 0: no word matches)
 */
export async function collect({ name, sql, agents, queries, log = () => {} }) {
  const server = await startDevServer({ name, sql: [sql], vars: { SEARCH_EMBEDDER: 'none' } })
  let hits
  try {
    const { token } = await createBenchToken(server, 'fit')
    hits = await pool(
      queries.map((query) => async () => {
        const res = await fetch(`${server.url}/v1/action/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query, limit: 100 }),
        })
        const body = await res.json()
        if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(body)}`)
        return body.response.map((h) => ({ id: h.function.metadata.id, score: h.function.metadata.score }))
      }),
      4,
    )
  } finally {
    await server.stop()
  }
  const slot = new Map(agents.map((a, i) => [a.id, i]))
  const embed = await nodeEncoder()
  log(`${name}: lexical relevance of ${queries.length} queries read`)
  const progress = (what, n) => (done) => done % 50 === 0 && log(`${name}: ${done} of ${n} ${what} embedded`)
  const texts = agents.map((a) => `${a.name}. ${a.description} ${a.param_text}`.slice(0, 2000))
  const codes = (await embed(texts, progress('agents', texts.length))).map(quantize)
  const qv = await embed(queries.map((q) => q.trim().replace(/\s+/g, ' ').slice(0, 1000)), progress('queries', queries.length))
  return queries.map((_, qi) => {
    const r = new Array(agents.length).fill(0)
    for (const h of hits[qi]) {
      const i = slot.get(h.id)
      if (i === undefined) continue
      const e = agents[i].executions ?? 0
      const part = Math.max(0, h.score - (POPULARITY * e) / (e + 1000))
      r[i] = (SCORE_K * part) / (1 - POPULARITY - part)
    }
    return { r, cos: codes.map((c) => cosine(qv[qi], c)) }
  })
}
