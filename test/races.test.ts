import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request, withSettings, type Json } from './helpers'
import { VIDEO_ID, yt } from './youtube/fixtures'

/**
 * Limits and uniqueness rules hold when the same request arrives many times at once. Miniflare
 * switches between requests at every await, so a check read in one statement and acted on in
 * another lets several requests through together; each property fires 2-20 requests with
 * Promise.all and then reads D1 for the invariant.
 */

type Answer = { status: number; body: Json; headers: Headers }

function expectEnvelope(res: Answer, status: number, code: string, message?: RegExp) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status)
  expect(res.body).toMatchObject({ status, response: null, code })
  if (message) expect(res.body.error).toMatch(message)
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n
}

let seq = 0
const unique = (prefix: string) => `${prefix}-${++seq}`

describe('variables', () => {
  it('never lets concurrent writes take a scope past MAX_SCOPE_BYTES or a value past MAX_VARIABLE_BYTES', async () => {
    const maxScope = 1000
    const maxValue = 600
    await withSettings({ MAX_SCOPE_BYTES: String(maxScope), MAX_VARIABLE_BYTES: String(maxValue) }, async () => {
      const { token, accountId } = await newCaller('scope race')
      const write = fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), length: fc.integer({ min: 1, max: 700 }) })
      await fc.assert(
        fc.asyncProperty(fc.array(write, { minLength: 2, maxLength: 20 }), async (writes) => {
          const scope = unique('scope')
          // Each value is told apart by its index, so a stored one names the request that wrote it.
          const values = writes.map((w, i) => `${i}:`.padEnd(w.length, 'x'))
          const answers = await Promise.all(writes.map((w, i) => action('store_variable', { name: w.name, value: values[i] }, token, { 'workflow-id': scope })))
          const { results: rows } = await env.DB.prepare('SELECT name, value, size FROM variables WHERE account_id = ? AND workflow_id = ?')
            .bind(accountId, scope)
            .all<{ name: string; value: string; size: number }>()
          expect(rows.reduce((sum, r) => sum + r.size, 0)).toBeLessThanOrEqual(maxScope)
          for (const row of rows) {
            const i = values.indexOf(JSON.parse(row.value) as string)
            expect(writes[i].name).toBe(row.name)
            expect(answers[i].status).toBe(200)
          }
          answers.forEach((res, i) => {
            if (res.status === 200) return
            expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE', JSON.stringify(values[i]).length > maxValue ? /MAX_VARIABLE_BYTES/ : /MAX_SCOPE_BYTES/)
          })
          // With every name distinct the scope only grows, so a value that fits alone is refused only
          // when the scope ended up too full for it.
          if (new Set(writes.map((w) => w.name)).size === writes.length) {
            const total = rows.reduce((sum, r) => sum + r.size, 0)
            answers.forEach((res, i) => {
              const size = JSON.stringify(values[i]).length
              if (res.status !== 200 && size <= maxValue) expect(total + size).toBeGreaterThan(maxScope)
            })
          }
        }),
        { numRuns: 50 },
      )
    })
  })
})

/** YouTube holding every watch-page request until `release`, so queued runs stay in flight meanwhile. */
function heldYouTube() {
  let release = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  mockFetch(async (req) => {
    const url = new URL(req.url)
    if (url.hostname !== 'www.youtube.com') return null
    await gate
    if (url.pathname === '/watch') return new Response(yt.watchHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } })
    if (url.pathname === '/youtubei/v1/player') return new Response(yt.innertube.ok, { headers: { 'content-type': 'application/json' } })
    if (url.pathname === '/api/timedtext') return new Response(yt.transcriptXml, { headers: { 'content-type': 'text/xml' } })
    return new Response('not found', { status: 404 })
  })
  return () => release()
}

