/**
 * What the audit holds while it reads a crawl of pages built to hold the most: every page's facts
 * at their size limits, every string distinct, every page linking to every other. Measured in
 * Node's heap after collecting garbage; prints the figures. Run alone with
 * `npx vitest run --project node test/audit/memory.node.test.ts`.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { auditOf, startAnalysis } from '../../src/audit/build'
import type { CrawledPage } from '../../src/audit/site-checks'
import { PAGE_FACTS_MAX_BYTES, type PageRecord } from '../../src/crawler/fetch-page'
import type { SiteInfo } from '../../src/crawler/site'
import { limitHtmlFacts } from '../../src/providers/web/fact-limits'
import type { HtmlFacts } from '../../src/providers/web/html-facts'
import { htmlRecord } from './records'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

function heap(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const ORIGIN = 'https://hostile.test'
const PAGES = 1000
const url = (i: number) => `${ORIGIN}/p${i}`
/** Stands for the page's number in the JSON template, so every page's strings differ. */
const MARK = '@@'

/** One page's stored record as JSON with MARK where the page number goes: every field at its limit. */
function template(): string {
  const text = (n: number) => `${MARK} ${'Lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27))}`.slice(0, n)
  const facts: HtmlFacts = {
    lang: 'en',
    titles: [text(3000), ...Array.from({ length: 99 }, (_, i) => `${MARK}${i}`)],
    metaDescriptions: [text(9000)],
    metaRobots: [],
    viewport: false,
    canonicals: [],
    hreflangs: Array.from({ length: 500 }, (_, i) => ({ lang: `x-${MARK}${i}`, href: null })),
    feeds: [],
    // Many H1s (h1-multiple names them all) and unanswered questions.
    headings: Array.from({ length: 500 }, (_, i) => ({ level: i % 2 ? 1 : 2, text: `${text(100)} ${i}?`, answered: false, linked: false })),
    wordCount: 10,
    mainRegion: true,
    phraseCounts: Array.from({ length: 200 }, (_, i): [string, number] => [`${MARK} phrase ${i}`, i]),
    terms: Array.from({ length: 40 }, (_, i): [string, number] => [`${MARK} term ${text(200)} ${i}`, 3]),
    // Every page links to every page of the crawl.
    links: Array.from({ length: PAGES }, (_, i) => ({ url: url(i), text: '', nofollow: false })),
    externalLinks: 0,
    badAnchors: Array.from({ length: 50 }, () => ({ href: text(300), text: text(300), reason: 'link without href' })),
    vagueLinks: Array.from({ length: 50 }, () => ({ href: text(300), text: 'here', lang: 'en' })),
    images: 20,
    imagesWithoutAlt: Array.from({ length: 20 }, () => text(600)),
    jsonLd: { types: [], errors: Array.from({ length: 5 }, () => `JSON-LD block is not valid JSON: ${text(200)}`), author: false, datePublished: null, dateModified: null },
    microdataTypes: [],
    openGraph: {},
    mixedContent: Array.from({ length: 20 }, () => `http://${text(600)}`),
    lists: 0,
    tables: 0,
    author: null,
    published: null,
    modified: null,
    visibleByline: null,
    visibleDate: null,
  }
  const rec: PageRecord = { ...htmlRecord(url(0), ''), html: limitHtmlFacts(facts) }
  return JSON.stringify(rec)
}

const SITE = {
  startUrl: url(0),
  origin: ORIGIN,
  scope: { prefixes: [`${ORIGIN}/`], reason: 'the whole site' },
  robots: { url: `${ORIGIN}/robots.txt`, status: 200, text: '', errors: [], blockedAiCrawlers: [], crawlDelaySeconds: null },
  llmsTxt: { url: `${ORIGIN}/llms.txt`, present: false, status: 404, bytes: 0 },
  sitemaps: { fetched: [], errors: [], urlCount: 0, lastmod: {}, listed: [] },
  feeds: [],
  seeds: [url(0)],
} as unknown as SiteInfo

const options = { site: SITE, focus: 'balanced' as const, auditScope: 'full_site', maxPages: PAGES, notCrawled: 0, now: Date.now() }

/** Page `i` of the crawl, parsed from its stored JSON as the action reads it. */
const page = (json: string, i: number): CrawledPage => {
  const rec = JSON.parse(json.replaceAll(MARK, String(i)).replace(`"url":"${url(0)}"`, `"url":"${url(i)}"`)) as PageRecord
  return { url: url(i), depth: 1, source: 'link', rec }
}

describe('the audit holds a bounded amount of any crawl', () => {
  it('holds far less than the pages it reads, a page at a time', () => {
    const json = template()
    const recordBytes = Buffer.byteLength(json)
    // Each page near the size a stored record may take (the lists that only feed page checks are left short).
    expect(recordBytes).toBeGreaterThan(200 * 1024)
    expect(recordBytes).toBeLessThanOrEqual(PAGE_FACTS_MAX_BYTES)

    // What holding the records at once costs, as the audit did before (measured on 100 of them).
    const before = heap()
    const held = Array.from({ length: 100 }, (_, i) => page(json, i))
    const heldPerPage = (heap() - before) / held.length
    held.length = 0

    const start = heap()
    const urls = Array.from({ length: PAGES }, (_, i) => ({ url: url(i), kind: 'html' as const, status: 200, location: null, error: null }))
    const analysis = startAnalysis(options, urls)
    for (let i = 0; i < PAGES; i++) analysis.add(page(json, i))
    const analyzed = heap() - start
    const audit = auditOf(analysis, options)
    const withReport = heap() - start
    const reportBytes = Buffer.byteLength(JSON.stringify(audit))

    const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
    console.log(
      `audit memory: ${PAGES} pages of ${(recordBytes / 1024).toFixed(0)} KiB of facts each: ` +
        `held at once ${(heldPerPage / 1024).toFixed(0)} KiB of heap a page (${mb(heldPerPage * PAGES)} MB for ${PAGES}); ` +
        `read a page at a time, the analysis holds ${mb(analyzed)} MB, with the finished report ${mb(withReport)} MB (its JSON ${mb(reportBytes)} MB)`,
    )
    expect(audit.inventory).toHaveLength(PAGES)
    // A Worker has 128 MB; the pages themselves would take about ten times that.
    expect(withReport).toBeLessThan(64 * 1024 * 1024)
    expect(heldPerPage * PAGES).toBeGreaterThan(4 * withReport)
  })
})
