import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { action, createTeam, createToken, newCaller, request, type Json } from './helpers'
import { SEED_ACCOUNTS, seedDemoCatalog } from './seed'

let token: string

beforeAll(async () => {
  await seedDemoCatalog()
  token = (await newCaller('searcher')).token
})

const names = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.name as string)
const scores = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.score as number)

describe('search ranking', () => {
  it('puts agents named for the query first', async () => {
    const res = await action('search', { query: 'youtube transcript', limit: 5 }, token)
    expect(res.status).toBe(200)
    expect(
      names(res.body)
        .slice(0, 3)
        .every((n) => /youtube|transcript/i.test(n)),
    ).toBe(true)
    const s = scores(res.body)
    expect([...s].sort((a, b) => b - a)).toEqual(s)
    expect(s.every((x) => x >= 0 && x <= 1)).toBe(true)
  })
  it('completes a last word still being typed', async () => {
    // "podca" is no indexed word and too far from "podcast" for the typo fallback: only the prefix finds it.
    const res = await action('search', { query: 'podca', limit: 3 }, token)
    expect(names(res.body).length).toBeGreaterThan(0)
    expect(names(res.body).every((n) => /podcast/i.test(n))).toBe(true)
  })
  it('finds agents despite typos', async () => {
    const res = await action('search', { query: 'yuotube transcirpt' }, token)
    expect(res.status).toBe(200)
    expect(names(res.body)[0]).toMatch(/youtube|transcript/i)
  })
  it('lists by popularity when the query is empty', async () => {
    const res = await action('search', { limit: 5 }, token)
    const execs = (res.body.response as Json[]).map((h) => h.function.metadata.executions)
    expect([...execs].sort((a, b) => b - a)).toEqual(execs)
    expect(names(res.body)[0]).toBe('Agent Finder')
  })
})

describe('search visibility', () => {
  let owner: { token: string; accountId: string }
  let teammate: { token: string; accountId: string }
  let outsider: { token: string; accountId: string }

  beforeAll(async () => {
    owner = await newCaller('owner')
    teammate = await newCaller('teammate')
    outsider = await newCaller('outsider')
    const team = await createTeam('blue', [owner.accountId, teammate.accountId])
    const other = await createTeam('red', [outsider.accountId])
    const agent = (name: string, visibility: string, team_id?: string) => ({
      name,
      description: `Zebracorn ${visibility} helper for ${name}`,
      visibility,
      team_id,
      parameters: { type: 'object', properties: {}, required: [] },
      workflow: { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] },
    })
    for (const body of [agent('Zebra Public', 'public'), agent('Zebra Private', 'private'), agent('Zebra Team', 'team', team), agent('Zebra Red', 'team', other)]) {
      const who = body.name === 'Zebra Red' ? outsider : owner
      const res = await request('POST', '/v1/agents', { token: who.token, body })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
    }
  })

  const visible = async (who: { token: string }, status: string) => {
    const all: string[] = []
    for (let page = 0; page < 5; page++) {
      const res = await action('search', { query: 'zebracorn', status, limit: 1, page }, who.token)
      expect(res.status).toBe(200)
      all.push(...(res.body.response as Json[]).map((h) => h.function.metadata.name as string))
    }
    return all.sort()
  }

  it.each([
    ['owner', 'public', ['Zebra Public']],
    ['owner', 'private', ['Zebra Private']],
    ['owner', 'team', ['Zebra Team']],
    ['owner', 'all', ['Zebra Private', 'Zebra Public', 'Zebra Team']],
    ['teammate', 'private', []],
    ['teammate', 'team', ['Zebra Team']],
    ['teammate', 'all', ['Zebra Public', 'Zebra Team']],
    ['outsider', 'private', []],
    ['outsider', 'team', ['Zebra Red']],
    ['outsider', 'all', ['Zebra Public', 'Zebra Red']],
  ])('shows %s with status %s exactly %j', async (who, status, expected) => {
    const caller = who === 'owner' ? owner : who === 'teammate' ? teammate : outsider
    expect(await visible(caller, status)).toEqual(expected)
  })

  it('never returns seeded private or team agents of other accounts, whatever the query', async () => {
    for (const query of ['', 'private', 'team', 'acme', 'demo', 'growth', 'sales']) {
      for (let page = 0; page < 3; page++) {
        const res = await action('search', { query, status: 'all', limit: 100, page }, outsider.token)
        for (const h of res.body.response as Json[]) expect(h.function.metadata.status === 'public' || h.function.metadata.name === 'Zebra Red').toBe(true)
      }
    }
  })

  it('shows the demo account its private and team agents', async () => {
    const demo = await createToken(SEED_ACCOUNTS.demo.id)
    const res = await action('search', { status: 'private', limit: 100 }, demo)
    expect(res.body.response.length).toBe(6)
    const team = await action('search', { status: 'team', limit: 100 }, demo)
    expect(team.body.response.length).toBe(4)
  })
})

