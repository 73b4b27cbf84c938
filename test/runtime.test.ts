import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { waitForRun } from '../src/runtime/execute'
import { action, json, mockFetch, newCaller, request, type Json } from './helpers'
import { seedDemoCatalog } from './seed'

beforeAll(async () => {
  await seedDemoCatalog()
})

const wf = (id: string) => ({ 'workflow-id': id })

describe('runs', () => {
  it('records every call as a run the caller can list and read', async () => {
    const { token } = await newCaller('runs')
    const res = await action('search', { query: 'seo' }, token)
    const runId = res.headers.get('x-run-id')!
    expect(runId).toMatch(/^run_/)
    const run = await request('GET', `/v1/runs/${runId}`, { token })
    expect(run.body.response).toMatchObject({ id: runId, action: 'search', state: 'succeeded', attempts: 1, input: { query: 'seo', status: 'public', limit: 10, page: 0 } })
    expect(run.body.response.output).toEqual(res.body.response)
    expect(run.body.response.duration_ms).toBeGreaterThanOrEqual(0)
  })

  it('filters and pages runs with a cursor', async () => {
    const { token } = await newCaller('paging')
    for (let i = 0; i < 5; i++) await action('search', { query: `q${i}` }, token)
    await action('get_variable', { name: 'missing' }, token, wf('w1'))
    const page1 = await request('GET', '/v1/runs?action=search&limit=3', { token })
    expect(page1.body.response).toHaveLength(3)
    const page2 = await request('GET', `/v1/runs?action=search&limit=3&cursor=${page1.body.next_cursor}`, { token })
    expect(page2.body.response).toHaveLength(2)
    const ids = [...page1.body.response, ...page2.body.response].map((r: Json) => r.id)
    expect(new Set(ids).size).toBe(5)
    const failed = await request('GET', '/v1/runs?state=failed', { token })
    expect(failed.body.response.map((r: Json) => r.action)).toEqual(['get_variable'])
    expect(failed.body.response[0].error).toMatchObject({ status: 404, code: 'NOT_FOUND' })
    expect((await request('GET', '/v1/runs?state=bogus', { token })).status).toBe(400)
    expect((await request('GET', '/v1/runs?cursor=%%%', { token })).status).toBe(400)
  })

  it("answers 404 for another account's run", async () => {
    const a = await newCaller('a')
    const b = await newCaller('b')
    const res = await action('search', {}, a.token)
    const other = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token: b.token })
    expect(other.status).toBe(404)
    const list = await request('GET', '/v1/runs', { token: b.token })
    expect(list.body.response).toEqual([])
  })
})

describe('workflow variables', () => {
  it('stores results under output_variable_name and resolves references before validation', async () => {
    const { token } = await newCaller('vars')
    await action('store_variable', { name: 'prefs', value: { q: 'youtube', page: { size: 2 }, tags: ['a', 'b'] } }, token, wf('flow1'))
    const res = await action('search', { query: '{{prefs.q}} transcript', limit: '{{prefs.page.size}}' as unknown as number }, token, wf('flow1'))
    // A whole-field reference keeps the referenced value's type (here a number).
    expect(res.status).toBe(200)
    expect(res.body.response).toHaveLength(2)
    const got = await action('get_variable', { name: 'prefs' }, token, wf('flow1'))
    expect(got.body.response.value.tags[1]).toBe('b')
    const indexed = await action('store_variable', { name: 'second', value: 'tag={{prefs.tags[1]}} and {{prefs.tags.0}}' }, token, wf('flow1'))
    expect(indexed.body.response.value).toBe('tag=b and a')
  })

  it('gives the JSON text of an object to a string field', async () => {
    const { token } = await newCaller('json')
    await action('store_variable', { name: 'obj', value: { a: 1 } }, token, wf('f'))
    const res = await action('search', { query: '{{obj}}' }, token, wf('f'))
    expect(res.status).toBe(200)
    const run = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token })
    expect(run.body.response.input.query).toBe('{"a":1}')
  })

  it('answers 400 naming a reference to nothing, and references without a Workflow-Id', async () => {
    const { token } = await newCaller('missing')
    const res = await action('search', { query: 'x {{nope.field}}' }, token, wf('f2'))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('UNRESOLVED_REFERENCE')
    expect(res.body.details[0].path).toBe('/query')
    expect(res.body.error).toContain('nope.field')
    const noScope = await action('search', { query: '{{x}}' }, token)
    expect(noScope.status).toBe(400)
    expect(noScope.body.error).toContain('Workflow-Id')
  })

  it('stores the search result and keeps scopes per account', async () => {
    const a = await newCaller('scope-a')
    const b = await newCaller('scope-b')
    await action('search', { query: 'crm', limit: 1 } as Json, a.token, wf('shared'))
    await action('store_variable', { name: 'secret', value: 'a-only' }, a.token, wf('shared'))
    const fromB = await action('get_variable', { name: 'secret' }, b.token, wf('shared'))
    expect(fromB.status).toBe(404)
    const fromA = await action('get_variable', { name: 'secret' }, a.token, wf('shared'))
    expect(fromA.body.response.value).toBe('a-only')
  })

  it('stores nothing without a Workflow-Id header', async () => {
    const { token, accountId } = await newCaller('nostore')
    await action('search', { query: 'x', output_variable_name: 'kept' } as Json, token)
    const row = await env.DB.prepare('SELECT count(*) AS n FROM variables WHERE account_id = ?').bind(accountId).first<{ n: number }>()
    expect(row!.n).toBe(0)
  })

  it('expires scopes after the configured time', async () => {
    const { token, accountId } = await newCaller('expiry')
    await action('store_variable', { name: 'old', value: 1 }, token, wf('e'))
    await env.DB.prepare('UPDATE variables SET expires_at = ? WHERE account_id = ?')
      .bind(Date.now() - 1, accountId)
      .run()
    expect((await action('get_variable', { name: 'old' }, token, wf('e'))).status).toBe(404)
  })
})

