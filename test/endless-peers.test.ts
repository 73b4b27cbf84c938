/**
 * Peers that never stop: every loop whose next turn an upstream or a caller decides (a paging
 * cursor, a redirect, a Retry-After, a body that keeps coming, a sitemap index, a list of links to
 * follow, a crawl that hands over to the next queue message) ends within a documented bound, however
 * the peer answers: cursors that repeat or change forever, empty pages that point on, redirect
 * cycles, waits of years, indexes that list themselves, pages linking to ever more pages.
 */
import { env, SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crawlSome, seedFrontier } from '../src/crawler/crawl'
import { frontierCounts } from '../src/db/crawl'
import { insertRun } from '../src/db/runs'
import { redirectPath, type CrawledUrl } from '../src/audit/site-checks'
import { discoverSite, MAX_SITEMAP_FILES } from '../src/crawler/site'
import { HubSpotCrm } from '../src/crm/hubspot'
import { readPages } from '../src/providers/paging'
import { fetchLinkCard } from '../src/providers/atproto/card'
import { crawlSitePages } from '../src/seo/site-pages'
import { TICKERS_URL } from '../src/providers/edgar/client'
import { UpstreamError } from '../src/providers/errors'
import { financials, jobOpenings, MAX_JOB_BOARDS } from '../src/research/sections/external'
import { researchInputs } from '../src/research/report'
import type { ResearchInputs } from '../src/research/types'
import type { ActionContext } from '../src/runtime/context'
import { HubSpotClient } from '../src/providers/hubspot/client'
import { ASSOCIATION_PAGES, MAX_ASSOCIATED_IDS } from '../src/providers/hubspot/transform'
import { createGuardedFetch, type GuardedFetch } from '../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from './fake-dns'
import { json, newCaller, request, runningRun } from './helpers'

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
  cursor: fc.oneof(
    fc.constant({ kind: 'fresh' as const }),
    fc.integer({ min: 1, max: 12 }).map((cycle) => ({ kind: 'cycle' as const, cycle })),
    fc.constant({ kind: 'same' as const }),
  ),
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
      {
        numRuns: 40,
        examples: [[{ roots: 60, width: 0, listsItself: false, listsFirst: false, answers: ['404'] }], [{ roots: 0, width: 300, listsItself: true, listsFirst: true, answers: ['index', '500'] }]],
      },
    )
  })
})

/** The inputs of one research run over `fetch`, as the report builder makes them. */
const inputsOver = (domain: string, fetch: GuardedFetch): ResearchInputs => researchInputs({ fetch, config: { contactEmail: 'ops@example.org' } } as unknown as ActionContext, domain)

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
          const job = {
            title: 'Engineer',
            absolute_url: `https://${DOMAIN}/jobs/1`,
            updated_at: '2026-01-01',
            text: 'Engineer',
            hostedUrl: `https://${DOMAIN}/jobs/1`,
            jobUrl: `https://${DOMAIN}/jobs/1`,
          }
          return url.hostname === 'api.lever.co' ? json([job]) : json({ jobs: [job] })
        })
        const distinct = new Set(boards.map(([k, t]) => `${k}:${t}`)).size
        const outcome = await jobOpenings.run(inputsOver(DOMAIN, fetch)).catch((err: Error) => err)
        for (const url of requests) expect(BOARD_HOSTS).toContain(url.hostname)
        expect(new Set(requests.map(String)).size).toBe(Math.min(distinct, MAX_JOB_BOARDS))
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(UpstreamError)
          expect(status).toBe(500)
        }
        const said = outcome instanceof Error ? outcome.message : outcome.note
        if (distinct > MAX_JOB_BOARDS) expect(said).toContain(`${distinct - MAX_JOB_BOARDS} more job boards are linked from the site`)
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
            P414: symbols.map((t) => ({
              mainsnak: { snaktype: 'value', datavalue: { type: 'wikibase-entityid', value: { id: 'Q13677' } } },
              rank: 'normal',
              qualifiers: { P249: [{ datavalue: { type: 'string', value: t } }] },
            })),
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
        const outcome = await financials.run(inputsOver(DOMAIN, fetch))
        expect(tickerFiles).toBe(symbols.length === 0 ? 0 : 1)
        expect(outcome.status).toBe('unavailable')
        expect(outcome.note).toContain(listed ? 'no XBRL company facts for CIK 0000000042' : 'is not matched to an SEC registrant')
      }),
      { numRuns: 40 },
    )
  })
})

