/**
 * What fitting the search score needs, per query: each visible agent's lexical relevance r (-bm25
 * with typo fixes, as the Worker computes it) and its cosine with the query (as the Worker's vector
 * index computes it: src/agents/vector-index.ts's packed codes and lookup table over the stored int8
 * codes). r comes
 * from the real Worker run lexical-only (SEARCH_EMBEDDER=none, where part = 0.98 · r / (r + 8) is
 * invertible), 100 hits a query; cosines from the same encoder in this process. So a candidate
 * formula is scored offline over every agent, exactly as fuse() would, in milliseconds.
 * Both halves are cached under .bench/ by what they depend on (the lexical hits: the catalog, the
 * queries and the search code; the vectors: the texts and the encoder's code), so a rerun, or a grid
 * over another column weighting, only redoes what changed.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createBenchToken, pool, startDevServer } from './devserver.mjs'
import { importTs } from './import-ts.mjs'
import { importTs as loadTs } from './load-ts.mjs'
import { nodeEncoder } from './node-encoder.mjs'

const POPULARITY = 0.02
const SCORE_K = 8

const { quantize, compact, decodeUnit, lookupTable, tableCosine } = await importTs('src/agents/vector-index.ts')
/** The text the Worker embeds for an agent, from the Worker's own code. */
export const { agentText: shippedAgentText } = await loadTs('src/agents/embedder.ts')
/** The text the Worker embeds for a query (src/agents/hybrid.ts queryVector). */
export const { queryText: shippedQueryText, feedbackQuery } = await loadTs('src/agents/hybrid.ts')

const digest = (...parts) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(typeof p === 'string' ? p : JSON.stringify(p)).update('\0')
  return h.digest('hex').slice(0, 16)
}
const source = (...files) => files.map((f) => readFileSync(f, 'utf8'))

/** `make()` once per key: its JSON is kept under .bench/. */
async function memo(kind, key, make) {
  mkdirSync('.bench', { recursive: true })
  const file = join('.bench', `${kind}-${key}.json`)
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'))
  const value = await make()
  writeFileSync(file, JSON.stringify(value))
  return value
}

/**
 * The Worker's 100 best lexical hits of each query: [[id, score]]. Keyed by the agents rather than
 * `sql`, which carries load-time timestamps that ranking never reads.
 */
function lexicalHits(name, sql, agents, queries, log) {
  const key = digest(agents, queries, ...source('src/agents/ranking.ts', 'src/agents/query.ts', 'src/agents/search.ts', 'src/agents/relevance.ts', 'src/db/agents.ts'))
  return memo('lexical', key, async () => {
    const server = await startDevServer({ name, sql: [sql], vars: { SEARCH_EMBEDDER: 'none' } })
    try {
      const { token } = await createBenchToken(server, 'fit')
      let done = 0
      return await pool(
        queries.map((query) => async () => {
          const res = await fetch(`${server.url}/v1/action/search`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query, limit: 100 }),
          })
          const body = await res.json()
          if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(body)}`)
          if (++done % 1000 === 0) log(`${name}: ${done} of ${queries.length} queries searched`)
          return body.response.map((h) => [h.function.metadata.id, h.function.metadata.score])
        }),
        4,
      )
    } finally {
      await server.stop()
    }
  })
}

/** Unit vectors of `texts` from the offline encoder, as plain arrays. */
function vectors(name, what, texts, log) {
  const key = digest(texts, ...source('src/agents/encoder.ts'))
  return memo('vectors', key, async () => {
    const embed = await nodeEncoder()
    const every = texts.length > 2000 ? 1000 : 50
    const vs = await embed(texts, (done) => done % every === 0 && log(`${name}: ${done} of ${texts.length} ${what} embedded`))
    return vs.map((v) => Array.from(v))
  })
}

/**
 * An agent's text may be several: `[text, weight][]`, embedded one by one and summed with those
 * weights (then made a unit vector), so a variant can weigh a name against its description.
 */
async function agentVectors(name, texts, log) {
  const flat = texts.flatMap((t) => (Array.isArray(t) ? t.map(([x]) => x) : [t]))
  const vs = await vectors(name, 'agents', flat, log)
  let at = 0
  return texts.map((t) => {
    // One text keeps its vector exactly as the Worker stores it.
    if (!Array.isArray(t)) return Float32Array.from(vs[at++])
    const sum = new Float32Array(vs[at].length)
    for (const [, w] of t) {
      const v = vs[at++]
      for (let d = 0; d < sum.length; d++) sum[d] += w * v[d]
    }
    const norm = Math.hypot(...sum) || 1
    return sum.map((x) => x / norm)
  })
}

/**
 * `agentText` and `queryText` (default: the Worker's) map an agent and a query to the text embedded,
 * so other texts can be scored against the same lexical evidence (scripts/lib/text-variants.mjs).
 * @param {{ name: string, sql: string, agents: { id: string, name: string, description: string, param_text: string, executions?: number, visible: boolean }[], queries: string[], agentText?: (a: object) => string, queryText?: (q: string) => string }} o
 * @returns per query { r: number[], cos: number[], moved } over `agents` (r = 0: no word matches);
 *   moved(feedback, weight) gives the cosines of the query's vector moved toward the agents at those
 *   indices (src/agents/hybrid.ts feedbackQuery), kept per feedback set since a grid asks for few.
 */
export async function collect({ name, sql, agents, queries, agentText = shippedAgentText, queryText = shippedQueryText, log = () => {} }) {
  const hits = await lexicalHits(name, sql, agents, queries, log)
  log(`${name}: lexical relevance of ${queries.length} queries read`)
  const slot = new Map(agents.map((a, i) => [a.id, i]))
  const agentVecs = await agentVectors(name, agents.map(agentText), log)
  const codes = agentVecs.map((v) => compact(quantize(v)))
  const units = codes.map((c, i) => decodeUnit(c.packed, 0, agentVecs[i].length, c.scale))
  const qv = await vectors(name, 'queries', queries.map(queryText), log)
  const cosines = (q) => {
    const table = lookupTable(q)
    return codes.map((c) => tableCosine(table, c.packed, 0, c.packed.length, c.scale))
  }
  return queries.map((_, qi) => {
    const r = new Array(agents.length).fill(0)
    for (const [id, score] of hits[qi]) {
      const i = slot.get(id)
      if (i === undefined) continue
      const e = agents[i].executions ?? 0
      const part = Math.max(0, score - (POPULARITY * e) / (e + 1000))
      r[i] = (SCORE_K * part) / (1 - POPULARITY - part)
    }
    const q = Float32Array.from(qv[qi])
    const cos = cosines(q)
    const seen = new Map()
    const moved = (feedback, weight) => {
      const key = `${weight} ${feedback.join(',')}`
      if (!seen.has(key)) {
        const v = feedbackQuery(q, feedback.map((i) => units[i]).filter(Boolean), weight)
        seen.set(key, v === q ? cos : cosines(v))
      }
      return seen.get(key)
    }
    return { r, cos, moved }
  })
}
