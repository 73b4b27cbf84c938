#!/usr/bin/env node
/**
 * `npm run bench:search [-- --agents 100000 --concurrency 16 --seconds 15]`: fills a local D1 with
 * generated agents, starts the Worker under wrangler dev, and measures POST /v1/action/search against
 * the authenticated trivial route GET /v1/me at the same concurrency in the same run.
 * `--agents 1000000` works too, but local D1 loads about 8,000 agents a minute on a 2-core machine (the
 * word index and the search vocabulary are built row by row), so that load takes about two hours. `--reuse` measures
 * the catalog an earlier run of the same size left in .bench/ instead of loading it again. Search is first measured on the
 * fresh isolate, then after `--warmup` seconds (20 by default) of distinct queries.
 *
 * Queries are real request text: MetaTool's labelled queries (they never repeat), in a fixed order.
 * Writes are mixed in at the rate callers make them: for every 100 searches, one agent update (new
 * description, which moves the index version and clears that agent's vector) and ten invocations
 * (which move popularity); `--updates N` sends N agent updates a 100 instead (0: agent text never
 * changes while measured, to see what a text change costs the searches after it). Agents get
 * vectors as the cron would leave them, but made here: each is the normalized sum of the offline
 * encoder's vectors of its words (embedding 100,000 texts with the encoder takes hours on 2 cores;
 * throughput and memory depend on the dimension, not on the values).
 * `--embedder none` measures the lexical-only path. The Worker prints its per-isolate search memory
 * (GET /v1/admin/search-memory), reported at the end, after each route's CPU time a request by thread
 * (Linux's /proc: the workerd thread that runs the Worker and local D1 bounds both routes).
 */
import { cpus, totalmem } from 'node:os'
import { renderSql } from './seed/build.mjs'
import { generator, metatoolQueries, textCodes, title, wordVectors, writeMix } from './lib/bench-catalog.mjs'
import { createBenchToken, runCronUntilIdle, startDevServer } from './lib/devserver.mjs'
import { importTs } from './lib/load-ts.mjs'
import { addCpu, threadCpu } from './lib/thread-cpu.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const AGENTS = opt('agents', 100_000)
const CONCURRENCY = opt('concurrency', 16)
const SECONDS = opt('seconds', 15)
const REUSE = args.includes('--reuse')
// With --reuse: load the agents' vectors into a catalog that has none yet (one loaded with --embedder none).
const LOAD_VECTORS = args.includes('--load-vectors')
const WARMUP = opt('warmup', 20)
const EMBEDDER = args.includes('--embedder') ? args[args.indexOf('--embedder') + 1] : 'offline'
// Agent text updates per 100 requests of the search routes (what moves the index version).
const UPDATES = opt('updates', 1)

const { rand, phrase } = generator(42)

function agentSql(from, to, now) {
  const params = { type: 'object', properties: { topic: { type: 'string', description: 'Topic to work on' } }, required: ['topic'], additionalProperties: false }
  const workflow = JSON.stringify({ steps: [{ id: 'find', action: 'search', input: { query: '{{input.topic}}' } }] })
  const rows = []
  for (let i = from; i < to; i++) {
    const vis = i % 50 === 0 ? 'private' : 'public'
    const name = title(phrase(3))
    const description = `${title(phrase(12))}. ${phrase(10)}.`
    texts[i] = `${name} ${description}`
    rows.push({
      sql: `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
            VALUES (?, NULL, '/icons/agent.svg', ?, ?, ?, 'acc_benchowner', 'studio', ?, ?, ?, ?, ?, ?)`,
      params: [`bench${i}`, name, description, vis, Math.floor(1000 * rand() ** 4), JSON.stringify(params), workflow, 'topic Topic to work on', now, now],
    })
  }
  return renderSql(rows)
}

const texts = []

/**
 * Vector rows for agents from..to, as int8 codes, 64 rows a statement (a 512-d row is about 1 KB of
 * SQL, and D1 refuses statements over 100 KB); replacing any vector the cron of an earlier run made.
 */
