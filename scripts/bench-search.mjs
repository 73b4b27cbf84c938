#!/usr/bin/env node
/**
 * `npm run bench:search [-- --agents 100000 --concurrency 16 --seconds 15]`: fills a local D1 with
 * generated agents, starts the Worker under wrangler dev, and measures POST /v1/action/search against
 * the authenticated trivial route GET /v1/me at the same concurrency in the same run.
 * `--agents 1000000` works too, but local D1 loads about 8,000 agents a minute on a 2-core machine (the
 * word and trigram indexes are built row by row), so that load takes about two hours. `--reuse` measures
 * the catalog an earlier run of the same size left in .bench/ instead of loading it again. Search is first measured on the
 * fresh isolate, then after `--warmup` seconds (20 by default) of distinct queries.
 */
import { cpus, totalmem } from 'node:os'
import { renderSql } from './seed/build.mjs'
import { createBenchToken, runCronUntilIdle, startDevServer } from './lib/devserver.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const AGENTS = opt('agents', 100_000)
const CONCURRENCY = opt('concurrency', 16)
const SECONDS = opt('seconds', 15)
const REUSE = args.includes('--reuse')
const WARMUP = opt('warmup', 20)

// Deterministic generator (mulberry32) so every run searches the same catalog.
let seed = 42
const rand = () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const VOCAB = `account analytics audit blog brief calendar campaign candidate churn competitor content contract crm customer dashboard
deal digest domain email enrichment event expense finance forecast funding growth hiring invoice keyword lead linkedin meeting
metrics newsletter note onboarding outreach pipeline podcast pricing product prospect quarterly recap recruiting renewal report
research revenue review roadmap sales schedule screening security seo sentiment social sprint summary support survey ticket
timeline transcript trend video webinar website weekly writer youtube bluesky backlink citation answer engine crawl inventory
schema markup headline caption thread hashtag launch press release investor board memo budget payroll tax receipt vendor
procurement compliance policy incident postmortem changelog release deploy repository issue pull request code review test
coverage latency uptime monitor alert oncall runbook translation localization glossary persona interview feedback nps`.split(/\s+/)
// Word frequencies follow Zipf's law (p ~ 1/rank) as in real text. Ranks below 100 are function
// words, which search drops as stop words, so names and descriptions draw from ranks 100 and up:
// the commonest content word then appears in a few percent of agents, as in a real catalog.
const SYLLABLES = 'ka lo mi ne ru sa ti vo ze bar cor den fin gal hum lex mor nix pol quin rex sol tor vex'.split(' ')
const synthetic = Array.from({ length: 6000 }, (_, i) => SYLLABLES[i % 24] + SYLLABLES[Math.floor(i / 24) % 24] + (i >= 576 ? SYLLABLES[Math.floor(i / 576) % 24] : ''))
const WORDS = [...VOCAB, ...synthetic]
const FIRST_RANK = 100
const harmonic = WORDS.reduce((sum, _, i) => sum + 1 / (FIRST_RANK + i), 0)
const cumulative = []
WORDS.reduce((acc, _, i) => (cumulative[i] = acc + 1 / (FIRST_RANK + i) / harmonic), 0)
const word = () => {
  const u = rand()
  let lo = 0
  let hi = WORDS.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cumulative[mid] < u) lo = mid + 1
    else hi = mid
  }
  return WORDS[lo]
}
const phrase = (n) => Array.from({ length: n }, word).join(' ')
const title = (s) => s.replace(/\b\w/g, (c) => c.toUpperCase())

function agentSql(from, to, now) {
  const params = { type: 'object', properties: { topic: { type: 'string', description: 'Topic to work on' } }, required: ['topic'], additionalProperties: false }
  const workflow = JSON.stringify({ steps: [{ id: 'find', action: 'search', input: { query: '{{input.topic}}' } }] })
  const rows = []
  for (let i = from; i < to; i++) {
    const vis = i % 50 === 0 ? 'private' : 'public'
    rows.push({
      sql: `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
            VALUES (?, NULL, '/icons/agent.svg', ?, ?, ?, 'acc_benchowner', 'studio', ?, ?, ?, ?, ?, ?)`,
      params: [`bench${i}`, title(phrase(3)), `${title(phrase(12))}. ${phrase(10)}.`, vis, Math.floor(1000 * rand() ** 4), JSON.stringify(params), workflow, 'topic Topic to work on', now, now],
    })
  }
  return renderSql(rows)
}

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
        if (res.status !== 200) into.errors++
      }
    }),
  )
}