describe('the guarded client against an upstream that redirects, throttles and fails forever', () => {
  /** One answer of the upstream; the list of them repeats for as long as the client keeps asking. */
  const step = fc.oneof(
    fc.record({ kind: fc.constant('redirect' as const), status: fc.constantFrom(301, 302, 303, 307, 308), to: fc.constantFrom('fresh', 'self', 'start', 'other host') }),
    fc.record({
      kind: fc.constant('status' as const),
      status: fc.constantFrom(429, 500, 502, 503),
      retryAfter: fc.constantFrom(null, '0', '1', '5', '1000000000', '1e9', '-1', 'Fri, 31 Dec 9999 23:59:59 GMT', 'soon'),
    }),
    fc.constant({ kind: 'network' as const }),
  )

  it('sends at most retries + 1 + maxRedirects requests, never waits past its bound, and fails as an UpstreamError', async () => {
    const options = fc.record({
      retries: fc.integer({ min: 0, max: 4 }),
      maxRedirects: fc.integer({ min: 0, max: 8 }),
      maxRetryAfterMs: fc.integer({ min: 0, max: 20_000 }),
      method: fc.constantFrom('GET', 'POST'),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), options, async (steps, o) => {
        const requests: string[] = []
        const sleeps: number[] = []
        let hop = 0
        const fetch = guarded(
          (req) => {
            requests.push(req.url)
            const s = steps[(requests.length - 1) % steps.length]
            if (s.kind === 'network') throw new TypeError('Network connection lost.')
            if (s.kind === 'status') return new Response('busy', { status: s.status, headers: s.retryAfter === null ? {} : { 'retry-after': s.retryAfter } })
            hop++
            const to = s.to === 'fresh' ? `/hop/${hop}` : s.to === 'self' ? new URL(req.url).pathname : s.to === 'start' ? '/' : `https://h${hop}.example.org/`
            return new Response(null, { status: s.status, headers: { location: to } })
          },
          { sleeps },
        )
        const outcome = await fetch('https://loop.example.org/', { ...o, service: 'loop', body: o.method === 'POST' ? '{}' : undefined }).catch((err: unknown) => err)
        const retries = o.method === 'GET' ? o.retries : 0
        expect(requests.length).toBeLessThanOrEqual(retries + 1 + o.maxRedirects)
        expect(sleeps.length).toBeLessThanOrEqual(retries)
        for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(Math.max(o.maxRetryAfterMs, 250 * 2 ** retries))
        if (outcome instanceof Error) expect(outcome).toBeInstanceOf(UpstreamError)
        else expect(outcome).toBeInstanceOf(Response)
      }),
      { numRuns: 500 },
    )
  })

  it('stops reading a body that never ends at its size cap', async () => {
    let pulls = 0
    const chunk = new Uint8Array(64 * 1024)
    const fetch = guarded(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulls++
              controller.enqueue(chunk)
            },
          }),
        ),
    )
    const res = await fetch('https://stream.example.org/', { service: 'stream', maxBytes: 1024 * 1024 })
    await expect(res.text()).rejects.toMatchObject({ name: 'UpstreamError', kind: 'too_large' })
    // The cap, one chunk past it, and what the stream queued ahead.
    expect(pulls).toBeLessThanOrEqual(1024 / 64 + 4)
  })
})