function vectorSql(from, to, vectors) {
  const statements = []
  for (let start = from; start < to; start += 64) {
    const rows = []
    for (let i = start; i < Math.min(to, start + 64); i++) rows.push(`(${i + 1}, '${EMBEDDER_ID}', X'${Buffer.from(textCodes(texts[i], vectors).buffer).toString('hex')}', ${i + 1})`)
    statements.push(`INSERT OR REPLACE INTO agent_vectors (agent_rowid, embedder, vec, seq) VALUES\n${rows.join(',\n')};\n`)
  }
  return statements.join('')
}
/** The Worker's own id of the offline encoder: vectors under any other id its cron would make again. */
const EMBEDDER_ID = (await importTs('src/agents/embedder.ts')).embedderId('offline', 'use-lite-512-u8')

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN
}

/** Runs `makeRequest` at the fixed concurrency for `seconds`, adding latencies and errors to `into`. */
async function measureWindow(into, seconds, makeRequest) {
  const end = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now()
        const res = await makeRequest()
        await res.arrayBuffer()
        into.latencies.push(performance.now() - t0)
        if (res.status !== 200) {
          into.errors++
          into.statuses = { ...into.statuses, [res.status]: (into.statuses?.[res.status] ?? 0) + 1 }
        }
      }
    }),
  )
}

function report(label, r) {
  r.latencies.sort((a, b) => a - b)
  const rps = r.latencies.length / SECONDS
  const statuses = r.statuses ? ` (${Object.entries(r.statuses).map(([status, n]) => `${n} x ${status}`).join(', ')})` : ''
  console.log(`${label} requests=${r.latencies.length} errors=${r.errors}${statuses} rps=${rps.toFixed(1)} p50_ms=${percentile(r.latencies, 50).toFixed(2)} p99_ms=${percentile(r.latencies, 99).toFixed(2)}`)
  return rps
}

/**
 * CPU milliseconds a request of each route, per thread, for the threads that spent the most (Linux
 * only): a route's throughput is bound by its busiest thread.
 */
function reportCpu(routes) {
  const total = new Map()
  for (const r of routes) for (const [thread, ms] of r.cpu) total.set(thread, (total.get(thread) ?? 0) + ms)
  const threads = [...total].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([thread]) => thread)
  if (threads.length === 0) return
  console.log('CPU ms a request by thread (/proc; the dev server and this script):')
  for (const r of routes) console.log(`  ${r.label}: ${threads.map((t) => `${t} ${((r.cpu.get(t) ?? 0) / r.latencies.length).toFixed(2)}`).join(', ')}`)
}

