/**
 * Peers that never stop: every loop whose next turn an upstream or a caller decides (a paging
 * cursor, a redirect, a Retry-After, a body that keeps coming, a sitemap index, a list of links to
 * follow, a crawl that hands over to the next queue message) ends within a documented bound, however
 * the peer answers: cursors that repeat or change forever, empty pages that point on, redirect
 * cycles, waits of years, indexes that list themselves, pages linking to ever more pages.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HubSpotCrm } from '../src/crm/hubspot'
import { readPages } from '../src/providers/paging'
import { HubSpotClient } from '../src/providers/hubspot/client'
import { ASSOCIATION_PAGES, MAX_ASSOCIATED_IDS } from '../src/providers/hubspot/transform'
import type { GuardedFetch } from '../src/providers/web/fetch'
import { json } from './helpers'

/** How a fake upstream pages a list: what each page holds and which cursor it names next. */
const paging = fc.record({
  /** Items on each page: none (an empty page that still points on) to far more than asked for. */
  size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 600 }), fc.constant(20_000)),
  /** Whether a page repeats the items of the first one instead of naming new ones. */
  repeatItems: fc.boolean(),
  /** The next cursor: a new one forever, one cycling through `cycle` values, or always the same. */
  cursor: fc.oneof(fc.constant({ kind: 'fresh' as const }), fc.integer({ min: 1, max: 12 }).map((cycle) => ({ kind: 'cycle' as const, cycle })), fc.constant({ kind: 'same' as const })),
})
type Paging = typeof paging extends fc.Arbitrary<infer T> ? T : never

/** Page `n` (0 for the first) of a list that never ends. */
function endlessPage(p: Paging, n: number): { items: number[]; next: string } {
  const first = p.repeatItems ? 0 : n * p.size
  const items = Array.from({ length: p.size }, (_, i) => first + i)
  const next = p.cursor.kind === 'fresh' ? `c${n + 1}` : p.cursor.kind === 'cycle' ? `c${(n + 1) % p.cursor.cycle}` : 'c'
  return { items, next }
}

/** Most requests a list paged this way may take: a cursor named before ends it. */
function mostRequests(p: Paging, maxPages: number): number {
  if (p.cursor.kind === 'same') return Math.min(maxPages, 2)
  if (p.cursor.kind === 'cycle') return Math.min(maxPages, p.cursor.cycle + 1)
  return maxPages
}

describe('a cursor-paged upstream list', () => {
  it('is read within its page and item bounds, and a cursor named before ends it', async () => {
    await fc.assert(
      fc.asyncProperty(paging, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 3000 }), async (p, maxPages, maxItems) => {
        const cursors: (string | undefined)[] = []
        const { items, truncated } = await readPages(
          { maxPages, maxItems },
          async (cursor) => {
            cursors.push(cursor)
            return endlessPage(p, cursors.length - 1)
          },
          String,
        )
        expect(truncated).toBe(true)
        expect(cursors.length).toBeLessThanOrEqual(mostRequests(p, maxPages))
        expect(items.length).toBeLessThanOrEqual(maxItems)
        expect(new Set(items).size).toBe(items.length)
      }),
      { numRuns: 300 },
    )
  })
})

describe('HubSpot associations of a lookup', () => {
  const BASE = 'https://api.hubapi.com'
  /** A portal whose association lists never end, paged as `p` says. */
  function portal(p: Paging, seen: URL[]): GuardedFetch {
    let served = 0
    return async (input) => {
      const url = new URL(String(input))
      seen.push(url)
      if (url.pathname === '/crm/v3/objects/contacts/1') return json({ id: '1', properties: { email: 'ada@example.com' }, createdAt: '', updatedAt: '', archived: false })
      const page = endlessPage(p, served++)
      return json({ results: page.items.map((id) => ({ toObjectId: id + 100 })), paging: { next: { after: page.next } } })
    }
  }

  it('sends at most ten page requests a type and returns at most 5,000 distinct ids, whatever the portal pages', async () => {
    await fc.assert(
      fc.asyncProperty(paging, async (p) => {
        const seen: URL[] = []
        const crm = new HubSpotCrm(new HubSpotClient(portal(p, seen), BASE, 'pat-na1-test'))
        const record = await crm.lookup({ objectType: 'contacts', ref: { by: 'id', value: '1' }, properties: ['email'], associations: ['deals'] })
        const pages = seen.filter((u) => u.pathname === '/crm/v4/objects/contacts/1/associations/deals')
        expect(pages.length).toBeGreaterThanOrEqual(1)
        expect(pages.length).toBeLessThanOrEqual(mostRequests(p, ASSOCIATION_PAGES))
        const ids = record.associations!.deals
        expect(ids.length).toBeLessThanOrEqual(MAX_ASSOCIATED_IDS)
        expect(new Set(ids).size).toBe(ids.length)
      }),
      { numRuns: 60, examples: [[{ size: 20_000, repeatItems: false, cursor: { kind: 'fresh' } }], [{ size: 0, repeatItems: false, cursor: { kind: 'same' } }]] },
    )
  })
})