describe('bodies that keep coming', () => {
  /** A body of `chunk` repeated forever, counting the chunks pulled from it. */
  function endless(chunk: Uint8Array, counter: { pulls: number }): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        counter.pulls++
        controller.enqueue(chunk)
      },
    })
  }

  it('reads a link card page that never ends up to the 1 MiB cap, and keeps its head', async () => {
    const counter = { pulls: 0 }
    const head = new TextEncoder().encode('<html><head><title>Endless</title></head><body>')
    let first = true
    const fetch = guarded(() => {
      const body = endless(new TextEncoder().encode('<p>more</p>'.repeat(6000)), counter)
      const withHead = body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (first) controller.enqueue(head)
            first = false
            controller.enqueue(chunk)
          },
        }),
      )
      return new Response(withHead, { headers: { 'content-type': 'text/html' } })
    })
    const card = await fetchLinkCard(fetch, 'https://endless.example.org/post')
    expect(card?.title).toBe('Endless')
    expect(counter.pulls).toBeLessThanOrEqual(Math.ceil((1024 * 1024) / 66_000) + 4)
  })

  it('stops unzipping a sitemap that inflates without end at 10 MiB', async () => {
    const zeros = new Blob([new Uint8Array(64 * 1024 * 1024)]).stream().pipeThrough(new CompressionStream('gzip'))
    const gz = new Uint8Array(await new Response(zeros).arrayBuffer())
    const fetch = guarded((req) => {
      const path = new URL(req.url).pathname
      if (path === '/robots.txt') return new Response('User-agent: *\nAllow: /\nSitemap: https://bomb.example.org/sitemap.xml.gz')
      if (path === '/sitemap.xml.gz') return new Response(gz, { headers: { 'content-type': 'application/gzip' } })
      return new Response('<html><body>home</body></html>', { headers: { 'content-type': 'text/html' } })
    })
    const site = await discoverSite(fetch, 'https://bomb.example.org/', 'full_site', undefined, 10)
    expect(site.sitemaps.errors).toEqual([{ url: 'https://bomb.example.org/sitemap.xml.gz', message: 'gzip: the unzipped sitemap is larger than 10485760 bytes' }])
  })
})

describe('a caller that never stops sending', () => {
  it('answers 413 once the body passes the limit, having read no more than that', async () => {
    const { token } = await newCaller('Endless body')
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = new TextEncoder().encode(sent === 0 ? '{"query":"' : 'a'.repeat(64 * 1024))
        sent += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    const res = await SELF.fetch('https://api.test/v1/action/search', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE')
    expect(sent).toBeLessThan(4 * 1024 * 1024)
  })
})

describe('a crawl handing over to the next queue message', () => {
  /** A site of endless pages: each links to `width` new ones, back to the start, into a robots-blocked part, and some redirect onwards. */
  function endlessSite(width: number, redirectEvery: number): GuardedFetch {
    return guarded((req) => {
      const path = new URL(req.url).pathname
      if (path === '/robots.txt') return new Response('User-agent: *\nDisallow: /private/\nAllow: /')
      if (!path.startsWith('/p/') && path !== '/') return new Response('missing', { status: 404 })
      const n = path === '/' ? 0 : Number(path.slice(3)) || 0
      if (n > 0 && n % redirectEvery === 0) return new Response(null, { status: 301, headers: { location: `/p/${n * 1000 + 7}` } })
      const links = Array.from({ length: width }, (_, i) => `<a href="/p/${n * width + i + 1}">Page ${i}</a><a href="/private/${n}-${i}">Hidden ${i}</a>`)
      return new Response(`<html lang="en"><title>Page ${n}</title><body><a href="/">Home</a>${links.join('')}</body></html>`, { headers: { 'content-type': 'text/html' } })
    })
  }

  it('ends within a bounded number of messages, fetching at most max_pages pages', async () => {
    const { accountId } = await newCaller('Endless crawl')
    await fc.assert(
      fc.asyncProperty(
        fc.record({ maxPages: fc.integer({ min: 1, max: 30 }), pagesPerMessage: fc.integer({ min: 5, max: 15 }), concurrency: fc.integer({ min: 1, max: 4 }) }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 2, max: 7 }),
        async (limits, width, redirectEvery) => {
          const runId = `run_${crypto.randomUUID().replace(/-/g, '')}`
          await insertRun(env.DB, runningRun(runId, accountId, 'content_audit_generate_audit_action'))
          const fetcher = endlessSite(width, redirectEvery)
          const site = await discoverSite(fetcher, 'https://endless.example.org/', 'full_site', undefined, limits.maxPages)
          await seedFrontier(env.DB, runId, site)
          // Each message finishes at least its share of URLs, and the frontier holds at most five per page.
          const most = Math.ceil((site.seeds.length + 5 * limits.maxPages) / limits.pagesPerMessage) + 1
          let messages = 0
          let state: 'done' | 'more' = 'more'
          while (state === 'more' && messages <= most) {
            messages++
            state = await crawlSome(env.DB, fetcher, runId, site, { ...limits, messageBudgetMs: 60_000 }, async () => undefined)
          }
          expect(state).toBe('done')
          expect(messages).toBeLessThanOrEqual(most)
          expect((await frontierCounts(env.DB, runId)).fetched).toBeLessThanOrEqual(limits.maxPages)
        },
      ),
      { numRuns: 8 },
    )
  })
})

