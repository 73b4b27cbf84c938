import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { insertRun } from '../src/db/runs'
import { ADMIN, action, createAccount, createToken, mockFetch, newCaller, request, withSettings, type Json } from './helpers'

/**
 * Limits per account, not per token: every token of an account draws on the account's limits, a
 * token may carry lower limits of its own, and the counts an account can pile up (active tokens,
 * agents, queued runs in flight) are capped. A refusal is the error envelope, and stores nothing.
 */

const figures = { requests: 0, accepted: 0, refused: 0, stored: 0 }

/** Waits out the end of a minute, so a burst is counted in one minute window. */
async function awayFromMinuteEdge(): Promise<void> {
  const into = Date.now() % 60_000
  if (into > 50_000) await new Promise((r) => setTimeout(r, 60_000 - into + 200))
}

function expectEnvelope(res: { status: number; body: Json }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.body).toMatchObject({ status, response: null, code })
  expect(typeof res.body.request_id).toBe('string')
  expect(res.body.error.length).toBeGreaterThan(20)
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n
}

describe('rate limits per account', () => {
  it('gives many tokens of one account together exactly the account limit under concurrency', async () => {
    const accountId = await createAccount('many tokens', { perMinute: 10, perDay: 1000 })
    const tokens = await Promise.all(Array.from({ length: 6 }, () => createToken(accountId)))
    await awayFromMinuteEdge()
    // Plain routes count in middleware; search counts in the batch of its first read.
    const results = await Promise.all(
      Array.from({ length: 36 }, (_, i) => (i % 2 ? request('GET', '/v1/me', { token: tokens[i % 6] }) : action('search', { query: `limits ${i % 4}` }, tokens[i % 6]))),
    )
    const ok = results.filter((r) => r.status === 200)
    const limited = results.filter((r) => r.status === 429)
    figures.requests += results.length
    figures.accepted += ok.length
    figures.refused += limited.length
    expect(ok.length).toBe(10)
    expect(limited.length).toBe(26)
    for (const r of limited) {
      expectEnvelope(r, 429, 'RATE_LIMITED')
      expect(r.body.error).toMatch(/10 requests per minute for this account \(all its tokens together\)/)
      expect(r.headers.get('ratelimit-limit')).toBe('10')
      expect(r.headers.get('ratelimit-remaining')).toBe('0')
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // Refused searches leave no run.
    expect(await count("SELECT count(*) AS n FROM runs WHERE account_id = ? AND action = 'search'", accountId)).toBe(results.filter((r, i) => i % 2 === 0 && r.status === 200).length)
  })

  it('does not let a token multiply the quota by minting more tokens', async () => {
    const { token } = await newCaller('minting', { perMinute: 100_000, perDay: 4 })
    const minted: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await request('POST', '/v1/tokens', { token: minted[i - 1] ?? token, body: { name: `minted ${i}` } })
      expect(res.status).toBe(201)
      minted.push(res.body.response.token)
    }
    // Three requests went into minting; one is left for the whole account, whichever token asks.
    expect((await request('GET', '/v1/me', { token: minted[2] })).status).toBe(200)
    for (const t of [token, ...minted]) {
      const res = await request('GET', '/v1/me', { token: t })
      expectEnvelope(res, 429, 'RATE_LIMITED')
      expect(res.body.error).toMatch(/per day for this account/)
    }
  })

  it('lets a lower per-token limit bind while the account has room', async () => {
    const { accountId, token } = await newCaller('token limit', { perMinute: 1000, perDay: 10_000 })
    const created = await request('POST', '/v1/tokens', { token, body: { name: 'script', rate_limit_per_minute: 3 } })
    expect(created.status).toBe(201)
    expect(created.body.response).toMatchObject({ rate_limit_per_minute: 3, rate_limit_per_day: null })
    const limitedToken = created.body.response.token as string
    await awayFromMinuteEdge()
    const statuses: number[] = []
    let last: Awaited<ReturnType<typeof request>> | null = null
    for (let i = 0; i < 5; i++) {
      last = await request('GET', '/v1/me', { token: limitedToken })
      statuses.push(last.status)
      if (i === 0) {
        expect(last.headers.get('ratelimit-limit')).toBe('3')
        expect(last.headers.get('ratelimit-remaining')).toBe('2')
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429])
    expectEnvelope(last!, 429, 'RATE_LIMITED')
    expect(last!.body.error).toMatch(/3 requests per minute for this token/)
    // The account's other tokens are not held back by it, and its refused calls did not count.
    const other = await request('GET', '/v1/me', { token })
    expect(other.status).toBe(200)
    expect(other.headers.get('ratelimit-limit')).toBe('1000')
    expect(other.headers.get('ratelimit-remaining')).toBe(String(1000 - 5))
    // An operator can lift or change it.
    const tokenId = created.body.response.id as string
    const patched = await request('PATCH', `/v1/admin/tokens/${tokenId}`, { token: ADMIN, body: { rate_limit_per_minute: null, rate_limit_per_day: 50 } })
    expect(patched.body.response).toMatchObject({ rate_limit_per_minute: null, rate_limit_per_day: 50 })
    const after = await request('GET', '/v1/me', { token: limitedToken })
    expect(after.status).toBe(200)
    expect(after.headers.get('ratelimit-limit')).toBe('50')
    expect(await count('SELECT count(*) AS n FROM api_tokens WHERE account_id = ?', accountId)).toBe(2)
  })

  it('counts a per-token limit exactly under concurrency, search included', async () => {
    const { token } = await newCaller('token burst', { perMinute: 1000, perDay: 10_000 })
    const limitedToken = (await request('POST', '/v1/tokens', { token, body: { rate_limit_per_minute: 4 } })).body.response.token as string
    await awayFromMinuteEdge()
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? request('GET', '/v1/me', { token: limitedToken }) : action('search', { query: 'token burst' }, limitedToken))))
    expect(results.filter((r) => r.status === 200)).toHaveLength(4)
    for (const r of results.filter((r) => r.status !== 200)) expectEnvelope(r, 429, 'RATE_LIMITED')
  })

  it('lets a limited token hand out no more than it has', async () => {
    const { token } = await newCaller('limited minter')
    const limited = (await request('POST', '/v1/tokens', { token, body: { rate_limit_per_minute: 50, rate_limit_per_day: 1000 } })).body.response
    // A token it creates inherits its limits, or takes lower ones.
    const child = await request('POST', '/v1/tokens', { token: limited.token, body: { name: 'child' } })
    expect(child.body.response).toMatchObject({ rate_limit_per_minute: 50, rate_limit_per_day: 1000 })
    const lower = await request('POST', '/v1/tokens', { token: limited.token, body: { rate_limit_per_minute: 2 } })
    expect(lower.body.response).toMatchObject({ rate_limit_per_minute: 2, rate_limit_per_day: 1000 })
    for (const body of [{ rate_limit_per_minute: 51 }, { rate_limit_per_day: null }]) {
      const res = await request('POST', '/v1/tokens', { token: limited.token, body })
      expectEnvelope(res, 403, 'FORBIDDEN')
      expect(res.body.details[0].path).toBe(`/${Object.keys(body)[0]}`)
    }
    // Nor can it lift its own limits, or raise another token's.
    for (const id of [limited.id, child.body.response.id]) {
      const res = await request('PATCH', `/v1/tokens/${id}`, { token: limited.token, body: { rate_limit_per_minute: null } })
      expectEnvelope(res, 403, 'FORBIDDEN')
    }
    // An unlimited token of the account may.
    const lifted = await request('PATCH', `/v1/tokens/${limited.id}`, { token, body: { rate_limit_per_minute: null } })
    expect(lifted.body.response).toMatchObject({ rate_limit_per_minute: null, rate_limit_per_day: 1000 })
    // Another account's token reads as absent.
    const stranger = await newCaller('stranger')
    expectEnvelope(await request('PATCH', `/v1/tokens/${limited.id}`, { token: stranger.token, body: { rate_limit_per_minute: 1 } }), 404, 'NOT_FOUND')
    expectEnvelope(await request('PATCH', `/v1/tokens/${limited.id}`, { token, body: {} }), 400, 'VALIDATION_FAILED')
  })
})

