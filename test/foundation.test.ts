import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { createApp } from '../src/app'
import { successBody, successJson } from '../src/http/envelope'
import { ADMIN, action, createAccount, createToken, newCaller, request, type Json } from './helpers'

describe('routing and envelopes', () => {
  it('echoes a well-formed x-request-id and replaces a bad one', async () => {
    const good = await request('GET', '/healthz', { headers: { 'x-request-id': 'client-req-12345' } })
    expect(good.headers.get('x-request-id')).toBe('client-req-12345')
    const bad = await request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } })
    expect(bad.headers.get('x-request-id')).toMatch(/^req_/)
  })

  it('names an unknown action in a 404 envelope', async () => {
    const { token } = await newCaller()
    const res = await action('no_such_action', {}, token)
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ status: 404, response: null, code: 'NOT_FOUND' })
    expect(res.body.error).toContain('no_such_action')
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'))
  })

  it('lists every failing field of a schema failure', async () => {
    const { token } = await newCaller()
    const res = await action('search', { limit: 0, page: -1, status: 'secret' }, token)
    expect(res.status).toBe(400)
    expect((res.body.details as Json[]).map((d) => d.path).sort()).toEqual(['/limit', '/page', '/status'])
  })

  it('answers a body that is a JSON array or scalar with 400', async () => {
    const { token } = await newCaller()
    for (const raw of ['[1,2]', '"text"', 'null', '12']) {
      const res = await request('POST', '/v1/action/search', { token, raw, headers: { 'content-type': 'application/json' } })
      expect(res.status, raw).toBe(400)
    }
  })

  it('writes the success envelope from stored JSON text exactly as it would serialize it', () => {
    const cases: [unknown, unknown][] = [
      [[{ a: 1, 'b"': 'é\n' }], undefined],
      [null, undefined],
      ['text', { page: 2 }],
      [{ nested: [1, { x: null }] }, []],
    ]
    for (const [response, metadata] of cases) {
      const text = successJson(JSON.stringify(response), metadata === undefined ? null : JSON.stringify(metadata))
      expect(text).toBe(JSON.stringify(successBody(response, metadata === undefined ? {} : { metadata })))
    }
  })

  it('measures a body with or without a declared length, and refuses text that is not UTF-8', async () => {
    const { token } = await newCaller()
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const streamed = (chunks: string[]) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
          controller.close()
        },
      })
    const post = (body: BodyInit) => SELF.fetch('https://api.test/v1/action/search', { method: 'POST', headers, body })
    const big = await post(streamed(['{"query":"', 'a'.repeat(600 * 1024), 'a'.repeat(600 * 1024), '"}']))
    expect(big.status).toBe(413)
    expect(((await big.json()) as Json).code).toBe('PAYLOAD_TOO_LARGE')
    const small = await post(streamed(['{"query":', '"sales"}']))
    expect(small.status).toBe(200)
    const latin1 = await post(new Uint8Array([0x7b, 0x22, 0x71, 0xe9, 0x22, 0x3a, 0x31, 0x7d]))
    expect(latin1.status).toBe(400)
    expect(((await latin1.json()) as Json).error).toContain('UTF-8')
  })

  it('turns an unexpected error into a generic 500 with the request id, logging the stack', async () => {
    const app = createApp()
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { token } = await newCaller()
    // A database missing its runs table: the failure is internal, never shown to the caller.
    const brokenDb = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === 'prepare') return (sql: string) => (/INTO runs/.test(sql) ? target.prepare('SELECT * FROM table_that_does_not_exist') : target.prepare(sql))
        const v = Reflect.get(target, prop)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
    const ctx = createExecutionContext()
    const res = await app.fetch(
      new Request('https://api.test/v1/action/search', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }),
      { ...env, DB: brokenDb },
      ctx,
    )
    await waitOnExecutionContext(ctx)
    const body = await res.json<Json>()
    expect(res.status).toBe(500)
    expect(body.code).toBe('INTERNAL')
    expect(body.error).toContain(body.request_id)
    expect(body.error).not.toMatch(/table_that_does_not_exist|SQL/i)
    const logged = errors.mock.calls.map((c) => String(c[0])).join('\n')
    expect(logged).toContain(body.request_id)
    expect(logged).toContain('stack')
  })
})

