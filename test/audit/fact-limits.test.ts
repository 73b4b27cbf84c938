import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CrawlAnalysis } from '../../src/audit/analyze'
import { pageFindings, THIN_CONTENT_WORDS } from '../../src/audit/page-checks'
import { crawledUrl, type CrawledPage } from '../../src/audit/site-checks'
import { fetchPage, PAGE_FACTS_MAX_BYTES, type PageRecord } from '../../src/crawler/fetch-page'
import { crawlable, normalizeUrl } from '../../src/crawler/scope'
import type { SiteInfo } from '../../src/crawler/site'
import { utf8Length } from '../../src/lib/json-size'
import { squash } from '../../src/lib/text'
import { HTML_FACTS_MAX_BYTES, limitHtmlFacts, MAX_URL_LENGTH, TEXT_LIMITS } from '../../src/providers/web/fact-limits'
import { MAX_DECIDED_URL_LENGTH } from '../../src/providers/web/robots-rules'
import type { GuardedFetch } from '../../src/providers/web/fetch'
import { extractHtmlText, type HtmlFacts } from '../../src/providers/web/html'
import * as before from '../fixtures/before-facts/html'
import { htmlRecord } from './records'
import { HOSTILE_FIELDS, hostilePage, hostilePageOfSize } from '../fixtures/hostile-facts'
import failureCases from '../fixtures/lighthouse-seo/seo-failure-cases.html?raw'
import mixedLanguage from '../fixtures/lighthouse-seo/seo-mixed-language.html?raw'
import tester from '../fixtures/lighthouse-seo/seo-tester.html?raw'
import { BRIGHTDESK_HTML, BRIGHTDESK_ORIGIN, brightdesk } from '../fixtures/sites/brightdesk'
import { HTML_PATHS, ORIGIN, trailgear } from '../fixtures/sites/trailgear'

const PAGE_URL = 'https://hostile.test/page'
/** D1's limit on one value (and one row), in bytes. */
const D1_MAX_VALUE = 2_000_000

/** Bytes of the JSON text as D1 stores it (UTF-8). */
const storedBytes = (value: unknown) => utf8Length(JSON.stringify(value))

/** Every string in a JSON value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value)
  else if (Array.isArray(value)) for (const v of value) strings(v, out)
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k)
      strings(v, out)
    }
  }
  return out
}

/** A guarded fetch that answers every URL with `html` and `headers`. */
function serving(html: string, headers: Record<string, string> = {}): GuardedFetch {
  return async () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', ...headers } })
}

/** Code units a fill repeats: one byte, two, three and four (a surrogate pair) of UTF-8, a 6-byte JSON escape, escaped quotes, spaces. */
const UNITS = ['a', 'é', '語', '😀', '\u0001', '"', '\\', 'a ', '-']
const fill = (minRepeats: number, maxRepeats: number) => fc.tuple(fc.constantFrom(...UNITS), fc.integer({ min: minRepeats, max: maxRepeats })).map(([u, n]) => u.repeat(n))
const hostileFields = (minRepeats: number, maxRepeats: number, maxFields: number) =>
  fc.array(fc.tuple(fc.constantFrom(...Object.keys(HOSTILE_FIELDS)), fill(minRepeats, maxRepeats)), { minLength: 1, maxLength: maxFields })

function expectBounded(html: string, url = PAGE_URL): HtmlFacts {
  const facts = extractHtmlText(html, url)
  expect(storedBytes(facts)).toBeLessThanOrEqual(HTML_FACTS_MAX_BYTES)
  expect(strings(facts).every((s) => s.isWellFormed())).toBe(true)
  return facts
}

