/**
 * Peers that never stop: every loop whose next turn an upstream or a caller decides (a paging
 * cursor, a redirect, a Retry-After, a body that keeps coming, a sitemap index, a list of links to
 * follow, a crawl that hands over to the next queue message) ends within a documented bound, however
 * the peer answers: cursors that repeat or change forever, empty pages that point on, redirect
 * cycles, waits of years, indexes that list themselves, pages linking to ever more pages.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { discoverSite, MAX_SITEMAP_FILES } from '../src/crawler/site'
import { HubSpotCrm } from '../src/crm/hubspot'
import { readPages } from '../src/providers/paging'
import { TICKERS_URL } from '../src/providers/edgar/client'
import { UpstreamError } from '../src/providers/errors'
import { financials, jobOpenings, MAX_JOB_BOARDS } from '../src/research/sections/external'
import type { ResearchInputs } from '../src/research/types'
import type { ActionContext } from '../src/runtime/context'
import { HubSpotClient } from '../src/providers/hubspot/client'
import { ASSOCIATION_PAGES, MAX_ASSOCIATED_IDS } from '../src/providers/hubspot/transform'
import { createGuardedFetch, type GuardedFetch } from '../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from './fake-dns'
import { json } from './helpers'

/** The guarded client over `answer` (each request), its waits between retries skipped. */
function guarded(answer: (req: Request) => Response | Promise<Response>, extra: { maxRetryAfterMs?: number; sleeps?: number[] } = {}): GuardedFetch {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async (input, init) => answer(new Request(input, init))),
    sleep: async (ms) => void extra.sleeps?.push(ms),
  })
}

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

describe('sitemap indexes', () => {
  const ORIGIN = 'https://maps.example.org'
  /** A site of sitemap files that never ends: every index lists `width` new files, itself, or the first one again. */
  const world = fc.record({
    /** `Sitemap:` lines in robots.txt; none: /sitemap.xml is tried. */
    roots: fc.integer({ min: 0, max: 60 }),
    width: fc.integer({ min: 0, max: 300 }),
    listsItself: fc.boolean(),
    listsFirst: fc.boolean(),
    /** What file n answers: answers[n % length]. */
    answers: fc.array(fc.constantFrom('index', 'urlset', '404', '500', 'not xml'), { minLength: 1, maxLength: 4 }),
  })
  type World = typeof world extends fc.Arbitrary<infer T> ? T : never

  function serve(w: World, req: Request): Response {
    const path = new URL(req.url).pathname
    if (path === '/robots.txt') return new Response(['User-agent: *', 'Allow: /', ...Array.from({ length: w.roots }, (_, i) => `Sitemap: ${ORIGIN}/sm/${i}.xml`)].join('\n'))
    if (path === '/') return new Response('<html><body><a href="/a">A</a></body></html>', { headers: { 'content-type': 'text/html' } })
    const n = path === '/sitemap.xml' ? 0 : Number(/^\/sm\/(\d+)\.xml$/.exec(path)?.[1] ?? NaN)
    if (!Number.isInteger(n)) return new Response('missing', { status: 404 })
    const answer = w.answers[n % w.answers.length]
    if (answer === '404' || answer === '500') return new Response('no', { status: Number(answer) })
    if (answer === 'not xml') return new Response('<html>', { headers: { 'content-type': 'text/html' } })
    if (answer === 'urlset') return new Response(`<urlset>${[1, 2, 3].map((i) => `<url><loc>${ORIGIN}/p${n}-${i}</loc></url>`).join('')}</urlset>`)
    const children = Array.from({ length: w.width }, (_, i) => n * w.width + i + 1)
    if (w.listsItself) children.push(n)
    if (w.listsFirst) children.push(0)
    return new Response(`<sitemapindex>${children.map((c) => `<sitemap><loc>${ORIGIN}/sm/${c}.xml</loc></sitemap>`).join('')}</sitemapindex>`)
  }

  it(`requests at most ${MAX_SITEMAP_FILES} sitemap files, answered or not, however many the indexes list`, async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const requests: string[] = []
        const fetcher = guarded((req) => {
          const path = new URL(req.url).pathname
          if (path === '/sitemap.xml' || path.startsWith('/sm/')) requests.push(path)
          return serve(w, req)
        })
        const site = await discoverSite(fetcher, ORIGIN, 'full_site', undefined, 100)
        expect(new Set(requests).size).toBeLessThanOrEqual(MAX_SITEMAP_FILES)
        // One retry for a 500.
        expect(requests.length).toBeLessThanOrEqual(2 * MAX_SITEMAP_FILES)
        expect(new Set([...site.sitemaps.fetched, ...site.sitemaps.errors.map((e) => e.url)]).size).toBeLessThanOrEqual(MAX_SITEMAP_FILES)
      }),
      { numRuns: 40, examples: [[{ roots: 60, width: 0, listsItself: false, listsFirst: false, answers: ['404'] }], [{ roots: 0, width: 300, listsItself: true, listsFirst: true, answers: ['index', '500'] }]] },
    )
  })
})