describe('search paging and limits', () => {
  it('caps limit at 100 and rejects limit below 1 and negative pages', async () => {
    const res = await action('search', { limit: 1000 }, token)
    expect(res.body.response).toHaveLength(100)
    expect((await action('search', { limit: 0 }, token)).body.details[0].path).toBe('/limit')
    expect((await action('search', { page: -1 }, token)).body.details[0].path).toBe('/page')
    expect((await action('search', { limit: 1.5 }, token)).status).toBe(400)
  })

  it('pages through one stable ordering', async () => {
    const whole = await action('search', { query: 'report weekly summary', limit: 30 }, token)
    const pages: string[] = []
    for (let page = 0; page < 3; page++) {
      const res = await action('search', { query: 'report weekly summary', limit: 10, page }, token)
      pages.push(...(res.body.response as Json[]).map((h) => h.function.name as string))
    }
    expect(pages).toEqual((whole.body.response as Json[]).map((h) => h.function.name))
    const s = scores(whole.body)
    expect([...s].sort((a, b) => b - a)).toEqual(s)
  })

  it('answers an empty page past the end', async () => {
    const res = await action('search', { query: 'youtube', page: 10_000 }, token)
    expect(res.body).toEqual({ status: 200, response: [] })
    expect((await action('search', { page: Number.MAX_SAFE_INTEGER }, token)).status).toBe(200)
  })
})