describe('admin API', () => {
  it('answers 404 on every admin route when ADMIN_TOKEN is unset', async () => {
    const app = createApp()
    const ctx = createExecutionContext()
    const res = await app.fetch(new Request('https://api.test/v1/admin/accounts', { headers: { authorization: 'Bearer anything' } }), { ...env, ADMIN_TOKEN: undefined }, ctx)
    expect(res.status).toBe(404)
  })

  it('answers 401 to a wrong admin token', async () => {
    const res = await request('GET', '/v1/admin/accounts', { token: 'Bearer not-the-admin-token' })
    expect(res.status).toBe(401)
  })

  it('creates accounts, teams and memberships', async () => {
    const a = await createAccount('Team member')
    const team = await request('POST', '/v1/admin/teams', { token: ADMIN, body: { name: 'Growth' } })
    expect(team.status).toBe(201)
    const teamId = team.body.response.id
    expect((await request('PUT', `/v1/admin/teams/${teamId}/members/${a}`, { token: ADMIN, body: { role: 'admin' } })).status).toBe(200)
    const members = await request('GET', `/v1/admin/teams/${teamId}/members`, { token: ADMIN })
    expect(members.body.response).toEqual([expect.objectContaining({ account_id: a, role: 'admin' })])
    expect((await request('DELETE', `/v1/admin/teams/${teamId}/members/${a}`, { token: ADMIN })).status).toBe(200)
    expect((await request('DELETE', `/v1/admin/teams/${teamId}/members/${a}`, { token: ADMIN })).status).toBe(404)
  })

  it('validates admin bodies like actions', async () => {
    const res = await request('POST', '/v1/admin/accounts', { token: ADMIN, body: { name: '', extra: 1 } })
    expect(res.status).toBe(400)
    expect((res.body.details as Json[]).map((d) => d.path).sort()).toEqual(['/extra', '/name'])
  })
})

describe('tokens', () => {
  it('shows a token once and stores only its hash and first characters', async () => {
    const accountId = await createAccount('Hash check')
    const token = await createToken(accountId, { name: 'ci' })
    expect(token).toMatch(/^aak_[0-9A-Za-z]{43}$/)
    const rows = await env.DB.prepare('SELECT * FROM api_tokens WHERE account_id = ?').bind(accountId).all<Record<string, unknown>>()
    const stored = JSON.stringify(rows.results)
    expect(stored).not.toContain(token)
    expect(rows.results[0].start).toBe(token.slice(0, 10))
    const listed = await request('GET', `/v1/admin/accounts/${accountId}/tokens`, { token: ADMIN })
    expect(JSON.stringify(listed.body)).not.toContain(token)
    expect(listed.body.response[0]).toMatchObject({ name: 'ci', start: token.slice(0, 10) })
  })

  it('lets a token holder create, list and revoke its own tokens only', async () => {
    const a = await newCaller('A')
    const b = await newCaller('B')
    const created = await request('POST', '/v1/tokens', { token: a.token, body: { name: 'second', expires_in_days: 30 } })
    expect(created.status).toBe(201)
    expect(created.body.response.token).toMatch(/^aak_/)
    expect(created.body.response.expires_at).toBeTruthy()
    const id = created.body.response.id
    expect((await request('DELETE', `/v1/tokens/${id}`, { token: b.token })).status).toBe(404)
    const revoked = await request('DELETE', `/v1/tokens/${id}`, { token: a.token })
    expect(revoked.body.response.revoked_at).toBeTruthy()
    expect((await request('GET', '/v1/me', { token: created.body.response.token })).status).toBe(401)
    const list = await request('GET', '/v1/tokens', { token: b.token })
    expect((list.body.response as Json[]).every((t) => t.account_id === b.accountId)).toBe(true)
  })

  it('rejects an expiry in the past', async () => {
    const { token } = await newCaller()
    const res = await request('POST', '/v1/tokens', { token, body: { expires_at: '2001-01-01T00:00:00Z' } })
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/expires_at')
  })

  it('records last_used_at after a request', async () => {
    const { token, accountId } = await newCaller()
    await request('GET', '/v1/me', { token })
    let used: number | null = null
    for (let i = 0; i < 20 && !used; i++) {
      used = (await env.DB.prepare('SELECT last_used_at FROM api_tokens WHERE account_id = ?').bind(accountId).first<{ last_used_at: number | null }>())!.last_used_at
      if (!used) await new Promise((r) => setTimeout(r, 25))
    }
    expect(used).toBeGreaterThan(0)
  })
})

