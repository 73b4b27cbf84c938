#!/usr/bin/env node
/**
 * `npm run bench:vector-recall [-- --agents 20000 --queries 100]`: how well the vector index's code
 * widths find the 100 agents nearest a query, against the exact cosine of the int8 codes D1 stores,
 * and how fast and how large each is. Agents are the benchmark catalog's (scripts/lib/bench-catalog.mjs),
 * queries are MetaTool request texts embedded by the offline encoder; the index is the Worker's own
 * code (src/agents/vector-index.ts).
 */
import { generator, metatoolQueries, textCodes, title, wordVectors } from './lib/bench-catalog.mjs'
import { importTs } from './lib/import-ts.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback)
const AGENTS = opt('agents', 20_000)
const QUERIES = opt('queries', 100)
const K = 100

const { VectorIndex, cosine } = await importTs('src/agents/vector-index.ts')
const { rand, phrase } = generator(42)
const texts = Array.from({ length: AGENTS }, () => `${title(phrase(3))} ${title(phrase(12))}. ${phrase(10)}.`)
const { vectors, embed } = await wordVectors(texts)
const codes = texts.map((t) => textCodes(t, vectors))
const queryTexts = metatoolQueries()
  .sort(() => rand() - 0.5)
  .slice(0, QUERIES)
const queries = []
for (let i = 0; i < queryTexts.length; i += 25) queries.push(...(await embed(queryTexts.slice(i, i + 25))))

const exact = queries.map((q) => {
  const scored = codes.map((c, i) => ({ rowid: i + 1, cos: cosine(q, c) }))
  return new Set(scored.sort((a, b) => b.cos - a.cos || a.rowid - b.rowid).slice(0, K).map((s) => s.rowid))
})
console.log(`${AGENTS} agents, ${queries.length} MetaTool queries, recall of the ${K} nearest by the int8 cosine`)
for (const bits of [1, 2, 4, 8]) {
  const index = new VectorIndex('bench', bits)
  index.apply(codes.map((vec, i) => ({ rowid: i + 1, embedder: 'bench', vec, seq: i + 1 })))
  let found = 0
  let maxError = 0
  const t0 = performance.now()
  const results = queries.map((q) => index.nearest(q, K))
  const ms = (performance.now() - t0) / queries.length
  results.forEach((near, j) => {
    for (const n of near) {
      if (exact[j].has(n.rowid)) found++
      maxError = Math.max(maxError, Math.abs(n.cos - cosine(queries[j], codes[n.rowid - 1])))
    }
  })
  const perAgent = index.bytes / AGENTS
  console.log(
    `bits=${bits} recall@${K}=${(found / (K * queries.length)).toFixed(3)} max_cos_error=${maxError.toFixed(3)} nearest_ms=${ms.toFixed(2)} bytes_per_agent=${perAgent.toFixed(1)} at_100000=${((perAgent * 100_000) / 2 ** 20).toFixed(1)}MiB`,
  )
}
