import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crawlSome, seedFrontier, type CrawlLimits } from '../../src/crawler/crawl'
import { PAGE_FACTS_MAX_BYTES, type PageRecord } from '../../src/crawler/fetch-page'
import { discoverSite } from '../../src/crawler/site'
import { donePages, enqueueUrls, nextPending } from '../../src/db/crawl'
import { insertRun } from '../../src/db/runs'
import { utf8Length } from '../../src/lib/json-size'
import { TEXT_LIMITS } from '../../src/providers/web/fact-limits'
import { MAX_DECIDED_URL_LENGTH } from '../../src/providers/web/robots-rules'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { runAudit } from '../audit/run-audit'
import { TEST_DNS, withFakeDns } from '../fake-dns'
import { fakeSite, htmlPage } from './fake-site'
import { hostilePageOfSize } from '../fixtures/hostile-facts'
import { mockFetch, newCaller, runningRun, type Json } from '../helpers'
import { withD1ValueLimit } from '../store-limits'

const ORIGIN = 'https://hostile.example.org'
/** Pages of 3 MB (the crawler's cap is 3 MiB), each with one field as long as the page allows. */
const HOSTILE: Record<string, string[]> = {
  '/title': ['title'],
  '/description': ['description'],
  '/heading': ['heading'],
  '/canonical': ['canonical'],
  '/json-ld': ['json-ld'],
  '/image': ['image src'],
  '/link-text': ['link text'],
  '/word': ['word'],
  '/all': ['title', 'description', 'heading', 'canonical', 'json-ld', 'image src', 'link text', 'word', 'open graph', 'bad anchor'],
}
const ORDINARY = ['/a', '/b', '/c']
const pages = new Map<string, string>()
const page = (path: string) => {
  if (!pages.has(path)) pages.set(path, hostilePageOfSize(HOSTILE[path], 3_000_000))
  return pages.get(path)!
}

/** The hostile site: a home page linking to every page, robots.txt, sitemap and llms.txt missing. */
async function hostileSite(req: Request): Promise<Response | null> {
  const url = new URL(req.url)
  if (url.origin !== ORIGIN) return null
  const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  if (url.pathname === '/')
    return html(
      `<html lang="en"><title>Home of the site</title><body><h1>Home</h1>${[...Object.keys(HOSTILE), ...ORDINARY].map((p) => `<a href="${p}">${p.slice(1)} page</a>`).join(' ')}</body></html>`,
    )
  if (url.pathname in HOSTILE) return html(page(url.pathname))
  if (ORDINARY.includes(url.pathname)) return html(`<html lang="en"><title>An ordinary page of the site: ${url.pathname}</title><body><h1>An ordinary page</h1><p>Words.</p></body></html>`)
  return new Response('not found', { status: 404 })
}

function siteFetch() {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async (input, init) => (await hostileSite(new Request(input, init))) ?? new Response('unmocked', { status: 599 })),
  })
}

async function newRun(): Promise<string> {
  const { accountId } = await newCaller()
  const id = `run_${crypto.randomUUID().replace(/-/g, '')}`
  await insertRun(env.DB, runningRun(id, accountId, 'content_audit_generate_audit_action'))
  return id
}

const limits: CrawlLimits = { maxPages: 100, concurrency: 4, pagesPerMessage: 1000, messageBudgetMs: 60_000 }
const noProgress = async () => undefined

async function crawl(db: D1Database): Promise<{ state: 'done' | 'more'; runId: string }> {
  const runId = await newRun()
  const fetcher = siteFetch()
  const site = await discoverSite(fetcher, `${ORIGIN}/`, 'full_site', undefined, 100)
  await seedFrontier(env.DB, runId, site)
  return { state: await crawlSome(db, fetcher, runId, site, limits, noProgress), runId }
}

describe('stored page facts of pages with megabytes-long fields', () => {
  // Failed before: the 3 MB title page stored 3,000,489 bytes of facts, past D1's 2,000,000, and
  // every other page here about as much or more (up to 4,000,439 for the word page).
  it('stores at most PAGE_FACTS_MAX_BYTES of facts for each page, whatever field is long', async () => {
    const { state, runId } = await crawl(env.DB)
    expect(state).toBe('done')
    const rows = await donePages(env.DB, runId, '', 1000)
    // The link-text page links to /p, which is missing.
    expect(
      rows
        .filter((r) => r.kind === 'html')
        .map((r) => r.url.slice(ORIGIN.length))
        .sort(),
    ).toEqual(['/', ...Object.keys(HOSTILE), ...ORDINARY].sort())
    // Named by the start of the URL: before, the canonical page led to a URL of 3 MB.
    for (const row of rows) expect(utf8Length(row.facts), row.url.slice(0, 80)).toBeLessThanOrEqual(PAGE_FACTS_MAX_BYTES)
    const title = JSON.parse(rows.find((r) => r.url === `${ORIGIN}/title`)!.facts) as PageRecord
    expect(title.html!.cut!.title!.length).toBe(squashedLength(page('/title'), 'title'))
  })

  // Failed before: D1 refused the batch holding a hostile page's row, so the ordinary pages written
  // with it were lost too and the crawl failed (its Queue message retried into the dead letters).
  it('crawls every page with a D1 that refuses values over 2,000,000 bytes, as production D1 does', async () => {
    const { state, runId } = await crawl(withD1ValueLimit(env.DB))
    expect(state).toBe('done')
    expect((await donePages(env.DB, runId, '', 1000)).filter((r) => r.kind === 'html').length).toBe(1 + Object.keys(HOSTILE).length + ORDINARY.length)
  })

  // Failed before: one insert bound all the URLs a batch of pages found, 4 MB here, which D1 refuses.
  it('adds thousands of long URLs to the frontier in inserts D1 takes, in their order', async () => {
    const runId = await newRun()
    const entries = Array.from({ length: 1000 }, (_, i) => ({ url: `${ORIGIN}/${String(i).padStart(4, '0')}${'x'.repeat(4000)}`, depth: 1, source: 'link' as const }))
    await enqueueUrls(withD1ValueLimit(env.DB), runId, entries, 0)
    expect((await nextPending(env.DB, runId, 2000)).map((e) => e.url)).toEqual(entries.map((e) => e.url))
  })

  // Failed before: the audit's own result (quoting the 3 MB titles) was 26 MB, past KV's 25 MiB,
  // and the run failed.
  it('audits the site with the lengths of the whole title and description', async () => {
    mockFetch(hostileSite)
    const { token } = await newCaller()
    const { run, response: audit } = await runAudit(token, { website_url: `${ORIGIN}/` })
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    const row = (path: string) => audit.inventory.find((r: Json) => r.url === `${ORIGIN}${path}`)
    const issue = (path: string, check: string) => row(path).issues.find((i: Json) => i.check === check)?.message
    const title = row('/title').title as string
    expect(utf8Length(JSON.stringify(title))).toBeLessThanOrEqual(TEXT_LIMITS.title + 2)
    expect(issue('/title', 'title-length')).toBe(`Title is ${squashedLength(page('/title'), 'title')} characters`)
    expect(issue('/description', 'meta-description-length')).toMatch(/^Description is \d{7} characters$/)
    expect(issue('/a', 'title-length')).toBeUndefined()
  })
})

