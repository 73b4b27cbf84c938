/**
 * Starts the Worker under `wrangler dev` on a free local port with its own persisted state, for
 * benchmarks and evaluations: migrations applied, SQL loaded, an account and token made through
 * the admin API. Everything stays on 127.0.0.1.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

function wrangler(args, persist) {
  const r = spawnSync('wrangler', [...args, '--persist-to', persist], { encoding: 'utf8', env: { ...process.env, CI: 'true' }, maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`)
}

/**
 * @param {{ name: string, sql?: string[], vars?: Record<string,string>, fresh?: boolean }} opts
 * @returns {Promise<{ url: string, adminToken: string, stop: () => Promise<void>, pid: number, executeSql: (sql: string) => void }>}
 */
export async function startDevServer({ name, sql = [], vars = {}, fresh = true }) {
  const persist = join('.bench', name)
  if (fresh) rmSync(persist, { recursive: true, force: true })
  mkdirSync(persist, { recursive: true })
  const executeSql = (text) => {
    const file = join(persist, `load-${randomBytes(4).toString('hex')}.sql`)
    writeFileSync(file, text)
    wrangler(['d1', 'execute', 'DB', '--local', '--file', file], persist)
    rmSync(file)
  }
  wrangler(['d1', 'migrations', 'apply', 'DB', '--local'], persist)
  for (const text of sql) executeSql(text)
  const port = await freePort()
  const inspector = await freePort()
  const adminToken = randomBytes(16).toString('hex')
  const allVars = { ADMIN_TOKEN: adminToken, ENCRYPTION_KEY: randomBytes(32).toString('base64'), ...vars }
  const args = ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector), '--persist-to', persist, '--log-level', 'error', '--show-interactive-dev-session=false', '--test-scheduled']
  for (const [k, v] of Object.entries(allVars)) args.push('--var', `${k}:${v}`)
  // wrangler dev's local trace collector stores every request's spans in a SQLite file inside the same
  // workerd process as the Worker: a development aid, not part of a deployed Worker, so it stays off
  // where figures are measured.
  const child = spawn('wrangler', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true', X_LOCAL_OBSERVABILITY: 'false' } })
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  const url = `http://127.0.0.1:${port}`
  // A loaded 2-core machine can take over a minute to bundle and start workerd.
  const deadline = Date.now() + 180_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${log}`)
    try {
      const res = await fetch(`${url}/healthz`)
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`wrangler dev did not start in 180 s:\n${log}`)
    }
    await new Promise((r) => setTimeout(r, 300))
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    })
  return { url, adminToken, stop, pid: child.pid, executeSql, log: () => log, inspectorPort: inspector }
}

/**
 * Runs the Worker's cron handler (as the deployed cron would every 15 minutes) until a run has
 * nothing left to do: each run's work is bounded, so a large catalog's index upkeep takes several.
 * A run with nothing to do only reads a row, so one finishing in under `idleMs` means done.
 * Returns the number of runs and the seconds they took.
 */
export async function runCronUntilIdle(server, { idleMs = 500, maxRuns = 50 } = {}) {
  const t0 = Date.now()
  for (let runs = 1; runs <= maxRuns; runs++) {
    const start = Date.now()
    const res = await fetch(`${server.url}/__scheduled?cron=${encodeURIComponent('*/15 * * * *')}`)
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`the cron handler answered ${res.status}`)
    if (Date.now() - start < idleMs) return { runs, seconds: (Date.now() - t0) / 1000 }
  }
  throw new Error(`the cron handler still had work after ${maxRuns} runs`)
}

/** Creates an account (with limits high enough for load) and a token through the admin API. */
export async function createBenchToken(server, name = 'bench') {
  const admin = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' }
  const acc = await fetch(`${server.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name, rate_limit_per_minute: 1_000_000_000, rate_limit_per_day: 1_000_000_000 }),
  }).then((r) => r.json())
  const tok = await fetch(`${server.url}/v1/admin/accounts/${acc.response.id}/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ name }) }).then((r) => r.json())
  return { accountId: acc.response.id, token: tok.response.token }
}

/** Runs `tasks` (async functions) with a fixed concurrency; returns their results in order. */
export async function pool(tasks, concurrency) {
  const results = new Array(tasks.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++
        results[i] = await tasks[i]()
      }
    }),
  )
  return results
}