function report(label, r) {
  r.latencies.sort((a, b) => a - b)
  const rps = r.latencies.length / SECONDS
  console.log(`${label} requests=${r.latencies.length} errors=${r.errors} rps=${rps.toFixed(1)} p50_ms=${percentile(r.latencies, 50).toFixed(2)} p99_ms=${percentile(r.latencies, 99).toFixed(2)}`)
  return rps
}

const now = Date.now()
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`)
console.log(REUSE ? `reusing the catalog of ${AGENTS} agents from an earlier run` : `loading ${AGENTS} generated agents ...`)
const t0 = Date.now()
const sql = [renderSql([{ sql: 'INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)', params: ['acc_benchowner', 'bench owner', now] }])]
// The generator runs either way, so the queries below are the same with or without --reuse.
for (let i = 0; i < AGENTS; i += 20_000) sql.push(agentSql(i, Math.min(AGENTS, i + 20_000), now))
const server = await startDevServer({ name: `bench-search-${AGENTS}`, sql: REUSE ? [] : sql, fresh: !REUSE })
console.log(`loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s; concurrency ${CONCURRENCY}, ${SECONDS} s per route in 5 alternating windows`)
try {
  // What the cron does within 15 minutes of a catalog change: merge the text indexes.
  const upkeep = await runCronUntilIdle(server)
  console.log(`cron: ${upkeep.runs} runs in ${upkeep.seconds.toFixed(1)} s (text index upkeep)`)
  const { token } = await createBenchToken(server, 'bench')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const queries = Array.from({ length: 500 }, () => phrase(1 + Math.floor(rand() * 4)))
  let q = 0
  // Warm up both paths once.
  await fetch(`${server.url}/v1/me`, { headers }).then((r) => r.arrayBuffer())
  await fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'sales report' }) }).then((r) => r.arrayBuffer())
  let u = 0
  const routes = [
    { label: 'trivial', make: () => fetch(`${server.url}/v1/me`, { headers }) },
    // Every query new (a number no other query has): nothing can come from the page cache.
    {
      label: 'search (all queries distinct)',
      make: () => fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: `${phrase(1 + (u % 4))} ${u++}`, limit: 10 }) }),
    },
    // A pool of 500 queries asked again and again, as callers repeat searches: the page cache serves repeats.
    {
      label: 'search (500-query pool)',
      make: () => fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: queries[q++ % queries.length], limit: 10 }) }),
    },
  ].map((r) => ({ ...r, latencies: [], errors: 0 }))
  // A fresh isolate knows no phrase yet: measure that first, then let it warm up the way a serving
  // isolate does (more distinct queries, none of which are asked again below).
  const fresh = { latencies: [], errors: 0 }
  await measureWindow(fresh, WARMUP / 2, routes[1].make)
  const freshRps = fresh.latencies.length / (WARMUP / 2)
  await measureWindow({ latencies: [], errors: 0 }, WARMUP / 2, routes[1].make)
  console.log(`fresh isolate, first ${WARMUP / 2} s of distinct queries: rps=${freshRps.toFixed(1)}`)
  // The routes take turns in short windows, so load from anything else on the machine falls on all alike.
  const ROUNDS = 5
  for (let round = 0; round < ROUNDS; round++) for (const r of routes) await measureWindow(r, SECONDS / ROUNDS, r.make)
  const [trivial, cold, search] = routes.map((r) => ({ rps: report(r.label, r) }))
  console.log(`cold search/trivial rps ratio=${(cold.rps / trivial.rps).toFixed(3)}`)
  console.log(`search/trivial rps ratio=${(search.rps / trivial.rps).toFixed(3)}`)
} finally {
  await server.stop()
}