describe('queued runs', () => {
  it('accepts exactly MAX_QUEUED_RUNS_PER_ACCOUNT concurrent queued calls, with and without idempotency keys', async () => {
    const release = heldYouTube()
    const started: { token: string; runId: string }[] = []
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(fc.boolean(), { minLength: 2, maxLength: 20 }), async (cap, keyed) => {
          await withSettings({ MAX_QUEUED_RUNS_PER_ACCOUNT: String(cap) }, async () => {
            const { token, accountId } = await newCaller('queue race')
            const answers = await Promise.all(
              keyed.map((withKey, i) =>
                action('get_video_transcript', { url: `https://www.youtube.com/watch?v=${VIDEO_ID}` }, token, {
                  prefer: 'respond-async',
                  ...(withKey ? { 'idempotency-key': `queued-${i}` } : {}),
                }),
              ),
            )
            const accepted = answers.filter((r) => r.status === 202)
            started.push(...accepted.map((r) => ({ token, runId: r.body.response.run_id as string })))
            expect(accepted).toHaveLength(Math.min(cap, keyed.length))
            for (const r of answers.filter((a) => a.status !== 202)) expectEnvelope(r, 429, 'QUOTA_EXCEEDED', new RegExp(`${cap} queued runs .*MAX_QUEUED_RUNS_PER_ACCOUNT`))
            expect(await count("SELECT count(*) AS n FROM runs WHERE account_id = ? AND state IN ('queued', 'running')", accountId)).toBe(accepted.length)
            // A refused keyed call leaves no key behind, so its retry is not stuck on a run that never was.
            const keys = await count('SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?', accountId)
            expect(keys).toBe(keyed.filter((withKey, i) => withKey && answers[i].status === 202).length)
          })
        }),
        { numRuns: 25 },
      )
    } finally {
      release()
    }
    // Every run started here ends before the file does.
    for (const { token, runId } of started) {
      const done = await request('GET', `/v1/runs/${runId}?wait=30`, { token })
      expect(done.body.response.state).toMatch(/succeeded|failed/)
    }
  }, 120_000)
})

describe('idempotency keys', () => {
  it('runs once per key among concurrent calls with several bodies, and answers every other body 409', async () => {
    const { token, accountId } = await newCaller('idempotency race')
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 20 }), fc.boolean(), async (bodies, queued) => {
        const scope = unique('idem')
        const headers = { 'idempotency-key': scope, 'workflow-id': scope, ...(queued ? { prefer: 'respond-async' } : {}) }
        const answers = await Promise.all(bodies.map((b) => action('store_variable', { name: 'v', value: b }, token, headers)))
        expect(await count('SELECT count(*) AS n FROM runs WHERE account_id = ? AND workflow_id = ?', accountId, scope)).toBe(1)
        const run = await env.DB.prepare('SELECT r.id, r.input FROM idempotency_keys k JOIN runs r ON r.id = k.run_id WHERE k.account_id = ? AND k.key = ?')
          .bind(accountId, scope)
          .first<{ id: string; input: string }>()
        const winner = (JSON.parse(run!.input) as { value: number }).value
        answers.forEach((res, i) => {
          if (bodies[i] === winner) {
            // A queued duplicate answers the run as it stands: 202 while it waits, 200 once it ended.
            expect(queued ? [200, 202] : [200], JSON.stringify(res.body).slice(0, 300)).toContain(res.status)
            expect(res.headers.get('x-run-id') ?? res.body.response.run_id).toBe(run!.id)
          } else expectEnvelope(res, 409, 'CONFLICT', /Idempotency-Key was already used with a different request body/)
        })
        if (queued) await request('GET', `/v1/runs/${run!.id}?wait=30`, { token })
        const stored = await action('get_variable', { name: 'v' }, token, { 'workflow-id': scope })
        expect(stored.body.response.value).toBe(winner)
      }),
      { numRuns: 40 },
    )
  }, 60_000)
})

const agentBody = (name: string, slug: string | null) => ({
  name,
  description: 'An agent created in a burst',
  visibility: 'private',
  ...(slug ? { slug } : {}),
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  workflow: { steps: [{ id: 'find', action: 'search', input: { query: '{{input.q}}' } }] },
})