/** The inputs of one research run over `fetch`, as the report builder makes them. */
function researchInputs(domain: string, fetch: GuardedFetch): ResearchInputs {
  const loads = new Map<string, Promise<unknown>>()
  const ctx = { fetch, config: { contactEmail: 'ops@example.org' } } as unknown as ActionContext
  return {
    domain,
    ctx,
    results: {},
    once<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!loads.has(key)) loads.set(key, load())
      return loads.get(key) as Promise<T>
    },
  }
}

describe('company research fan-out from upstream lists', () => {
  const DOMAIN = 'boards.example.org'
  const KINDS = ['greenhouse', 'lever', 'ashby'] as const
  const boardLink = (kind: (typeof KINDS)[number], token: string) =>
    kind === 'greenhouse' ? `https://boards.greenhouse.io/${token}` : kind === 'lever' ? `https://jobs.lever.co/${token}` : `https://jobs.ashbyhq.com/${token}`
  const BOARD_HOSTS = ['boards-api.greenhouse.io', 'api.lever.co', 'api.ashbyhq.com']

  it(`reads at most ${MAX_JOB_BOARDS} job boards however many the site links, and says how many it left`, async () => {
    const links = fc.array(fc.tuple(fc.constantFrom(...KINDS), fc.stringMatching(/^[a-z0-9]{1,12}$/)), { maxLength: 400 })
    await fc.assert(
      fc.asyncProperty(links, fc.constantFrom(200, 404, 500), async (boards, status) => {
        const requests: URL[] = []
        const html = `<html><body>${boards.map(([k, t]) => `<a href="${boardLink(k, t)}">Jobs</a>`).join('')}</body></html>`
        const fetch = guarded((req) => {
          const url = new URL(req.url)
          if (url.hostname === DOMAIN) return new Response(url.pathname === '/' ? html : 'none', { status: url.pathname === '/' ? 200 : 404, headers: { 'content-type': 'text/html' } })
          requests.push(url)
          if (status !== 200) return new Response('board trouble', { status })
          const job = { title: 'Engineer', absolute_url: `https://${DOMAIN}/jobs/1`, updated_at: '2026-01-01', text: 'Engineer', hostedUrl: `https://${DOMAIN}/jobs/1`, jobUrl: `https://${DOMAIN}/jobs/1` }
          return url.hostname === 'api.lever.co' ? json([job]) : json({ jobs: [job] })
        })
        const distinct = new Set(boards.map(([k, t]) => `${k}:${t}`)).size
        const outcome = await jobOpenings.run(researchInputs(DOMAIN, fetch)).catch((err: unknown) => err)
        for (const url of requests) expect(BOARD_HOSTS).toContain(url.hostname)
        expect(new Set(requests.map(String)).size).toBe(Math.min(distinct, MAX_JOB_BOARDS))
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(UpstreamError)
          expect(status).toBe(500)
        } else if (distinct > MAX_JOB_BOARDS) {
          expect(outcome.note).toContain(`${distinct - MAX_JOB_BOARDS} more job boards are linked from the site`)
        }
      }),
      { numRuns: 40, examples: [[Array.from({ length: 300 }, (_, i) => [KINDS[i % 3], `co${i}`] as [(typeof KINDS)[number], string]), 200]] },
    )
  })

  it('fetches the SEC ticker file once however many tickers the Wikidata item lists', async () => {
    const symbol = fc.stringMatching(/^[A-Z]{1,5}$/)
    await fc.assert(
      fc.asyncProperty(fc.array(symbol, { maxLength: 300 }), fc.option(fc.nat()), async (symbols, listedAt) => {
        const listed = listedAt === null || symbols.length === 0 ? null : symbols[listedAt % symbols.length]
        let tickerFiles = 0
        const entity = {
          id: 'Q1',
          claims: {
            P856: [{ mainsnak: { snaktype: 'value', datavalue: { type: 'string', value: `https://${DOMAIN}/` } }, rank: 'normal' }],
            P414: symbols.map((t) => ({ mainsnak: { snaktype: 'value', datavalue: { type: 'wikibase-entityid', value: { id: 'Q13677' } } }, rank: 'normal', qualifiers: { P249: [{ datavalue: { type: 'string', value: t } }] } })),
          },
        }
        const fetch = guarded((req) => {
          const url = new URL(req.url)
          if (url.hostname === 'query.wikidata.org') return json({ results: { bindings: [{ item: { type: 'uri', value: 'http://www.wikidata.org/entity/Q1' } }] } })
          if (url.hostname === 'www.wikidata.org') return json({ entities: url.searchParams.get('ids') === 'Q1' ? { Q1: entity } : {} })
          if (url.toString() === TICKERS_URL) {
            tickerFiles++
            return json({ 0: { cik_str: 320193, ticker: 'ZZZZZZ', title: 'Other' }, ...(listed ? { 1: { cik_str: 42, ticker: listed, title: 'Listed Inc.' } } : {}) })
          }
          if (url.hostname === 'data.sec.gov') return new Response('none', { status: 404 })
          return new Response('unexpected', { status: 599 })
        })
        const outcome = await financials.run(researchInputs(DOMAIN, fetch))
        expect(tickerFiles).toBe(symbols.length === 0 ? 0 : 1)
        expect(outcome.status).toBe('unavailable')
        expect(outcome.note).toContain(listed ? 'no XBRL company facts for CIK 0000000042' : 'is not matched to an SEC registrant')
      }),
      { numRuns: 40 },
    )
  })
})