describe('caps per account', () => {
  it('caps active tokens exactly under concurrency; revoked and expired ones do not count', async () => {
    await withSettings({ MAX_TOKENS_PER_ACCOUNT: '4' }, async () => {
      const { accountId, token } = await newCaller('token cap')
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => request('POST', '/v1/tokens', { token, body: { name: `t${i}` } })))
      expect(results.filter((r) => r.status === 201)).toHaveLength(3)
      const refused = results.filter((r) => r.status !== 201)
      for (const r of refused) {
        expectEnvelope(r, 429, 'QUOTA_EXCEEDED')
        expect(r.body.error).toMatch(/4 active tokens .*MAX_TOKENS_PER_ACCOUNT/)
        expect(JSON.stringify(r.body)).not.toMatch(/aak_/)
      }
      expectEnvelope(await request('POST', `/v1/admin/accounts/${accountId}/tokens`, { token: ADMIN, body: {} }), 429, 'QUOTA_EXCEEDED')
      figures.refused += refused.length + 1
      figures.stored += (await count('SELECT count(*) AS n FROM api_tokens WHERE account_id = ?', accountId)) - 4
      const revoked = results.find((r) => r.status === 201)!.body.response.id as string
      expect((await request('DELETE', `/v1/tokens/${revoked}`, { token })).status).toBe(200)
      await env.DB.prepare('UPDATE api_tokens SET expires_at = ? WHERE id = ?')
        .bind(Date.now() - 1, results.filter((r) => r.status === 201)[1].body.response.id)
        .run()
      expect((await request('POST', '/v1/tokens', { token, body: {} })).status).toBe(201)
      expect((await request('POST', `/v1/admin/accounts/${accountId}/tokens`, { token: ADMIN, body: {} })).status).toBe(201)
    })
  })

  it('caps the agents an account owns', async () => {
    await withSettings({ MAX_AGENTS_PER_ACCOUNT: '2' }, async () => {
      const { accountId, token } = await newCaller('agent cap')
      const agent = (i: number) => ({
        name: `Capped ${i}`,
        description: 'An agent over the cap',
        visibility: 'private',
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        workflow: { steps: [{ id: 'find', action: 'search', input: { query: '{{input.q}}' } }] },
      })
      for (const i of [1, 2]) expect((await request('POST', '/v1/agents', { token, body: agent(i) })).status).toBe(201)
      const res = await request('POST', '/v1/agents', { token, body: { ...agent(3), slug: 'capped-three' } })
      expectEnvelope(res, 429, 'QUOTA_EXCEEDED')
      expect(res.body.error).toMatch(/2 agents .*MAX_AGENTS_PER_ACCOUNT/)
      figures.refused++
      figures.stored += (await count('SELECT count(*) AS n FROM agents WHERE owner_account_id = ?', accountId)) - 2
      expect(await count("SELECT count(*) AS n FROM agents WHERE slug = 'capped-three'")).toBe(0)
    })
  })

  it('caps queued runs in flight, with or without an idempotency key, and stores nothing when full', async () => {
    await withSettings({ MAX_QUEUED_RUNS_PER_ACCOUNT: '2' }, async () => {
      const { accountId, token } = await newCaller('queue cap')
      // Two queued runs that no consumer will pick up (no message was sent for them).
      for (const id of ['run_capfill0000000000001', 'run_capfill0000000000002']) {
        await insertRun(env.DB, {
          id: `${id}${accountId.slice(-4)}`,
          account_id: accountId,
          action: 'search',
          state: 'queued',
          parent_run_id: null,
          workflow_id: null,
          output_variable_name: null,
          input: '{}',
          input_kind: 'inline',
          job_input: '{}',
          job_input_kind: 'inline',
          callback_url: null,
          created_at: Date.now(),
          started_at: null,
        })
      }
      const before = await count('SELECT count(*) AS n FROM runs WHERE account_id = ?', accountId)
      for (const headers of [{ Prefer: 'respond-async' }, { Prefer: 'respond-async', 'Idempotency-Key': 'queue-cap-1' }] as Record<string, string>[]) {
        const res = await action('search', { query: 'queued over the cap' }, token, headers)
        expectEnvelope(res, 429, 'QUOTA_EXCEEDED')
        expect(res.body.error).toMatch(/2 queued runs .*MAX_QUEUED_RUNS_PER_ACCOUNT/)
        expect(res.headers.get('x-run-id')).toBeNull()
        figures.refused++
      }
      // The audit fetches its start page before queuing (a site that cannot be crawled is an error at once).
      mockFetch(async (req) => (new URL(req.url).hostname === 'queue-cap.example' ? new Response('<h1>Up</h1>', { headers: { 'content-type': 'text/html' } }) : null))
      const queuedAudit = await action('content_audit_generate_audit_action', { website_url: 'https://queue-cap.example/' }, token)
      expectEnvelope(queuedAudit, 429, 'QUOTA_EXCEEDED')
      figures.refused++
      figures.stored += (await count('SELECT count(*) AS n FROM runs WHERE account_id = ?', accountId)) - before
      figures.stored += await count('SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?', accountId)
      // Inline calls are not queued runs and go on.
      expect((await action('search', { query: 'inline is fine' }, token)).status).toBe(200)
      // Once one ends, the next is accepted.
      await env.DB.prepare("UPDATE runs SET state = 'succeeded', job_input = NULL WHERE id = ?")
        .bind(`run_capfill0000000000001${accountId.slice(-4)}`)
        .run()
      const accepted = await action('search', { query: 'queued again' }, token, { Prefer: 'respond-async' })
      expect(accepted.status).toBe(202)
    })
  })

  it('printed its figures', () => {
    console.log(
      `limits: ${figures.requests} concurrent requests from 6 tokens of one account: ${figures.accepted} accepted = the account limit; ${figures.refused} refusals (rate, tokens, agents, queued runs), ${figures.stored} rows stored by them`,
    )
    expect(figures.accepted).toBe(10)
    expect(figures.stored).toBe(0)
  })
})