describe('page facts have a fixed size whatever the page (hostile fields)', () => {
  it('stays within the bound for any fields of up to tens of KB, in any characters', () => {
    fc.assert(
      fc.property(hostileFields(1, 20_000, 4), (fields) => {
        expectBounded(hostilePage(fields))
      }),
      { numRuns: 150 },
    )
  })

  it('stays within the bound for fields of megabytes', () => {
    fc.assert(
      fc.property(hostileFields(300_000, 1_000_000, 3), (fields) => {
        expectBounded(hostilePage(fields))
      }),
      { numRuns: 6 },
    )
  })

  // Failed before: a 3 MB page of one long title kept 3 MB of facts (the stored row past D1's
  // 2,000,000 bytes), and so did a page of any of these fields but an invalid JSON-LD block (its
  // error was cut already); the heading, link text and byline were cut, their words were not.
  it('keeps a 3 MB page of any one long field, or of all of them, within the bound', () => {
    for (const name of Object.keys(HOSTILE_FIELDS)) {
      const html = hostilePageOfSize([name], 3_000_000)
      if (name !== 'json-ld invalid') expect(storedBytes(before.extractHtmlText(html, PAGE_URL)), name).toBeGreaterThan(D1_MAX_VALUE)
      expectBounded(html)
    }
    for (const unit of ['語', '\u0001', '😀']) {
      const all = hostilePageOfSize(Object.keys(HOSTILE_FIELDS), 3_000_000, unit)
      expect(storedBytes(before.extractHtmlText(all, PAGE_URL))).toBeGreaterThan(D1_MAX_VALUE)
      expectBounded(all)
    }
  })

  it('keeps a record of hostile headers and a page of hostile fields within the record bound', async () => {
    const url = `https://hostile.test/?${'\\'.repeat(MAX_URL_LENGTH - 'https://hostile.test/?'.length)}`
    await fc.assert(
      fc.asyncProperty(hostileFields(1, 100_000, 3), fc.integer({ min: 1, max: 1_000_000 }), async (fields, n) => {
        const headers = {
          'content-type': `text/html; charset=utf-8; x=${'a'.repeat(n)}`,
          'x-robots-tag': `noindex, ${'a'.repeat(n)}`,
          'last-modified': 'a'.repeat(n),
          link: Array.from({ length: Math.min(n, 5000) }, (_, i) => `<${'b'.repeat(Math.ceil(n / 5000))}${i}>; rel="alternate ${'c'.repeat(n % 300)}"; hreflang="${'d'.repeat(n % 200)}"`).join(', '),
        }
        const rec = await fetchPage(serving(hostilePage(fields), headers), url)
        expect(rec.kind).toBe('html')
        expect(storedBytes(rec)).toBeLessThanOrEqual(PAGE_FACTS_MAX_BYTES)
      }),
      { numRuns: 20 },
    )
  })

  it('adds up to at most the documented bound with every field at its longest at once', async () => {
    // The worst the extractor can hand over: every list at its entry cap, of entries just small
    // enough to fill its byte limit, every string of 6-byte escapes (URLs of 2-byte backslashes,
    // as a serialized URL escapes nothing else), and what it cuts itself (heading and link texts,
    // bylines, JSON-LD errors) at its cut.
    const big = '\u0001'.repeat(200_000)
    const esc = (n: number) => '\u0001'.repeat(n)
    const url = (n: number) => '\\'.repeat(n)
    const n = Number.MAX_SAFE_INTEGER
    const worst: HtmlFacts = {
      lang: big,
      titles: [big, ...Array<string>(99).fill(esc(4))],
      metaDescriptions: [big, ...Array<string>(99).fill(esc(10))],
      metaRobots: Array(100).fill({ name: esc(3), content: esc(4) }),
      viewport: false,
      canonicals: Array<string>(100).fill(esc(30)),
      hreflangs: Array(500).fill({ lang: esc(2), href: esc(5) }),
      feeds: Array<string>(100).fill(url(80)),
      headings: Array(500).fill({ level: 6, text: esc(20), answered: false, linked: false }),
      wordCount: n,
      mainRegion: false,
      phraseCounts: Array.from({ length: 200 }, (_, i): [string, number] => [`${i}${esc(6)}`, n]),
      terms: Array.from({ length: 40 }, (_, i): [string, number] => [`${i}${big}`, n]),
      links: Array(300).fill({ url: url(100), text: esc(20), nofollow: false }),
      externalLinks: n,
      badAnchors: Array(50).fill({ href: esc(40), text: esc(100), reason: 'link without href, handled by a script' }),
      vagueLinks: Array(50).fill({ href: esc(40), text: esc(100), lang: esc(4) }),
      images: n,
      imagesWithoutAlt: Array<string>(20).fill(big),
      jsonLd: { types: Array<string>(100).fill(esc(10)), errors: Array<string>(5).fill(`JSON-LD block is not valid JSON: ${esc(120)}`), author: false, datePublished: big, dateModified: big },
      microdataTypes: Array<string>(100).fill(esc(10)),
      openGraph: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`og:${i}${esc(30)}`, esc(60)])),
      mixedContent: Array<string>(20).fill(big),
      lists: n,
      tables: n,
      author: big,
      published: big,
      modified: big,
      visibleByline: esc(120),
      visibleDate: 'September 30th, 2025'.padEnd(64, 'x'),
    }
    const facts = limitHtmlFacts(worst)
    expect(facts.cut?.title?.length).toBe(200_000)
    const factsBytes = storedBytes(facts)
    expect(factsBytes).toBeLessThanOrEqual(HTML_FACTS_MAX_BYTES)

    const headers = {
      'content-type': `text/html; x=${'\\'.repeat(100_000)}`,
      'x-robots-tag': '\\'.repeat(100_000),
      'last-modified': '\\'.repeat(100_000),
      link: `<${'\\'.repeat(MAX_URL_LENGTH)}>; rel=canonical, `.repeat(20),
    }
    const pageUrl = `https://hostile.test/?${'\\'.repeat(MAX_URL_LENGTH - 'https://hostile.test/?'.length)}`
    const rec: PageRecord = await fetchPage(serving('<title>t</title>', headers), pageUrl)
    rec.html = facts
    rec.fetchMs = n
    rec.parseMs = n
    rec.status = 999
    const recordBytes = storedBytes(rec)
    expect(recordBytes).toBeLessThanOrEqual(PAGE_FACTS_MAX_BYTES)
    const redirect: PageRecord = { ...rec, kind: 'redirect', html: null, location: pageUrl, error: esc(300) }
    expect(storedBytes(redirect)).toBeLessThanOrEqual(PAGE_FACTS_MAX_BYTES)
    // The documented bounds are the worst case's, not far above it (294,577 and 313,696 bytes now).
    expect(factsBytes).toBeGreaterThan(HTML_FACTS_MAX_BYTES - 16 * 1024)
    expect(recordBytes).toBeGreaterThan(PAGE_FACTS_MAX_BYTES - 32 * 1024)
  })
})

