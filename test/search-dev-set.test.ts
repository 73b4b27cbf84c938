import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import devSet from './fixtures/search-dev-set.json'
import { seedDemoCatalog } from './seed'

// Shape and label checks for the search dev set (how it was written: test/fixtures/search-dev-set.md).
// The labels are checked against the seeded D1 rather than the JSON seed file so that a catalog change
// which drops, renames or hides an agent breaks this test instead of silently skewing search figures.

type Entry = { query: string; kind: string; relevant: string[] }

const ANSWERABLE = ['task', 'long', 'typo', 'keyword', 'multilingual'] as const
const entries = devSet as Entry[]

let publicIds: Set<string>

beforeAll(async () => {
  await seedDemoCatalog()
  const { results } = await env.DB.prepare("SELECT id FROM agents WHERE visibility = 'public'").all<{ id: string }>()
  publicIds = new Set(results.map((r) => r.id))
})

describe('search dev set', () => {
  it('has every entry in the documented shape', () => {
    for (const e of entries) {
      expect(Object.keys(e).sort(), e.query).toEqual(['kind', 'query', 'relevant'])
      expect(typeof e.query).toBe('string')
      expect(e.query.trim().length, e.query).toBeGreaterThan(0)
      expect([...ANSWERABLE, 'none'], e.query).toContain(e.kind)
      expect(Array.isArray(e.relevant)).toBe(true)
      if (e.kind === 'none') {
        expect(e.relevant, e.query).toEqual([])
      } else {
        expect(e.relevant.length, e.query).toBeGreaterThanOrEqual(1)
        expect(e.relevant.length, e.query).toBeLessThanOrEqual(3)
        expect(new Set(e.relevant).size, e.query).toBe(e.relevant.length)
      }
    }
  })

  it('has no repeated query', () => {
    const seen = new Set<string>()
    for (const e of entries) {
      const key = e.query.trim().toLowerCase()
      expect(seen.has(key), e.query).toBe(false)
      seen.add(key)
    }
  })

  it('keeps the size the figures are reported on', () => {
    expect(entries.length).toBeGreaterThanOrEqual(180)
    for (const kind of ANSWERABLE) expect(entries.filter((e) => e.kind === kind).length, kind).toBeGreaterThanOrEqual(30)
    expect(entries.filter((e) => e.kind === 'none').length).toBeGreaterThanOrEqual(25)
  })

  it('labels only agents a default (public) search of the seeded catalog can return', () => {
    expect(publicIds.size).toBeGreaterThan(0)
    for (const e of entries) {
      for (const id of e.relevant) expect(publicIds.has(id), `${e.query} -> ${id}`).toBe(true)
    }
  })
})