describe('the site discovery a crawl stores', () => {
  // Failed before: every sitemap URL was kept whatever its length, and its lastmod whatever it held:
  // this site's discovery came to 9 MB (5,000 such URLs, in five sitemap files, to about 45 MB).
  it('keeps no sitemap URL the crawl cannot follow and no lastmod longer than a date', async () => {
    const origin = 'https://sitemaps.example.org'
    const long = (i: number) => `${origin}/${String(i).padStart(4, '0')}${'x'.repeat(4000)}`
    const entries = [
      ...Array.from({ length: 1000 }, (_, i) => `<url><loc>${long(i)}</loc><lastmod>${'2025-01-01 '.repeat(450)}</lastmod></url>`),
      `<url><loc>${origin}/short</loc><lastmod>2025-03-03</lastmod></url>`,
      `<url><loc>${origin}/odd</loc><lastmod>${'9'.repeat(65)}</lastmod></url>`,
    ]
    const sitemap = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</urlset>`
    expect(sitemap.length).toBeGreaterThan(8_000_000)
    const fetcher = fakeSite(
      (path) =>
        path === '/sitemap.xml' ? new Response(sitemap, { headers: { 'content-type': 'application/xml' } }) : htmlPage('<html lang="en"><title>A page</title><body><p>Words.</p></body></html>'),
      `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`,
    )
    const site = await discoverSite(fetcher, `${origin}/`, 'full_site', undefined, 100)
    expect(JSON.stringify(site).length).toBeLessThan(64 * 1024)
    expect(site.sitemaps.urlCount).toBe(2)
    expect(site.sitemaps.lastmod).toEqual({ [`${origin}/short`]: '2025-03-03' })
    expect(site.seeds).toContain(`${origin}/short`)
  })

  it('keeps exactly the sitemap URLs of at most 2,048 characters and the lastmods of at most 64, for any lengths around them (40 runs)', async () => {
    const origin = 'https://sitemaps.example.org'
    const entry = fc.record({
      urlLength: fc.oneof(fc.integer({ min: 40, max: 200 }), fc.integer({ min: MAX_DECIDED_URL_LENGTH - 2, max: MAX_DECIDED_URL_LENGTH + 2 }), fc.integer({ min: 2100, max: 9000 })),
      lastmod: fc.option(
        fc.oneof(
          fc.constant('2025-03-03T12:34:56+01:00'),
          fc.integer({ min: 60, max: 70 }).map((n) => '9'.repeat(n)),
        ),
        { nil: undefined },
      ),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 30 }), async (entries) => {
        const urls = entries.map((e, i) => {
          const head = `${origin}/${i}-`
          return head + 'p'.repeat(Math.max(0, e.urlLength - head.length))
        })
        const xml = entries.map((e, i) => `<url><loc>${urls[i]}</loc>${e.lastmod === undefined ? '' : `<lastmod>${e.lastmod}</lastmod>`}</url>`).join('')
        const sitemap = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${xml}</urlset>`
        const fetcher = fakeSite(
          (path) => (path === '/sitemap.xml' ? new Response(sitemap, { headers: { 'content-type': 'application/xml' } }) : htmlPage('<title>A page</title>')),
          `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`,
        )
        const site = await discoverSite(fetcher, `${origin}/`, 'full_site', undefined, 100)
        const kept = entries.flatMap((e, i) => (urls[i].length <= MAX_DECIDED_URL_LENGTH ? [[urls[i], e.lastmod] as const] : []))
        expect(site.sitemaps.urlCount).toBe(kept.length)
        expect(site.sitemaps.lastmod).toEqual(Object.fromEntries(kept.filter(([, l]) => l !== undefined && l.length <= 64)))
      }),
      { numRuns: 40, seed: 20261129 },
    )
  })
})

/** The length of the first `<title>`'s text as the page writes it (squashed). */
function squashedLength(html: string, tag: 'title'): number {
  const start = html.indexOf(`<${tag}>`) + tag.length + 2
  return html
    .slice(start, html.indexOf(`</${tag}>`, start))
    .replace(/\s+/g, ' ')
    .trim().length
}