describe('URLs that name a page', () => {
  it('keeps a link, canonical, alternate or feed of up to 8,192 characters whole, and not a longer one', () => {
    const scope = { kind: 'full_site' as const, site: 'hostile.test', prefixes: [], reason: '' }
    for (const [length, kept] of [
      [MAX_URL_LENGTH, true],
      [MAX_URL_LENGTH + 1, false],
    ] as const) {
      const url = `https://hostile.test/${'a'.repeat(length - 'https://hostile.test/'.length)}`
      const head = `<link rel="canonical" href="${url}"><link rel="alternate" hreflang="de" href="${url}"><link rel="alternate" type="application/rss+xml" href="${url}">`
      const facts = extractHtmlText(`<html><head>${head}</head><body><a href="${url}">next page</a></body></html>`, PAGE_URL)
      expect(facts.canonicals).toEqual(kept ? [url] : [])
      expect(facts.hreflangs).toEqual(kept ? [{ lang: 'de', href: url }] : [])
      expect(facts.feeds).toEqual(kept ? [url] : [])
      expect(facts.links.map((l) => l.url)).toEqual(kept ? [url] : [])
      expect(normalizeUrl(url)).toBe(kept ? url : null)
      // Named in the facts up to 8,192, followed by the crawl up to 2,048 (its robots.txt decisions are bounded for those).
      expect(crawlable(scope, url)).toBe(length <= MAX_DECIDED_URL_LENGTH)
    }
  })
})

// ---------- ordinary pages: the facts are exactly as before ----------

/** Characters of ordinary text: letters of several scripts, an emoji, punctuation, entities. */
const CHARS = ['a', 'b', 'e', 'k', 'o', 's', 't', ' ', ' ', ' ', 'é', 'ü', '語', '日', '😀', '-', ',', '.', '?', '"', "'", '&amp;', '1', 'A', 'T']
const words = (min: number, max: number) => fc.array(fc.constantFrom(...CHARS), { minLength: min, maxLength: max }).map((c) => c.join(''))
const q = (s: string) => s.replace(/"/g, '&quot;')
const path = fc.array(fc.constantFrom('a', 'b', 'tent', 'blog', '-', '/', '%20', 'é', '?x=1', '語'), { minLength: 1, maxLength: 60 }).map((p) => `/${p.join('')}`)
const OG = ['og:title', 'og:description', 'og:image', 'og:type', 'og:url', 'og:site_name']
const TYPES = ['Article', 'BlogPosting', 'FAQPage', 'Organization', 'Product', 'HowTo']

const block = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), words(0, 250), fc.boolean(), path).map(([l, t, linked, p]) => (linked ? `<h${l}><a href="${q(p)}">${t}</a></h${l}>` : `<h${l}>${t}</h${l}>`)),
  fc.tuple(words(0, 600), path, words(0, 150)).map(([t, p, a]) => `<p>${t} <a href="${q(p)}">${a}</a></p>`),
  fc
    .array(fc.tuple(path, words(0, 150), fc.boolean()), { maxLength: 30 })
    .map((ls) => `<ul>${ls.map(([p, t, nf]) => `<li><a href="${q(p)}"${nf ? ' rel="nofollow"' : ''}>${t}</a></li>`).join('')}</ul>`),
  fc.tuple(fc.constantFrom('https://other.test', 'http://cdn.test', ''), path, fc.option(words(0, 80))).map(([o, p, alt]) => `<img src="${q(o + p)}"${alt === null ? '' : ` alt="${q(alt)}"`}>`),
  fc.constantFrom(
    '<p>By Ana Ruiz · March 3, 2025</p>',
    '<time datetime="2024-05-01">May</time>',
    '<table><tr><td>1</td></tr></table>',
    '<a href="javascript:void(0)">x</a>',
    '<a href="https://other.test/">read more</a>',
  ),
  fc.tuple(fc.constantFrom('nav', 'footer', 'main', 'article', 'aside'), words(0, 200)).map(([t, w]) => `<${t}><p>${w}</p></${t}>`),
)

