import { env, SELF } from 'cloudflare:test'
import { afterEach, vi } from 'vitest'
import { fakeDnsAnswer } from './fake-dns'
import { markSecret, markSecretsIn, noteAccountCreated } from './secret-scan'
import type { NewRun } from '../src/db/runs'

export const ADMIN = `Bearer ${env.ADMIN_TOKEN}`
export const BASE = 'https://api.test'

/** JSON body of a response, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any

/** One D1 round trip: the SQL of its statements. */
export type Trip = string[]

/**
 * `db` with every round trip recorded in `trips`, each as the SQL of its statements, and, when given,
 * the SQL of every statement prepared (run or not) in `prepared`.
 */
export function countingDb(db: D1Database, trips: Trip[], prepared?: string[]): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>()
  const sqlOf = new WeakMap<object, string>()
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown
        if (typeof value !== 'function') return value
        if (prop === 'bind') return (...args: unknown[]) => wrap(target.bind(...args), sql)
        if (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw') {
          return (...args: unknown[]) => {
            trips.push([sql])
            return (value as (...a: unknown[]) => unknown).apply(target, args)
          }
        }
        return (value as (...a: unknown[]) => unknown).bind(target)
      },
    })
    real.set(proxy, statement)
    sqlOf.set(proxy, sql)
    return proxy
  }
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare')
        return (sql: string) => {
          prepared?.push(sql)
          return wrap(target.prepare(sql), sql)
        }
      if (prop === 'batch')
        return (statements: D1PreparedStatement[]) => {
          trips.push(statements.map((s) => sqlOf.get(s) ?? '?'))
          return target.batch(statements.map((s) => real.get(s) ?? s))
        }
      const value = Reflect.get(target, prop) as unknown
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** Calls the Worker with a JSON body (or raw text) and optional bearer token. */
export async function request(
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = opts.token.startsWith('Bearer ') ? opts.token : `Bearer ${opts.token}`
  let body: string | undefined
  if (opts.raw !== undefined) body = opts.raw
  else if (opts.body !== undefined) {
    markSecretsIn(opts.body)
    body = JSON.stringify(opts.body)
    headers['content-type'] ??= 'application/json'
  }
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers, body })
  const text = await res.text()
  let parsed: Json = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: leave the text
  }
  return { status: res.status, body: parsed, headers: res.headers }
}

/** POST /v1/action/<name>. */
export function action(name: string, body: unknown, token: string, headers: Record<string, string> = {}) {
  return request('POST', `/v1/action/${name}`, { token, body, headers })
}

/** Runs `fn` with some settings changed (the Worker reads its settings per request). */
export async function withSettings<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const target = env as unknown as Record<string, string | undefined>
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, target[k]]))
  Object.assign(target, vars)
  try {
    return await fn()
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete target[k]
      else target[k] = v
    }
  }
}

/** Creates an account through the admin API; optional rate-limit override. */
export async function createAccount(name = 'Test account', limits: { perMinute?: number; perDay?: number } = {}): Promise<string> {
  const res = await request('POST', '/v1/admin/accounts', {
    token: ADMIN,
    body: { name, rate_limit_per_minute: limits.perMinute ?? 100_000, rate_limit_per_day: limits.perDay ?? 1_000_000 },
  })
  if (res.status !== 201) throw new Error(`createAccount: ${res.status} ${JSON.stringify(res.body)}`)
  noteAccountCreated()
  return res.body.response.id
}

/** Creates a token for an account and returns its plain value. */
export async function createToken(accountId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await request('POST', `/v1/admin/accounts/${accountId}/tokens`, { token: ADMIN, body })
  if (res.status !== 201) throw new Error(`createToken: ${res.status} ${JSON.stringify(res.body)}`)
  return markSecret(res.body.response.token as string)
}

/** An account with a token, ready to call actions. */
export async function newCaller(name = 'Caller', limits: { perMinute?: number; perDay?: number } = {}) {
  const accountId = await createAccount(name, limits)
  return { accountId, token: await createToken(accountId) }
}

export async function createTeam(name: string, members: string[]): Promise<string> {
  const res = await request('POST', '/v1/admin/teams', { token: ADMIN, body: { name } })
  const id = res.body.response.id as string
  for (const m of members) await request('PUT', `/v1/admin/teams/${id}/members/${m}`, { token: ADMIN, body: {} })
  return id
}

export type FetchHandler = (req: Request) => Response | Promise<Response> | undefined | null | Promise<Response | undefined | null>

/** A request the Worker sent, captured as plain data (bodies cannot cross request contexts). */
export interface SeenRequest {
  method: string
  url: string
  headers: Headers
  body: string
}

/**
 * Intercepts outbound fetches made by the Worker during a test (the test and the Worker share an
 * isolate). Handlers are tried in order; a request no handler answers falls through to the
 * catch-all outbound service, which fails it (599). The SSRF check's DNS queries go to the fake
 * resolver and are not among the requests seen. Returns the list of requests seen.
 */
export function mockFetch(...handlers: FetchHandler[]): SeenRequest[] {
  const seen: SeenRequest[] = []
  const original = globalThis.fetch
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init)
    const dns = fakeDnsAnswer(req)
    if (dns) return dns
    seen.push({ method: req.method, url: req.url, headers: new Headers(req.headers), body: await req.clone().text() })
    for (const h of handlers) {
      const res = await h(req.clone())
      if (res) return res
    }
    return original(req)
  })
  return seen
}

afterEach(() => {
  vi.restoreAllMocks()
})

/** A JSON response for fetch handlers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/** A run row as the runtime inserts one for an inline run that has started (tests that seed runs directly). */
export function runningRun(id: string, accountId: string, actionName: string, at = Date.now()): NewRun {
  return {
    id,
    account_id: accountId,
    action: actionName,
    state: 'running',
    parent_run_id: null,
    workflow_id: null,
    output_variable_name: null,
    input: '{}',
    input_kind: 'inline',
    job_input: null,
    job_input_kind: 'inline',
    callback_url: null,
    created_at: at,
    started_at: at,
  }
}
