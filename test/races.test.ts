import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, newCaller, request, withSettings, type Json } from './helpers'

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