const ordinaryPage = fc
  .record({
    lang: fc.constantFrom('en', 'de', 'fr', 'ja', 'en-US', ''),
    titles: fc.array(words(0, 300), { maxLength: 2 }),
    descriptions: fc.array(words(0, 2000), { maxLength: 2 }),
    robots: fc.array(fc.constantFrom('index, follow', 'noindex', 'max-snippet:-1, max-image-preview:large'), { maxLength: 2 }),
    og: fc.array(fc.tuple(fc.constantFrom(...OG), words(0, 300)), { maxLength: 6 }),
    canonicals: fc.array(path, { maxLength: 2 }),
    hreflangs: fc.array(fc.tuple(fc.constantFrom('en', 'de-AT', 'x-default', 'zz', 'fr'), path), { maxLength: 20 }),
    jsonLd: fc.array(fc.tuple(fc.constantFrom(...TYPES), fc.constantFrom('2024-01-02', 'March 3, 2025')), { maxLength: 2 }),
    blocks: fc.array(block, { maxLength: 60 }),
    url: path,
  })
  .map((p) => {
    const head = [
      ...p.titles.map((t) => `<title>${t}</title>`),
      ...p.descriptions.map((d) => `<meta name="description" content="${q(d)}">`),
      ...p.robots.map((r) => `<meta name="robots" content="${r}">`),
      ...p.og.map(([k, v]) => `<meta property="${k}" content="${q(v)}">`),
      ...p.canonicals.map((c) => `<link rel="canonical" href="${q(c)}">`),
      ...p.hreflangs.map(([l, h]) => `<link rel="alternate" hreflang="${l}" href="${q(h)}">`),
      ...p.jsonLd.map(([t, d]) => `<script type="application/ld+json">{"@type":"${t}","author":{"name":"Sam"},"datePublished":"${d}"}</script>`),
    ].join('')
    return { html: `<!doctype html><html lang="${p.lang}"><head>${head}</head><body>${p.blocks.join('\n')}</body></html>`, url: `https://site.test${p.url}` }
  })

/** The old facts, but for half a surrogate pair its own cuts (headings, link texts) left at a string's end. */
function healed<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_k, v: unknown) => (typeof v === 'string' ? v.replace(/[\ud800-\udbff]$/, '') : v)) as T
}

describe('page facts of ordinary pages are exactly as before', () => {
  it('stores the same facts as the extractor before the limits, on generated ordinary pages', () => {
    fc.assert(
      fc.property(ordinaryPage, ({ html, url }) => {
        const now = extractHtmlText(html, url)
        expect(now.cut).toBeUndefined()
        expect(JSON.stringify(now)).toBe(JSON.stringify(healed(before.extractHtmlText(html, url))))
      }),
      { numRuns: 400 },
    )
  })

  it('cuts a long heading before an emoji its 200th code unit would split, where it kept half of it', () => {
    const html = `<body><h2>${'a'.repeat(199)}😀 more</h2>`
    expect(before.extractHtmlText(html, PAGE_URL).headings[0].text.isWellFormed()).toBe(false)
    expect(extractHtmlText(html, PAGE_URL).headings[0].text).toBe('a'.repeat(199))
  })

  it('stores the same facts for every page of the fixture sites and the Lighthouse pages', async () => {
    const sites: [string, string[], (req: Request) => Promise<Response | null>][] = [
      [ORIGIN, HTML_PATHS, trailgear],
      [BRIGHTDESK_ORIGIN, BRIGHTDESK_HTML, brightdesk],
    ]
    const pages: [string, string][] = [
      ['http://localhost:10200/seo-tester.html', tester],
      ['http://localhost:10200/seo-failure-cases.html', failureCases],
      ['http://localhost:10200/seo-mixed-language.html', mixedLanguage],
    ]
    for (const [origin, paths, serve] of sites) {
      for (const p of paths) pages.push([`${origin}${p}`, await (await serve(new Request(`${origin}${p}`)))!.text()])
    }
    expect(pages.length).toBeGreaterThan(60)
    for (const [url, html] of pages) expect(JSON.stringify(extractHtmlText(html, url)), url).toBe(JSON.stringify(before.extractHtmlText(html, url)))
  })
})