describe('rate limits', () => {
  it('counts exactly under concurrent requests', async () => {
    const { token } = await newCaller('burst', { perMinute: 10, perDay: 1000 })
    const results = await Promise.all(Array.from({ length: 30 }, () => request('GET', '/v1/me', { token })))
    const ok = results.filter((r) => r.status === 200).length
    const limited = results.filter((r) => r.status === 429)
    // A request that straddles a minute boundary lands in the next window; allow that one case.
    expect(ok === 10 || ok === 20).toBe(true)
    expect(limited.length).toBe(30 - ok)
    for (const r of limited) expect(r.headers.get('retry-after')).toBeTruthy()
  })

  it('applies the day limit and does not count rejected requests', async () => {
    const { token } = await newCaller('daily', { perMinute: 100, perDay: 3 })
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await request('GET', '/v1/me', { token })).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429])
    const last = await request('GET', '/v1/me', { token })
    expect(last.headers.get('ratelimit-limit')).toBe('3')
    expect(last.body.error).toMatch(/per day/)
  })

  it('sends ratelimit headers on every authenticated response, errors included', async () => {
    const { token } = await newCaller('headers', { perMinute: 50, perDay: 1000 })
    const res = await action('search', { limit: 'x' }, token)
    expect(res.status).toBe(400)
    expect(res.headers.get('ratelimit-limit')).toBe('50')
    expect(res.headers.get('ratelimit-remaining')).toBe('49')
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    expect(new Date(res.headers.get('ratelimit-reset-date')!).getTime()).toBeGreaterThan(Date.now() - 1000)
  })

  // Search counts the request in the same D1 batch as its first read; the count must be as exact.
  it('counts searches exactly, cached pages and concurrent calls included, and records no refused run', async () => {
    const { accountId, token } = await newCaller('search burst', { perMinute: 6, perDay: 1000 })
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => action('search', { query: `report ${i % 3}` }, token)))
    const ok = results.filter((r) => r.status === 200)
    // A request that straddles a minute boundary lands in the next window; allow that one case.
    expect(ok.length === 6 || ok.length === 12).toBe(true)
    for (const r of results) {
      expect(r.headers.get('ratelimit-limit')).toBe('6')
      if (r.status !== 200) expect(r).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } })
    }
    // Every token of the account is now over the limit too, so the runs are read from D1.
    const runs = await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE account_id = ? AND action = 'search'").bind(accountId).first<{ n: number }>()
    expect(runs!.n).toBe(ok.length)
  })

  it('refuses a search over the limit whether its page is cached or not, without counting it', async () => {
    const { token } = await newCaller('search cached', { perMinute: 100, perDay: 2 })
    const first = await action('search', { query: 'meeting prep' }, token)
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-remaining')).toBe('1')
    // The same public query again: served from the page cache, still counted.
    const again = await action('search', { query: 'meeting prep' }, token)
    expect(again.status).toBe(200)
    expect(again.headers.get('ratelimit-remaining')).toBe('0')
    for (const body of [{ query: 'meeting prep' }, { query: 'youtube transcript' }, { limit: 'x' }, {}]) {
      const res = await action('search', body, token)
      expect(res.status).toBe(429)
      expect(res.body.error).toMatch(/per day/)
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(res.headers.get('x-run-id')).toBeNull()
    }
  })

  it('uses the configured default when an account has no override', async () => {
    const res = await request('POST', '/v1/admin/accounts', { token: ADMIN, body: { name: 'default limits' } })
    const token = await createToken(res.body.response.id)
    const me = await request('GET', '/v1/me', { token })
    expect(me.headers.get('ratelimit-limit')).toBe('20')
  })
})