describe('idempotency', () => {
  it('returns the first run for the same key and body, and 409 for a different body', async () => {
    const { token } = await newCaller('idem')
    const key = { 'idempotency-key': 'key-1' }
    const first = await action('search', { query: 'seo' }, token, key)
    const again = await action('search', { query: 'seo' }, token, key)
    expect(again.headers.get('x-run-id')).toBe(first.headers.get('x-run-id'))
    expect(again.body).toEqual(first.body)
    const other = await action('search', { query: 'crm' }, token, key)
    expect(other.status).toBe(409)
    expect(other.body.code).toBe('CONFLICT')
  })

  it('runs once for concurrent duplicates with one key', async () => {
    const { token, accountId } = await newCaller('idem-concurrent')
    const results = await Promise.all(Array.from({ length: 8 }, () => action('store_variable', { name: 'n', value: 1 }, token, { 'idempotency-key': 'same', ...wf('c') })))
    expect(new Set(results.map((r) => r.headers.get('x-run-id'))).size).toBe(1)
    expect(results.every((r) => r.status === 200)).toBe(true)
    const runs = await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE account_id = ?').bind(accountId).first<{ n: number }>()
    expect(runs!.n).toBe(1)
  })

  it('keeps keys per account and lets them expire', async () => {
    const a = await newCaller('ia')
    const b = await newCaller('ib')
    const k = { 'idempotency-key': 'shared-key' }
    const ra = await action('search', { query: 'a' }, a.token, k)
    const rb = await action('search', { query: 'b' }, b.token, k)
    expect(rb.status).toBe(200)
    expect(rb.headers.get('x-run-id')).not.toBe(ra.headers.get('x-run-id'))
    await env.DB.prepare('UPDATE idempotency_keys SET expires_at = ? WHERE account_id = ?')
      .bind(Date.now() - 1, a.accountId)
      .run()
    const ra2 = await action('search', { query: 'different now' }, a.token, k)
    expect(ra2.status).toBe(200)
    expect(ra2.headers.get('x-run-id')).not.toBe(ra.headers.get('x-run-id'))
  })
})

describe('queue consumer', () => {
  it('runs a queued run exactly once even when its message is duplicated', async () => {
    const { token, accountId } = await newCaller('queue')
    const runId = 'run_queuedtest000000001'
    await env.DB.prepare(
      `INSERT INTO runs (id, account_id, action, state, input, job_input, created_at, workflow_id, output_variable_name)
       VALUES (?, ?, 'store_variable', 'queued', '{}', ?, ?, 'qflow', 'ignored')`,
    )
      .bind(runId, accountId, JSON.stringify({ name: 'fromQueue', value: 42 }), Date.now())
      .run()
    await env.JOBS.send({ runId })
    await env.JOBS.send({ runId })
    const run = await waitForRun(env, runId, 15)
    expect(run?.state).toBe('succeeded')
    await new Promise((r) => setTimeout(r, 1500))
    const again = await env.DB.prepare('SELECT attempts FROM runs WHERE id = ?').bind(runId).first<{ attempts: number }>()
    expect(again!.attempts).toBe(1)
    const got = await action('get_variable', { name: 'fromQueue' }, token, wf('qflow'))
    expect(got.body.response.value).toBe(42)
    const polled = await request('GET', `/v1/runs/${runId}?wait=1`, { token })
    expect(polled.body.response.state).toBe('succeeded')
  })

  it('signs and delivers the final envelope to callback_url', async () => {
    const { accountId } = await newCaller('callback')
    const runId = 'run_callbacktest0000001'
    const seen = mockFetch((req) => (new URL(req.url).hostname === 'hooks.example.com' ? json({ ok: true }) : null))
    await env.DB.prepare(
      `INSERT INTO runs (id, account_id, action, state, input, job_input, created_at, workflow_id, callback_url)
       VALUES (?, ?, 'store_variable', 'queued', '{}', ?, ?, 'cb', 'https://hooks.example.com/done')`,
    )
      .bind(runId, accountId, JSON.stringify({ name: 'x', value: 1 }), Date.now())
      .run()
    await env.JOBS.send({ runId })
    await waitForRun(env, runId, 15)
    for (let i = 0; i < 40 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(seen).toHaveLength(1)
    const body = seen[0].body
    expect(JSON.parse(body)).toMatchObject({ status: 200, response: { name: 'x', value: 1 }, run_id: runId })
    const sig = seen[0].headers.get('x-signature')!
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig)!
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(env.WEBHOOK_SIGNING_SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    const expected = [...new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${t}.${body}`)))].map((b) => b.toString(16).padStart(2, '0')).join('')
    expect(v1).toBe(expected)
  })
})

describe('Prefer and callback validation', () => {
  it('refuses callback_url on an inline-only action as an unknown field', async () => {
    const { token } = await newCaller('cb-inline')
    const res = await action('search', { callback_url: 'https://hooks.example.com/x' } as Json, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/callback_url')
  })
})