describe('agents', () => {
  it('keeps MAX_AGENTS_PER_ACCOUNT and slugs unique per owner under concurrent creates and imports', async () => {
    type Create = { kind: 'create'; slug: string | null } | { kind: 'import'; size: number }
    const create: fc.Arbitrary<Create> = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), slug: fc.constantFrom(null, 's0', 's1', 's2') }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('import' as const), size: fc.integer({ min: 1, max: 3 }) }) },
    )
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.array(create, { minLength: 2, maxLength: 20 }), async (cap, creates) => {
        await withSettings({ MAX_AGENTS_PER_ACCOUNT: String(cap) }, async () => {
          const { token, accountId } = await newCaller('agent race')
          const answers = await Promise.all(
            creates.map((c, i) =>
              c.kind === 'create'
                ? request('POST', '/v1/agents', { token, body: agentBody(`Burst ${i}`, c.slug) })
                : request('POST', '/v1/agents/import', { token, body: { agents: Array.from({ length: c.size }, (_, j) => agentBody(`Import ${i}.${j}`, null)) } }),
            ),
          )
          const created = answers.reduce((sum, r, i) => {
            const c = creates[i]
            return r.status === 201 ? sum + (c.kind === 'create' ? 1 : c.size) : sum
          }, 0)
          const owned = await count('SELECT count(*) AS n FROM agents WHERE owner_account_id = ?', accountId)
          expect(owned).toBe(created)
          expect(owned).toBeLessThanOrEqual(cap)
          expect(await count('SELECT count(*) AS n FROM (SELECT slug FROM agents WHERE owner_account_id = ? AND slug IS NOT NULL GROUP BY slug HAVING count(*) > 1)', accountId)).toBe(0)
          answers.forEach((r, i) => {
            if (r.status === 201) return
            const c = creates[i]
            if (r.status === 409) {
              expect(c.kind === 'create' && c.slug !== null).toBe(true)
              expectEnvelope(r, 409, 'CONFLICT', /already have an agent with slug/)
            } else expectEnvelope(r, 429, 'QUOTA_EXCEEDED', new RegExp(`at most ${cap} agents .*MAX_AGENTS_PER_ACCOUNT`))
          })
          // Single creates are refused only for a real reason: while room is left, each free slug and
          // each agent without a slug gets its place.
          if (creates.every((c) => c.kind === 'create')) {
            const wanted = creates.filter((c) => c.kind === 'create' && c.slug === null).length + new Set(creates.map((c) => (c.kind === 'create' ? c.slug : null)).filter(Boolean)).size
            expect(owned).toBe(Math.min(cap, wanted))
          }
        })
      }),
      { numRuns: 50 },
    )
  }, 60_000)
})

describe('built-in CRM upserts', () => {
  it('create one record per email or domain among concurrent updates, and answer each as a sequential update would', async () => {
    const { token, accountId } = await newCaller('crm race')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('email', 'domain'), fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 20 }), async (by, picks) => {
        const key = unique('upsert')
        const deals: string[] = []
        for (let i = 0; i < 3; i++) deals.push((await request('POST', '/v1/integrations/crm/builtin/objects/deals', { token, body: { properties: { dealname: `${key} ${i}` } } })).body.response.id)
        const contact = by === 'email'
        const ref = contact
          ? { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: `${key}@race.example` }
          : { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: `${key}.race.example` }
        const answers = await Promise.all(
          picks.map((p) =>
            action(
              'crm.v2.update_object',
              { ...ref, properties: JSON.stringify({ description: `pick ${p}` }), associations: JSON.stringify([{ to_object_type: 'deals', to_object_id: deals[p] }]) },
              token,
            ),
          ),
        )
        for (const r of answers) expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200)
        const column = contact ? 'email' : 'domain'
        const ids = await env.DB.prepare(`SELECT id FROM crm_objects WHERE account_id = ? AND ${column} = ?`).bind(accountId, ref.identifier_value).all<{ id: string }>()
        expect(ids.results).toHaveLength(1)
        const id = ids.results[0].id
        expect(new Set(answers.map((r) => r.body.response.id))).toEqual(new Set([id]))
        expect(answers.filter((r) => r.body.response.created === true)).toHaveLength(1)
        // Every request's association landed on that record, and none on an id no record has.
        const { results: links } = await env.DB.prepare(
          "SELECT from_type, from_id, to_id FROM crm_associations WHERE account_id = ? AND to_type = 'deals' AND to_id IN (SELECT value FROM json_each(?))",
        )
          .bind(accountId, JSON.stringify(deals))
          .all<{ from_type: string; from_id: string; to_id: string }>()
        expect(links.every((l) => l.from_type === ref.object_type && l.from_id === id)).toBe(true)
        expect(new Set(links.map((l) => l.to_id))).toEqual(new Set(picks.map((p) => deals[p])))
      }),
      { numRuns: 30 },
    )
  }, 60_000)
})