const now = Date.now()
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`)
console.log(REUSE ? `reusing the catalog of ${AGENTS} agents from an earlier run` : `loading ${AGENTS} generated agents ...`)
const t0 = Date.now()
const sql = [renderSql([{ sql: 'INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)', params: ['acc_benchowner', 'bench owner', now] }])]
// The generator runs either way, so the queries below are the same with or without --reuse.
for (let i = 0; i < AGENTS; i += 20_000) sql.push(agentSql(i, Math.min(AGENTS, i + 20_000), now))
const vectorStatements = []
if (EMBEDDER !== 'none' && (!REUSE || LOAD_VECTORS)) {
  const { vectors } = await wordVectors(texts)
  console.log(`embedded the catalog's ${vectors.size} distinct words`)
  for (let i = 0; i < AGENTS; i += 2000) vectorStatements.push(vectorSql(i, Math.min(AGENTS, i + 2000), vectors))
}
const server = await startDevServer({ name: `bench-search-${AGENTS}`, sql: REUSE ? vectorStatements : [...sql, ...vectorStatements], fresh: !REUSE, vars: { SEARCH_EMBEDDER: EMBEDDER } })
console.log(`loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s; concurrency ${CONCURRENCY}, ${SECONDS} s per route in 5 alternating windows`)
try {
  // What the cron does within 15 minutes of a catalog change: merge the text indexes.
  const upkeep = await runCronUntilIdle(server)
  console.log(`cron: ${upkeep.runs} runs in ${upkeep.seconds.toFixed(1)} s (text index upkeep)`)
  const { token } = await createBenchToken(server, 'bench')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const admin = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' }
  const owner = await fetch(`${server.url}/v1/admin/accounts/acc_benchowner/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'owner' }) }).then((r) => r.json())
  const ownerHeaders = { authorization: `Bearer ${owner.response.token}`, 'content-type': 'application/json' }
  await fetch(`${server.url}/v1/admin/accounts/acc_benchowner`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limit_per_minute: 1_000_000_000, rate_limit_per_day: 1_000_000_000 }) }).then((r) => r.arrayBuffer())
  const distinct = metatoolQueries().sort(() => rand() - 0.5)
  const queries = distinct.slice(0, 500)
  let q = 0
  // Warm up both paths once.
  await fetch(`${server.url}/v1/me`, { headers }).then((r) => r.arrayBuffer())
  await fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'sales report' }) }).then((r) => r.arrayBuffer())
  let u = 500
  /** A search, and in every 100 requests UPDATES agent updates and ten invocations (errors counted like searches'). */
  const withWrites = writeMix({ url: server.url, headers, ownerHeaders, agents: AGENTS, rand, phrase, updates: UPDATES })
  const routes = [
    { label: 'trivial', make: () => fetch(`${server.url}/v1/me`, { headers }) },
    // Every query new (real request text, never asked before): nothing can come from the page cache.
    {
      label: 'search (all queries distinct, writes mixed in)',
      make: withWrites(() => fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: distinct[u++ % distinct.length], limit: 10 }) })),
    },
    // A pool of 500 queries asked again and again, as callers repeat searches: the page cache serves repeats.
    {
      label: 'search (500-query pool, writes mixed in)',
      make: withWrites(() => fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: queries[q++ % queries.length], limit: 10 }) })),
    },
  ].map((r) => ({ ...r, latencies: [], errors: 0, cpu: new Map() }))
  // A fresh isolate knows no phrase yet: measure that first, then let it warm up the way a serving
  // isolate does (more distinct queries, none of which are asked again below).
  const fresh = { latencies: [], errors: 0 }
  await measureWindow(fresh, WARMUP / 2, routes[1].make)
  const freshRps = fresh.latencies.length / (WARMUP / 2)
  await measureWindow({ latencies: [], errors: 0 }, WARMUP / 2, routes[1].make)
  console.log(`fresh isolate, first ${WARMUP / 2} s of distinct queries: rps=${freshRps.toFixed(1)}`)
  // The routes take turns in short windows, so load from anything else on the machine falls on all alike.
  const ROUNDS = 5
  // Each thread's CPU time in the windows: this script's and the dev server's, its child (they share the machine).
  const cpuRoots = [process.pid]
  for (let round = 0; round < ROUNDS; round++)
    for (const r of routes) {
      const before = threadCpu(cpuRoots)
      await measureWindow(r, SECONDS / ROUNDS, r.make)
      addCpu(r.cpu, before, threadCpu(cpuRoots))
    }
  const [trivial, cold, search] = routes.map((r) => ({ rps: report(r.label, r) }))
  reportCpu(routes)
  const memory = await fetch(`${server.url}/v1/admin/search-memory`, { headers: admin }).then((r) => r.json())
  console.log(`per-isolate search memory at ${AGENTS} agents: ${JSON.stringify(memory.response)}`)
  console.log(`cold search/trivial rps ratio=${(cold.rps / trivial.rps).toFixed(3)}`)
  console.log(`search/trivial rps ratio=${(search.rps / trivial.rps).toFixed(3)}`)
} finally {
  await server.stop()
}