describe('hostile queries', () => {
  it.each([
    '"',
    '""""',
    "'; DROP TABLE agents; --",
    'youtube AND OR NOT NEAR(',
    'col:name ^start *',
    'name:secret',
    '(((((',
    '\u0000\u0001\u0002',
    '🦄🔥💯 émoji ünïcödé 中文检索 العربية',
    'a'.repeat(10_000),
    'word '.repeat(2000),
    '{{not.a.reference}}',
    'NEAR("a" "b", 2)',
    '\\"escaped\\"',
  ])('answers 200 for %j', async (query) => {
    const res = await action('search', { query: query.slice(0, 10_000) }, token)
    expect([200, 400]).toContain(res.status)
    if (query.includes('{{')) expect(res.status).toBe(400)
    else expect(res.status).toBe(200)
  })

  it('rejects a query over 10,000 characters with 400 naming the field', async () => {
    const res = await action('search', { query: 'a'.repeat(10_001) }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/query')
  })
})

describe('descriptors', () => {
  it('match the schema written from the spec, field for field', async () => {
    const res = await action('search', { query: 'meeting', limit: 20 }, token)
    expect(res.body.response.length).toBeGreaterThan(0)
    for (const hit of res.body.response as Json[]) {
      expect(Object.keys(hit)).toEqual(['type', 'function'])
      expect(hit.type).toBe('function')
      const f = hit.function
      expect(Object.keys(f)).toEqual(['name', 'description', 'metadata', 'parameters', 'strict'])
      expect(f.name).toBe(`invoke_agent_${f.metadata.id}`)
      expect(f.metadata.id).toMatch(/^[A-Za-z0-9]+$/)
      expect(f.description).toBe(`Invoke agent "${f.metadata.name}": ${f.metadata.description}`)
      // The spec's fields in the spec's order, then one field of ours: what the agent touches of a caller.
      expect(Object.keys(f.metadata)).toEqual([
        'id',
        'slug',
        'icon',
        'name',
        'description',
        'status',
        'type',
        'executions',
        'reviews_count',
        'reviews_score',
        'created_at',
        'updated_at',
        'score',
        'access',
      ])
      expect(Object.keys(f.metadata.access)).toEqual(['integrations', 'trusted'])
      expect(f.metadata.access.integrations.every((i: string) => ['crm', 'model'].includes(i))).toBe(true)
      expect(typeof f.metadata.access.trusted).toBe('boolean')
      expect(f.metadata.slug === null || typeof f.metadata.slug === 'string').toBe(true)
      expect(f.metadata.icon).toMatch(/^\//)
      expect(['public', 'private', 'team']).toContain(f.metadata.status)
      expect(f.metadata.type).toBe('studio')
      expect(Number.isInteger(f.metadata.executions)).toBe(true)
      expect(Number.isInteger(f.metadata.reviews_count)).toBe(true)
      expect(typeof f.metadata.reviews_score).toBe('number')
      for (const d of [f.metadata.created_at, f.metadata.updated_at]) {
        expect(d).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/)
      }
      expect(f.metadata.score).toBeGreaterThanOrEqual(0)
      expect(f.metadata.score).toBeLessThanOrEqual(1)
      expect(Object.keys(f.parameters)).toEqual(['type', 'properties', 'required', 'additionalProperties'])
      expect(f.parameters.type).toBe('object')
      expect(f.parameters.additionalProperties).toBe(false)
      for (const [, p] of Object.entries(f.parameters.properties as Record<string, Json>)) {
        expect(['string', 'number', 'integer', 'boolean']).toContain(p.type)
        expect(typeof p.description).toBe('string')
        if (p.enum) expect(p.enum.every((e: unknown) => typeof e === 'string')).toBe(true)
        if (p.default !== undefined) expect(typeof p.default).toBe('string')
      }
      expect(Array.isArray(f.parameters.required)).toBe(true)
      expect(f.strict).toBe(true)
    }
  })

  it('averages review scores exactly', async () => {
    const row = await env.DB.prepare("SELECT reviews_count, reviews_sum FROM agents WHERE id = 'acctbrief01'").first<{ reviews_count: number; reviews_sum: number }>()
    const res = await action('search', { query: 'LinkedIn-free Account Brief', limit: 1 }, token)
    expect(res.body.response[0].function.metadata).toMatchObject({ reviews_count: row!.reviews_count, reviews_score: Math.round((row!.reviews_sum / row!.reviews_count) * 100) / 100 })
  })
})

describe('search page cache', () => {
  // A page is cached when its query comes a second time, so each step asks twice before the change.
  const twice = async (query: string) => {
    const a = await action('search', { query }, token)
    const b = await action('search', { query }, token)
    expect(b.body).toEqual(a.body)
    return b
  }

  it('never serves a page older than the catalog', async () => {
    const { token: owner } = await newCaller('cache-owner')
    expect((await twice('quokkafy')).body.response).toEqual([])
    const created = await request('POST', '/v1/agents', {
      token: owner,
      body: { name: 'Quokkafy Helper', description: 'Quokkafy things', visibility: 'public', workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] } },
    })
    const id = created.body.response.id
    expect(names((await twice('quokkafy')).body)).toEqual(['Quokkafy Helper'])
    await action('invoke_agent', { id, input: {} }, owner)
    expect((await twice('quokkafy')).body.response[0].function.metadata.executions).toBe(1)
    await request('PATCH', `/v1/agents/${id}`, { token: owner, body: { visibility: 'private' } })
    expect((await action('search', { query: 'quokkafy' }, token)).body.response).toEqual([])
  })
})