describe('a site whose links never end, read for keyword research', () => {
  it('fetches at most the pages asked for, whatever the links and redirects', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 20 }), fc.boolean(), async (maxPages, width, redirects) => {
        const pages: string[] = []
        const fetch = guarded((req) => {
          const path = new URL(req.url).pathname
          if (path === '/robots.txt' || path === '/llms.txt' || path.includes('sitemap')) return new Response('none', { status: 404 })
          pages.push(path)
          const n = Number(path.slice(3)) || 0
          // Every other page redirects to the start or back to itself.
          if (redirects && n % 2 === 1) return new Response(null, { status: 301, headers: { location: n % 4 === 1 ? '/' : path } })
          const links = Array.from({ length: width }, (_, i) => `<a href="/p/${n * width + i + 1}">Page ${i}</a>`).join('')
          return new Response(`<html lang="en"><title>Page ${n}</title><body><a href="/">Home</a>${links}</body></html>`, { headers: { 'content-type': 'text/html' } })
        })
        const read = await crawlSitePages(fetch, 'https://wide.example.org/', maxPages)
        expect(read.pages_fetched).toBeLessThanOrEqual(maxPages)
        expect(pages.length).toBeLessThanOrEqual(maxPages)
      }),
      { numRuns: 30 },
    )
  })
})

describe('redirect chains in a crawl', () => {
  it('follows at most 11 hops from any URL, through cycles and chains alike', () => {
    const graph = fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.option(fc.integer({ min: 0, max: 40 }))), { maxLength: 80 })
    fc.assert(
      fc.property(graph, fc.integer({ min: 0, max: 40 }), (edges, start) => {
        const byUrl = new Map<string, CrawledUrl>()
        for (const [from, to] of edges)
          byUrl.set(`/u${from}`, { url: `/u${from}`, kind: to === null ? 'html' : 'redirect', status: to === null ? 200 : 301, location: to === null ? null : `/u${to}`, error: null })
        const path = redirectPath(`/u${start}`, byUrl)
        expect(path.hops.length).toBeLessThanOrEqual(11)
        if (path.loop) expect(path.final).toBeNull()
      }),
      { numRuns: 2000 },
    )
  })
})

describe('agent workflows', () => {
  it('cannot run an agent from a step, itself included, so a workflow is at most its 20 steps', async () => {
    const { token } = await newCaller('Recursive agent')
    const agent = (steps: { id: string; action: string; input: Record<string, unknown> }[]) => ({
      name: 'Self caller',
      description: 'Tries to run itself',
      visibility: 'private',
      parameters: { type: 'object', properties: { topic: { type: 'string', description: 'Topic' } }, required: [] },
      workflow: { steps },
    })
    const created = await request('POST', '/v1/agents', { token, body: agent([{ id: 'one', action: 'store_variable', input: { name: 'x', value: 'y' } }]) })
    expect(created.status).toBe(201)
    const id = created.body.response.id as string
    for (const action of ['invoke_agent', `invoke_agent_${id}`]) {
      const res = await request('PATCH', `/v1/agents/${id}`, { token, body: { workflow: { steps: [{ id: 'again', action, input: { agent_id: id } }] } } })
      expect(res.status).toBe(400)
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain('/workflow/steps/0/action')
    }
    const many = Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, action: 'store_variable', input: { name: `v${i}`, value: 'x' } }))
    expect((await request('POST', '/v1/agents', { token, body: agent(many) })).status).toBe(400)
  })
})