describe('token last use', () => {
  it('writes last_used_at once for a burst of requests with one token, as for requests one after another', async () => {
    // Counts the writes that set last_used_at (this file's D1 only).
    await env.DB.batch([
      env.DB.prepare('CREATE TABLE IF NOT EXISTS test_touches (token_id TEXT NOT NULL)'),
      env.DB.prepare('CREATE TRIGGER IF NOT EXISTS test_touch AFTER UPDATE OF last_used_at ON api_tokens BEGIN INSERT INTO test_touches VALUES (NEW.id); END'),
    ])
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 20 }), async (n) => {
        const { token, accountId } = await newCaller('touch race')
        await Promise.all(Array.from({ length: n }, () => request('GET', '/v1/me', { token })))
        const touches = () => count('SELECT count(*) AS n FROM test_touches t JOIN api_tokens a ON a.id = t.token_id WHERE a.account_id = ?', accountId)
        // The write follows the answer (waitUntil): wait for it to land.
        for (let i = 0; i < 40 && (await touches()) === 0; i++) await new Promise((r) => setTimeout(r, 25))
        expect(await touches()).toBe(1)
      }),
      { numRuns: 15 },
    )
  })
})

describe('grants', () => {
  it('never keep a grant made for a workflow that changed while it was being made', async () => {
    const [owner, granter] = await Promise.all([newCaller('grant race owner'), newCaller('grant race granter')])
    // Two workflows declaring different integrations: a grant made with the default covers what the one it saw declares.
    const workflows = [
      { steps: [{ id: 'look', action: 'crm.v2.lookup_object', input: { object_type: 'contacts', object_id: '{{input.q}}' } }] },
      { steps: [{ id: 'find', action: 'search', input: { query: '{{input.q}}' } }] },
    ]
    const declared = [['crm'], []]
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('grant', 'change'), { minLength: 2, maxLength: 20 }), async (ops) => {
        const created = await request('POST', '/v1/agents', { token: owner.token, body: { ...agentBody(unique('Granted'), null), visibility: 'public', workflow: workflows[0] } })
        const id = created.body.response.id as string
        let changes = 0
        const answers = await Promise.all(
          ops.map((op) =>
            op === 'grant' ? request('PUT', `/v1/grants/${id}`, { token: granter.token }) : request('PATCH', `/v1/agents/${id}`, { token: owner.token, body: { workflow: workflows[++changes % 2] } }),
          ),
        )
        answers.forEach((r, i) => {
          // A grant beaten by changes GRANT_ATTEMPTS times in a row says so and grants nothing.
          if (ops[i] === 'grant' && r.status === 409) expectEnvelope(r, 409, 'CONFLICT', /kept changing/)
          else expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200)
        })
        const agent = await env.DB.prepare('SELECT workflow FROM agents WHERE id = ?').bind(id).first<{ workflow: string }>()
        const final = declared[workflows.findIndex((w) => JSON.stringify(w) === agent!.workflow)]
        const grant = await env.DB.prepare('SELECT integrations FROM agent_grants WHERE account_id = ? AND agent_id = ?').bind(granter.accountId, id).first<{ integrations: string }>()
        // A grant that outlived every change was made on the workflow the agent has now.
        if (grant) expect(JSON.parse(grant.integrations)).toEqual(final)
      }),
      { numRuns: 150 },
    )
  })
})