// ---------- the checks read the whole text's length and duplicates ----------

const SITE = {
  startUrl: 'https://site.test/',
  robots: { url: '', status: 200, text: '', errors: [], blockedAiCrawlers: [], crawlDelaySeconds: null },
  sitemaps: { listed: [], lastmod: {} },
} as unknown as SiteInfo

function crawled(url: string, html: string): CrawledPage {
  const rec = htmlRecord(url, html)
  // Through JSON, as the audit reads a stored record.
  return { url, depth: 0, source: 'seed', rec: JSON.parse(JSON.stringify(rec)) as PageRecord }
}

describe('length and duplicate checks answer as on the whole text', () => {
  const long = (n: number, tail: string) => `${'Tent '.repeat(n)}${tail}`
  const title = fc.oneof(
    fc.constantFrom('Tents', 'Two-person tent | TrailGear', 'two-person  TENT | trailgear', 'A tent for every trip of the year, light and strong | TrailGear'),
    // Longer than the facts keep: same or different after the kept prefix.
    fc.tuple(fc.constantFrom(500, 2000, 50_000), fc.constantFrom('end', 'END', 'other')).map(([n, t]) => long(n, t)),
  )
  const description = fc.oneof(
    fc.constantFrom('Short.', 'Light tents for two people, tested on long trails across three seasons of weather.', '   '),
    fc.tuple(fc.constantFrom(100, 3000, 50_000), fc.constantFrom('end', 'other', '')).map(([n, t]) => ` ${long(n, t)} `),
    fc.constantFrom(' '.repeat(50_000)),
  )

  it('reports title and description lengths and duplicates of the whole texts', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(title, description), { minLength: 2, maxLength: 5 }), (specs) => {
        const pages = specs.map(([t, d], i) =>
          crawled(`https://site.test/p${i}`, `<html lang="en"><head><title>${t}</title><meta name="description" content="${d}"></head><body><h1>P</h1></body></html>`),
        )
        const analysis = new CrawlAnalysis(SITE, pages.map(crawledUrl), { now: Date.now(), thinWords: THIN_CONTENT_WORDS })
        for (const p of pages) analysis.add(p)
        const all = analysis.findings()
        specs.forEach(([t, d], i) => {
          const found = all.get(pages[i].url) ?? []
          const message = (check: string) => found.find((f) => f.check === check)?.message ?? null
          // The rules as they read the whole texts before the facts were limited.
          const tl = squash(t).length
          expect(message('title-length')).toBe(tl < 10 || tl > 65 ? `Title is ${tl} characters` : null)
          const dl = d.trim().length
          expect(message('meta-description')).toBe(dl === 0 ? 'The meta description is empty' : null)
          expect(message('meta-description-length')).toBe(dl > 0 && (dl < 50 || dl > 165) ? `Description is ${dl} characters` : null)
          const key = (text: string) => squash(text).toLowerCase()
          const sameTitle = pages.filter((_, j) => key(specs[j][0]) === key(t)).map((p) => p.url)
          const dupTitle = found.find((f) => f.check === 'duplicate-title')
          expect(dupTitle ? (dupTitle.details as { pages: string[] }).pages : null).toEqual(sameTitle.length > 1 ? sameTitle : null)
          const sameDescription = pages.filter((_, j) => key(specs[j][1]) === key(d)).map((p) => p.url)
          const dupDescription = found.find((f) => f.check === 'duplicate-description')
          expect(dupDescription ? (dupDescription.details as { pages: string[] }).pages : null).toEqual(dl > 0 && sameDescription.length > 1 ? sameDescription : null)
        })
        for (const p of pages) expect(storedBytes(p.rec)).toBeLessThan(PAGE_FACTS_MAX_BYTES)
      }),
      { numRuns: 100 },
    )
  })

  it('quotes a cut title by its kept prefix and counts its whole length', () => {
    const t = 'a'.repeat(3_000_000)
    const page = crawled('https://site.test/x', `<title>${t}</title>`)
    const f = pageFindings(page.rec, { now: Date.now(), home: true }).find((x) => x.check === 'title-length')!
    expect(f.message).toBe('Title is 3000000 characters')
    expect(f.details).toBe('a'.repeat(TEXT_LIMITS.title))
  })
})
