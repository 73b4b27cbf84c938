#!/usr/bin/env node
// Benchmark: are meeting sections generated in parallel? Starts a local fake of the OpenAI API that
// answers each section after a fixed delay, runs the Worker with `wrangler dev` pointed at it, and
// times one call per section alone and one call with all seven sections. No network is used: the
// fake, the Worker and its local D1/KV all listen on 127.0.0.1.
// Prints per-section times, the serial sum, the parallel total, and last `total/slowest ratio=<r>`.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { createFakeLlm } = await import(join(root, 'test/llm/fake-llm.ts'))

/** Fixed answer delay per section (ms): different, so the slowest one is clear. */
const DELAYS = { overview: 500, attendees: 900, company: 600, situation: 800, segues: 700, questions: 600, next_step: 500 }
const SECTIONS = Object.keys(DELAYS)
const REPEATS = 3
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef'
const ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64')

async function freePort() {
  const srv = createServer()
  await new Promise((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address()
  await new Promise((r) => srv.close(r))
  return port
}

/** Serves the fake model API from a Node http server. */
async function startFake(port) {
  const fake = createFakeLlm({
    bases: { openai: `http://127.0.0.1:${port}/v1` },
    keys: { openai: 'sk-bench' },
    delayMs: (call) => DELAYS[call.section] ?? 0,
  })
  const server = createServer(async (req, res) => {
    const chunks = []
    for await (const c of req) chunks.push(c)
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v)
    const request = new Request(`http://127.0.0.1:${port}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
    const answer = (await fake.handle(request)) ?? new Response('not found', { status: 404 })
    res.writeHead(answer.status, Object.fromEntries(answer.headers))
    res.end(Buffer.from(await answer.arrayBuffer()))
  })
  await new Promise((r) => server.listen(port, '127.0.0.1', r))
  return { server, fake }
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...opts })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${out}`))))
  })
}

async function waitFor(url, ms, log) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`${url} did not come up within ${ms} ms\n${log()}`)
}

async function api(base, method, path, token, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json.response
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const wrangler = join(root, 'node_modules/.bin/wrangler')
const persist = mkdtempSync(join(tmpdir(), 'bench-meeting-'))
const fakePort = await freePort()
const workerPort = await freePort()
const { server } = await startFake(fakePort)
let dev
let devLog = ''
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' }
try {
  await run(wrangler, ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist], { env })
  const vars = {
    ADMIN_TOKEN,
    ENCRYPTION_KEY,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: `http://127.0.0.1:${fakePort}/v1`,
    ALLOW_PRIVATE_FETCH: 'true',
  }
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(workerPort), '--persist-to', persist, '--inspector-port', String(await freePort()), '--show-interactive-dev-session=false', '--log-level', 'warn']
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`)
  dev = spawn(wrangler, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  dev.stdout.on('data', (d) => (devLog += d))
  dev.stderr.on('data', (d) => (devLog += d))
  const base = `http://127.0.0.1:${workerPort}`
  await waitFor(`${base}/healthz`, 90_000, () => devLog)

  const account = await api(base, 'POST', '/v1/admin/accounts', ADMIN_TOKEN, { name: 'bench', rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 })
  const { token } = await api(base, 'POST', `/v1/admin/accounts/${account.id}/tokens`, ADMIN_TOKEN, { name: 'bench' })
  const context = {
    processed_calendar_event: '{"title":"Acme <> Globex discovery","start":"2026-03-05T14:00:00Z"}',
    target_company_identity: '{"name":"Globex","domain":"globex.com"}',
    processed_research: '{"contacts":[{"name":"Jane Roe","title":"VP Operations"}]}',
  }
  const call = async (sections) => {
    const started = performance.now()
    const out = await api(base, 'POST', '/v1/action/meeting_prep_v3_generate_meeting_sections', token, { ...context, sections_to_generate: JSON.stringify(sections) })
    const ms = performance.now() - started
    const failed = Object.keys(out.errors)
    if (failed.length) throw new Error(`sections failed: ${JSON.stringify(out.errors)}`)
    return ms
  }
  await call(['overview']) // warm-up: first request builds the isolate

  const single = {}
  for (const s of SECTIONS) {
    const times = []
    for (let i = 0; i < REPEATS; i++) times.push(await call([s]))
    single[s] = median(times)
  }
  const totals = []
  for (let i = 0; i < REPEATS; i++) totals.push(await call(SECTIONS))
  const total = median(totals)
  const serial = SECTIONS.reduce((sum, s) => sum + single[s], 0)
  const slowest = Math.max(...SECTIONS.map((s) => single[s]))

  console.log(`meeting sections benchmark: fake model delay per section, median of ${REPEATS} calls, end to end through wrangler dev`)
  for (const s of SECTIONS) console.log(`  ${s.padEnd(10)} delay=${String(DELAYS[s]).padStart(4)} ms  alone=${single[s].toFixed(0).padStart(5)} ms`)
  console.log(`serial sum=${serial.toFixed(0)} ms`)
  console.log(`slowest single=${slowest.toFixed(0)} ms`)
  console.log(`total (7 sections, one call)=${total.toFixed(0)} ms`)
  console.log(`speed-up vs serial=${(serial / total).toFixed(2)}x`)
  console.log(`total/slowest ratio=${(total / slowest).toFixed(2)}`)
} finally {
  if (dev?.pid) {
    try {
      process.kill(-dev.pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
  server.close()
  server.closeAllConnections?.()
  rmSync(persist, { recursive: true, force: true })
}
