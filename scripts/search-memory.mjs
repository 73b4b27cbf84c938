#!/usr/bin/env node
/**
 * `npm run bench:search-memory [-- --agents 100000,1000000]`: the per-isolate search state a catalog of
 * that many agents makes an isolate hold at most, built in Node by the Worker's own modules
 * (src/agents/search-state.ts and the modules that fill it, bundled by esbuild) from generated rows
 * instead of D1: the vector index applies one 512-d vector change per agent, the public ranking state
 * loads every public agent (49 in 50, as in bench:search) through its chunked loader, lists are added
 * up over the whole rowid range (the scratch arrays), and the shared cache is filled with relevance
 * lists until its budget pushes the oldest out. Printed: the state's own accounting per piece
 * (GET /v1/admin/search-memory reports the same), and the JavaScript heap and array buffers the
 * process retains for it (measured with garbage collection before and after; run with
 * --expose-gc, as the npm script does).
 */
import { importTs } from './lib/import-ts.mjs'

const args = process.argv.slice(2)
const sizes = (args.includes('--agents') ? args[args.indexOf('--agents') + 1] : '100000,1000000').split(',').map(Number)
const gc = globalThis.gc ?? (() => {})
const retained = () => {
  gc()
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}
const MiB = (b) => (b / 2 ** 20).toFixed(1)

for (const agents of sizes) {
  const { state, index, relevance, publicRank, db } = await importTs({
    state: 'src/agents/search-state.ts',
    index: 'src/agents/vector-index.ts',
    relevance: 'src/agents/relevance.ts',
    publicRank: 'src/agents/public-rank.ts',
    db: 'src/db/agents.ts',
  })
  const before = retained()
  // The vector index, through the change feed the Worker reads (1 KB of codes a change, in pages).
  const vectorIndex = await state.vectorIndex(fakeVectorDb(agents), 'bench', 0)
  // The public ranking state, loaded chunk by chunk as from D1.
  await publicRank.publicRanker(fakeDb(), fakePublicRead(agents), { index: 'e:1', version: 1 })
  // Lists spanning the rowid range make the scratch arrays their full size.
  // As the list query carries them: agents grouped by relevance ("rel:rowid rowid ...;...").
  const list = (from) =>
    db.parseList(
      Array.from({ length: 7 }, (_, v) => `${v + 0.5}:${Array.from({ length: 1000 }, (_, i) => i).filter((i) => i % 7 === v).map((i) => from + i * Math.floor(agents / 1000)).join(' ')}`).join(';'),
    )
  relevance.sumLists([
    { expr: 'a', list: list(1) },
    { expr: 'b', list: list(2) },
  ])
  // The shared cache, filled with relevance lists of a few thousand agents each until it is full.
  state.sawCatalog('e:1:1')
  for (let i = 0; i < 4000; i++) state.cached.setList('e:1', `"w${i}"`, list(1 + (i % 50)))
  const memory = state.searchMemory()
  const measured = retained() - before
  console.log(
    `agents=${agents} vectors_held=${vectorIndex.count} accounted_total=${MiB(memory.total)}MiB measured_retained=${MiB(measured)}MiB ` +
      Object.entries(memory)
        .filter(([k]) => !['total', 'cache_budget', 'vector_bits', 'max_vectors', 'vectors_held'].includes(k))
        .map(([k, v]) => `${k}=${MiB(v)}MiB`)
        .join(' '),
  )
}

/** A D1 stand-in whose statements carry their bindings. */
function fakeDb() {
  return { prepare: (sql) => ({ sql, bind: (...binds) => ({ sql, binds }) }) }
}

function fakePublicRead(agents) {
  return async (statements) =>
    statements.map(({ binds: [after] }) => {
      const parts = []
      for (let r = after + 1; r <= agents && parts.length < 2 * 50_000; r++) if (r % 50 !== 1) parts.push(r, r % 1000)
      return { results: [{ idx: 'e:1', version: 1, agents: parts.join(' ') || null }] }
    })
}

/** Vector changes as D1 returns them (`SELECT agent_rowid, embedder, vec, seq ... WHERE seq > ?`). */
function fakeVectorDb(agents) {
  // 64 distinct vectors in turn: the bytes held do not depend on the values.
  let seed = 7
  const byte = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed >> 8) % 255) - 127
  const pool = Array.from({ length: 64 }, () => Int8Array.from({ length: 512 }, byte))
  return {
    prepare: () => ({
      bind: (afterSeq, limit) => ({
        all: async () => {
          const results = []
          for (let s = afterSeq + 1; s <= Math.min(agents, afterSeq + limit); s++) results.push({ agent_rowid: s, embedder: 'bench', vec: pool[s % 64].slice().buffer, seq: s })
          return { results }
        },
      }),
    }),
  }
}
