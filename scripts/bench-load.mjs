#!/usr/bin/env node
/**
 * `npm run bench:load [-- --hold 60 --step 5]`: drives the Worker under `wrangler dev` with a mix of
 * actions at rising concurrency until throughput stops growing (saturation), then holds that
 * concurrency for --hold seconds. The mix: search (50%), subject line (15%), built-in CRM update and
 * lookup (15%), variables (10%), queued agent runs (5%) and queued content audits of a local site
 * (5%). Every queued run is followed to its end. Errors are any answer other than the expected one
 * (429s only count as intended when a limit was meant to bite; this bench sets none), and any queued
 * run that does not succeed. Everything stays on 127.0.0.1 and every loop is bounded in time.
 */
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { buildSeed, renderSql } from './seed/build.mjs'
import { createBenchToken, freePort, startDevServer } from './lib/devserver.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const HOLD = opt('hold', 60)
const STEP = opt('step', 5)
const LEVELS = [1, 2, 4, 8, 16, 32, 64]

// A small local site for the audits.
const sitePort = await freePort()
const page = (i) =>
  `<!doctype html><html lang="en"><head><title>Page ${i} about trail shoes</title><meta name="description" content="Page ${i} of the load-test site"></head>` +
  `<body><h1>Trail shoes ${i}</h1><p>${'Grippy soles and light uppers. '.repeat(40)}</p>${[1, 2, 3].map((d) => `<a href="/p/${(i + d) % 20}">Read about page ${(i + d) % 20}</a>`).join(' ')}</body></html>`
const site = createServer((req, res) => {
  if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n')
  const m = /^\/(?:p\/(\d+))?$/.exec(req.url ?? '')
  if (!m) return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>')
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(Number(m[1] ?? 0)))
})
await new Promise((r) => site.listen(sitePort, '127.0.0.1', r))
const siteUrl = `http://127.0.0.1:${sitePort}/`

const agents = JSON.parse(readFileSync('scripts/seed/demo-agents.json', 'utf8'))
const server = await startDevServer({
  name: 'bench-load',
  sql: [renderSql(buildSeed(agents))],
  vars: { ALLOW_PRIVATE_FETCH: 'true', QUEUE_WAIT_DEFAULT_SECONDS: '0', CRAWL_PAGES_PER_MESSAGE: '50' },
})
const { token } = await createBenchToken(server, 'load')
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
const post = (name, body, extra = {}) => fetch(`${server.url}/v1/action/${name}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) })

const agent = await fetch(`${server.url}/v1/agents`, {
  method: 'POST',
  headers,
  body: JSON.stringify({
    name: 'Load probe',
    description: 'Remembers a note and finds agents about it',
    visibility: 'private',
    parameters: { type: 'object', properties: { note: { type: 'string', description: 'note' } }, required: ['note'] },
    workflow: { steps: [{ id: 'keep', action: 'store_variable', input: { name: 'note', value: '{{input.note}}' } }, { id: 'find', action: 'search', input: { query: '{{steps.keep.value}}', limit: 3 } }] },
  }),
}).then((r) => r.json())
const agentId = agent.response.id

const queries = ['youtube transcript', 'seo audit', 'crm contact', 'meeting prep', 'bluesky post', 'company research', 'weekly report', 'churn risk', 'podcast']
let n = 0
/** One request of the mix; resolves to { ok, status, queuedRunId? }. */
async function one() {
  const i = n++
  const r = i % 20
  let res
  let expected = 200
  if (r < 10) res = await post('search', { query: queries[i % queries.length], limit: 10 })
  else if (r < 13) res = await post('meeting_prep_generate_subject_line', { selected_meeting: `Acme / Globex review ${i} | Tue, Mar 26, 2024 10:00 AM` })
  else if (r < 15) res = await post('crm.v2.update_object', { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: `load${i % 200}@example.com`, properties: `firstname=Load ${i}` })
  else if (r < 16) res = await post('crm.v2.lookup_object', { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: `load${(i - 1) % 200}@example.com`, properties: 'firstname' })
  else if (r < 18) res = await post(r === 16 ? 'store_variable' : 'get_variable', r === 16 ? { name: 'counter', value: i } : { name: 'counter' }, { 'workflow-id': `load-${i % 10}` })
  else if (r < 19) {
    expected = 202
    res = await post('invoke_agent', { id: agentId, input: { note: queries[i % queries.length] } }, { prefer: 'respond-async' })
  } else {
    expected = 202
    res = await post('content_audit_generate_audit_action', { website_url: siteUrl, max_pages: 5 }, { prefer: 'respond-async' })
  }
  const body = await res.json().catch(() => null)
  // get_variable before any store in its scope is a legitimate 404.
  const ok = res.status === expected || (r === 17 && res.status === 404)
  return { ok, status: res.status, action: r, error: ok ? undefined : body?.error, queuedRunId: expected === 202 && res.status === 202 ? body?.response?.run_id : undefined }
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN)

async function drive(concurrency, seconds) {
  const latencies = []
  const errors = []
  const queued = []
  let limited = 0
  const end = Date.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now()
        try {
          const r = await one()
          latencies.push(performance.now() - t0)
          if (r.status === 429) limited++
          if (!r.ok) errors.push(`${r.action} ${r.status} ${r.error ?? ''}`.trim())
          if (r.queuedRunId) queued.push(r.queuedRunId)
        } catch (err) {
          errors.push(String(err.cause?.code ?? err.message))
        }
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, queued, limited, requests: latencies.length }
}

/** Follows queued runs to their end; a run that fails or does not end in time is an error. */
async function settle(runIds) {
  const failures = []
  const deadline = Date.now() + 180_000
  for (const id of runIds) {
    for (;;) {
      const res = await fetch(`${server.url}/v1/runs/${id}?wait=20`, { headers }).then((r) => r.json())
      const state = res.response?.state
      if (state === 'succeeded') break
      if (state === 'failed') {
        failures.push(`${id}: ${res.response.error?.message}`)
        break
      }
      if (Date.now() > deadline) {
        failures.push(`${id}: still ${state}`)
        break
      }
    }
  }
  return failures
}

console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; node ${process.version}`)
let best = { concurrency: 1, rps: 0 }
const allQueued = []
let rampErrors = 0
try {
  for (const c of LEVELS) {
    const r = await drive(c, STEP)
    allQueued.push(...r.queued)
    rampErrors += r.errors.length
    console.log(`ramp concurrency=${c} rps=${r.rps.toFixed(1)} p50_ms=${r.p50.toFixed(1)} p99_ms=${r.p99.toFixed(1)} errors=${r.errors.length}${r.errors.length ? ' ' + JSON.stringify(r.errors.slice(0, 5)) : ''}`)
    if (r.rps > best.rps * 1.1) best = { concurrency: c, rps: r.rps }
    else break
  }
  console.log(`saturation at concurrency ${best.concurrency} (${best.rps.toFixed(1)} rps); holding for ${HOLD} s`)
  const hold = await drive(best.concurrency, HOLD)
  allQueued.push(...hold.queued)
  const queuedFailures = await settle(allQueued)
  for (const f of queuedFailures.slice(0, 5)) console.log(`queued run failed: ${f}`)
  const byStatus = hold.errors.reduce((m, s) => ((m[s] = (m[s] ?? 0) + 1), m), {})
  console.log(`hold requests=${hold.requests} errors=${hold.errors.length} ${JSON.stringify(byStatus)} intended_429=${hold.limited} queued_runs=${allQueued.length} queued_failures=${queuedFailures.length}`)
  const errors = hold.errors.length + rampErrors + queuedFailures.length
  console.log(`load errors=${errors} p99_ms=${hold.p99.toFixed(1)} rps=${hold.rps.toFixed(1)}`)
} finally {
  await server.stop()
  site.close()
}
