import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isValidHreflang } from '../../src/audit/langs'
import { parseXRobotsTag } from '../../src/audit/page-checks'
import { fetchPage, PAGE_MAX_BYTES, parseLinkHeader } from '../../src/crawler/fetch-page'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { blogPrefixes, crawlable, inScope, looksNonHtml, normalizeUrl } from '../../src/crawler/scope'
import { describeRobots, validateRobots } from '../../src/providers/web/robots'
import { firstEntries, gunzip, MAX_ATOM_CHARS, parseFeedLinks, parseSitemap } from '../../src/providers/web/sitemap'
import { TEST_DNS, withFakeDns } from '../fake-dns'
import { parseFeedLinks as feedBefore, parseSitemap as sitemapBefore } from '../fixtures/before-quad/sitemap'
import { arrayWork } from '../array-work'

describe('sitemaps and feeds', () => {
  it('reads urlsets with lastmod and sitemap indexes', () => {
    expect(
      parseSitemap('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://a.test/x </loc><lastmod>2025-01-02</lastmod></url><url><loc>https://a.test/y</loc></url></urlset>'),
    ).toEqual({
      kind: 'urlset',
      urls: [
        { loc: 'https://a.test/x', lastmod: '2025-01-02' },
        { loc: 'https://a.test/y', lastmod: null },
      ],
      sitemaps: [],
    })
    expect(parseSitemap('<sitemapindex><sitemap><loc>https://a.test/s1.xml.gz</loc></sitemap></sitemapindex>').sitemaps).toEqual(['https://a.test/s1.xml.gz'])
    expect(parseSitemap('<html><body>not a sitemap</body></html>').kind).toBe('invalid')
  })
  it('gunzips sitemaps with DecompressionStream and refuses zip bombs past the cap', async () => {
    const gz = new Uint8Array(await new Response(new Blob(['<urlset>' + 'x'.repeat(10_000) + '</urlset>']).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer())
    expect((await gunzip(gz, 1_000_000)).length).toBe(10_017)
    await expect(gunzip(gz, 1000)).rejects.toThrow('larger than 1000 bytes')
  })
  it('reads item links from RSS and Atom feeds', () => {
    expect(parseFeedLinks('<rss version="2.0"><channel><item><link>https://a.test/blog/1</link></item><item><link>https://a.test/blog/2</link></item></channel></rss>')).toEqual([
      'https://a.test/blog/1',
      'https://a.test/blog/2',
    ])
    expect(parseFeedLinks('<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="https://a.test/news/1"/></entry></feed>')).toEqual(['https://a.test/news/1'])
  })
})

describe('sitemap and feed files parse within a bounded number of elements (amplification)', () => {
  // The cut README documents: a file is parsed up to its first 60,000 XML elements.
  const MAX_XML_ELEMENTS = 60_000
  /** Entry shapes: how many elements each takes, and its XML. */
  const shapes: [number, (i: number) => string, string, string][] = [
    [2, (i) => `<url><loc>https://a.test/${i}</loc></url>`, '<urlset>', '</urlset>'],
    [3, (i) => `<url><loc>https://a.test/${i}</loc><lastmod>2025-01-02</lastmod></url>`, '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', '</urlset>'],
    [2, (i) => `<s:url><s:loc>https://a.test/${i}</s:loc></s:url>`, '<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9">', '</s:urlset>'],
  ]
  const build = (n: number, entry: (i: number) => string, open: string, close: string) => {
    const parts = [open]
    for (let i = 0; i < n; i++) parts.push(entry(i))
    parts.push(close)
    return parts.join('')
  }

  // Failed before: every element was parsed, so a file of tiny entries held about 350 bytes per
  // element (a 10 MB sitemap of 365,000 URLs: 260 MB in Node, twice a Worker's memory).
  it('reads the entries before the cut as the whole file would, and none past it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40_000 }), fc.constantFrom(...shapes), (n, [k, entry, open, close]) => {
        const { urls } = parseSitemap(build(n, entry, open, close))
        const kept = Math.min(n, Math.floor((MAX_XML_ELEMENTS - 3) / k) + 1)
        expect(urls).toHaveLength(kept)
        expect(urls[kept - 1].loc).toBe(`https://a.test/${kept - 1}`)
      }),
      { numRuns: 12 },
    )
  })

  it('parses a full-size sitemap or feed of tiny entries to a bounded list', () => {
    const entries = Math.ceil((10 * 1024 * 1024) / 38)
    expect(parseSitemap(build(entries, shapes[0][1], '<urlset>', '</urlset>')).urls).toHaveLength((MAX_XML_ELEMENTS - 2) / 2)
    const items = Math.ceil((5 * 1024 * 1024) / 40)
    expect(parseFeedLinks(build(items, (i) => `<item><link>https://a.test/b/${i}</link></item>`, '<rss><channel>', '</channel></rss>'))).toHaveLength((MAX_XML_ELEMENTS - 4) / 2 + 1)
  })
})

describe('sitemaps are read without their attributes', () => {
  const attrs = fc
    .array(fc.constantFrom(' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"', ' a="1"', " b='x y'", ' loc="https://a.test/attr"', ' url="u"', ' c', ' d="&amp;"'), { maxLength: 3 })
    .map((a) => a.join(''))
  const text = fc.constantFrom('https://a.test/1', ' https://a.test/2 ', '2025-01-02', '', 'a &amp; b', '<![CDATA[https://a.test/3]]>')
  const leaf = (name: string) => fc.tuple(attrs, fc.option(text, { nil: null })).map(([a, t]) => (t === null ? `<${name}${a}/>` : `<${name}${a}>${t}</${name}>`))
  const entry = (name: string) =>
    fc.tuple(attrs, fc.array(fc.oneof(leaf('loc'), leaf('lastmod'), leaf('image:image'), fc.constant('text')), { maxLength: 4 })).map(([a, children]) => `<${name}${a}>${children.join('')}</${name}>`)
  const document = fc.oneof(
    fc.tuple(attrs, fc.array(entry('url'), { maxLength: 5 })).map(([a, e]) => ({ entries: e.length, xml: `<urlset${a}>${e.join('')}</urlset>` })),
    fc.tuple(attrs, fc.array(entry('sitemap'), { maxLength: 5 })).map(([a, e]) => ({ entries: e.length, xml: `<?xml version="1.0"?><sitemapindex${a}>${e.join('')}</sitemapindex>` })),
  )

  it('reads the URLs and sitemaps it read with them', () => {
    fc.assert(
      fc.property(document, ({ entries, xml }) => {
        const now = parseSitemap(xml)
        // A root without entries is no sitemap, as it was before when its only attributes were
        // namespaces (the parser drops those); other attributes made it read as an empty one.
        if (entries === 0) expect(now).toEqual({ kind: 'invalid', urls: [], sitemaps: [], error: 'no <urlset> or <sitemapindex> root element' })
        else expect(now).toEqual(sitemapBefore(xml))
      }),
      { numRuns: 2000 },
    )
    const empty = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>'
    expect(parseSitemap(empty)).toEqual(sitemapBefore(empty))
  })

  // Failed before: every attribute was read, at about a microsecond each and more as one element's
  // grow (about 8 s of CPU for a 10 MB sitemap of one element of a million attributes, in Node; a
  // crawl reads up to 25 sitemaps). The reader's own array work grew with them: 200,000 elements here.
  it('reads a sitemap in work that does not grow with its attributes', async () => {
    const sitemap = (n: number) => `<urlset><url${Array.from({ length: n }, (_, i) => ` a${i}="1"`).join('')}><loc>https://a.test/</loc></url></urlset>`
    const [plain, many] = [sitemap(0), sitemap(20_000)]
    const without = await arrayWork(() => parseSitemap(plain))
    const within = await arrayWork(() => parseSitemap(many))
    expect(within.result).toEqual(without.result)
    expect(within.work).toBe(without.work)
  })
})

describe('feeds parse in work that does not grow with their attributes', () => {
  const url = fc.constantFrom('https://a.test/blog/1', ' https://a.test/b?x=1&amp;y=2 ', 'https://a.test/é', '/relative', '')
  const attrs = fc.array(fc.constantFrom(' a="1"', " b='x'", ' xml:lang="en"', ' type="text/html"', ' rel="self"'), { maxLength: 3 }).map((a) => a.join(''))
  const rssLink = fc.oneof(
    fc.tuple(attrs, url).map(([a, u]) => `<link${a}>${u}</link>`),
    url.map((u) => `<link><![CDATA[${u}]]></link>`),
    url.map((u) => `<atom:link href="${u}" rel="alternate"/>`),
    fc.constant('<title>no link</title>'),
  )
  const atomLink = fc
    .tuple(fc.constantFrom('', ' rel="alternate"', ' rel="self"', ' rel="enclosure"', " rel='alternate'"), fc.option(url, { nil: undefined }), attrs, fc.constantFrom('link', 'atom:link'))
    .map(([rel, href, a, tag]) => `<${tag}${rel}${href === undefined ? '' : ` href="${href}"`}${a}/>`)
  const content = fc.constantFrom(
    '',
    '<content type="html">&lt;p class=&quot;x&quot;&gt;</content>',
    '<content><![CDATA[<entry><link href="https://a.test/not-a-link"/></entry>]]></content>',
    '<summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="/x">x</a></div></summary>',
  )
  const rss = fc
    .tuple(attrs, fc.array(fc.tuple(attrs, fc.array(rssLink, { maxLength: 2 })), { maxLength: 12 }))
    .map(([a, items]) => `<?xml version="1.0"?><rss version="2.0"${a}><channel><title>t</title>${items.map(([ia, l]) => `<item${ia}>${l.join('')}</item>`).join('')}</channel></rss>`)
  const atom = fc
    .tuple(attrs, fc.array(fc.tuple(attrs, fc.array(atomLink, { maxLength: 3 }), content), { maxLength: 12 }), fc.constantFrom('', 'atom:'))
    .map(
      ([a, entries, ns]) =>
        `<${ns}feed xmlns${ns ? ':atom' : ''}="http://www.w3.org/2005/Atom"${a}>${entries.map(([ea, l, c]) => `<${ns}entry${ea}>${l.join('')}${c}</${ns}entry>`).join('')}</${ns}feed>`,
    )

  it('reads RSS and Atom feeds as the reader that parsed every attribute did (2,000 runs)', () => {
    fc.assert(
      fc.property(fc.oneof(rss, atom), (xml) => {
        expect(parseFeedLinks(xml)).toEqual(feedBefore(xml))
      }),
      { numRuns: 2000 },
    )
  })

  it('reads an Atom feed longer than MAX_ATOM_CHARS up to its last entry that ends within them', () => {
    const entry = (i: number) => `<entry><title>Post ${i}</title><link rel="alternate" href="https://a.test/blog/${i}"/><content type="html">${'lorem ipsum '.repeat(40)}</content></entry>`
    const parts = ['<feed xmlns="http://www.w3.org/2005/Atom">']
    for (let i = 0; i < 3000; i++) parts.push(entry(i))
    const xml = parts.join('') + '</feed>'
    let kept = 0
    for (let end = parts[0].length + entry(0).length; end <= MAX_ATOM_CHARS; end += entry(kept).length) kept++
    const now = parseFeedLinks(xml)
    expect(now).toHaveLength(kept)
    expect(now).toEqual(feedBefore(xml).slice(0, kept))
  })

  it('cuts any feed right after the last real entry end within the bound (2,000 runs)', () => {
    // Entries whose content quotes end tags in CDATA or comments; the real ends are known by construction.
    const inner = fc.constantFrom('x', '<![CDATA[</entry>]]>', '<!-- </entry> -->', '<![CDATA[ ]] </a:entry> ]]>', '&lt;/entry&gt;')
    const entry = fc.array(inner, { maxLength: 4 }).map((parts) => `<entry><content>${parts.join('')}</content></entry>`)
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.integer({ min: 0, max: 600 }), (entries, max) => {
        const head = '<feed>'
        const xml = head + entries.join('') + '</feed>'
        fc.pre(xml.length > max)
        let end = 0
        let at = head.length
        for (const e of entries) {
          at += e.length
          if (at <= max) end = at
        }
        expect(firstEntries(xml, max)).toBe(xml.slice(0, end))
      }),
      { numRuns: 2000 },
    )
  })

  // Failed before the scan stepped over CDATA: the cut fell after an "</entry>" quoted in a post's
  // content, left its CDATA open, and the feed read as no links at all.
  it('cuts a long Atom feed after a real entry, not after one quoted in CDATA or a comment', () => {
    const entry = (i: number) =>
      `<entry><link rel="alternate" href="https://a.test/blog/${i}"/><!-- </entry> --><content><![CDATA[Example: <entry><title>x</title></entry> ${'x'.repeat(5000)}]]></content></entry>`
    const parts = ['<feed xmlns="http://www.w3.org/2005/Atom">']
    for (let i = 0; i < 200; i++) parts.push(entry(i))
    const xml = parts.join('') + '</feed>'
    let kept = 0
    for (let end = parts[0].length + entry(0).length; end <= MAX_ATOM_CHARS; end += entry(kept).length) kept++
    expect(kept).toBeGreaterThan(90)
    expect(parseFeedLinks(xml)).toEqual(feedBefore(xml).slice(0, kept))
  })

  // Failed before: every attribute was read, at one to seven microseconds each (a feed may take 5 MB:
  // about 3.3 s of CPU for one of 600,000 attributes, in Node; a crawl reads up to 3 feeds).
  it('reads an RSS feed in work that does not grow with its attributes, and an Atom feed within MAX_ATOM_CHARS of them', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="1"`).join('')
    const rssOf = (n: number) => `<rss><channel><item${many(n)}><link>https://a.test/blog/1</link></item></channel></rss>`
    const [rssPlain, rssLoaded] = [rssOf(0), rssOf(20_000)]
    const [plain, loaded] = [await arrayWork(() => parseFeedLinks(rssPlain)), await arrayWork(() => parseFeedLinks(rssLoaded))]
    expect(loaded.result).toEqual(['https://a.test/blog/1'])
    expect(loaded.work).toBe(plain.work)
    const atomOf = (n: number) => `<feed><entry><link href="https://a.test/blog/1"/></entry><entry><link${many(n)}/></entry></feed>`
    const [atomWithin, atomPast] = [atomOf(Math.floor(MAX_ATOM_CHARS / 12)), atomOf(200_000)]
    const within = await arrayWork(() => parseFeedLinks(atomWithin))
    const past = await arrayWork(() => parseFeedLinks(atomPast))
    expect(past.result).toEqual(['https://a.test/blog/1'])
    expect(past.work).toBeLessThanOrEqual(within.work)
  })
})

describe('scope', () => {
  const scope = { kind: 'custom_path' as const, site: 'a.test', prefixes: ['/docs/'], reason: '' }
  it('keeps same-site URLs under the path prefix, www or not', () => {
    expect(inScope(scope, 'https://www.a.test/docs/intro')).toBe(true)
    expect(inScope(scope, 'http://a.test/docs')).toBe(true)
    expect(inScope(scope, 'https://a.test/docsx')).toBe(false)
    expect(inScope(scope, 'https://b.test/docs/intro')).toBe(false)
  })
  it('normalizes frontier URLs and spots non-HTML files', () => {
    expect(normalizeUrl('/a#top', 'https://A.test:443/x')).toBe('https://a.test/a')
    expect(normalizeUrl('mailto:x@a.test')).toBeNull()
    expect(looksNonHtml('https://a.test/file.PDF')).toBe(true)
    expect(looksNonHtml('https://a.test/page.html')).toBe(false)
  })
  it('calls a URL crawlable exactly when it is in scope and not a file', () => {
    const urls = ['https://www.a.test/docs/intro', 'http://a.test/docs', 'https://a.test/docsx', 'https://b.test/docs/x', 'https://a.test/docs/guide.pdf', 'not a url', 'https://a.test/docs/x.html']
    for (const url of urls) expect(crawlable(scope, url), url).toBe(inScope(scope, url) && !looksNonHtml(url))
    expect(crawlable({ ...scope, prefixes: [] }, 'https://a.test/any')).toBe(true)
  })
  it('finds blog sections from URL names, post sitemaps and feeds', () => {
    expect(blogPrefixes(['https://a.test/blog/x', 'https://a.test/shop/y'], [], [], 'a.test')).toEqual({ prefixes: ['/blog'], reason: '/blog (blog-like URL section)' })
    const feed = ['https://a.test/journal-entries/1', 'https://a.test/journal-entries/2', 'https://a.test/journal-entries/3']
    expect(blogPrefixes([], [], feed, 'a.test').prefixes).toEqual(['/journal-entries'])
  })
})

describe('headers and robots', () => {
  it('parses Link headers with several entries and quoted parameters', () => {
    expect(parseLinkHeader('<https://a.test/>; rel="canonical", </de>; rel=alternate; hreflang="de"', 'https://a.test/page')).toEqual([
      { url: 'https://a.test/', rel: 'canonical', hreflang: null },
      { url: 'https://a.test/de', rel: 'alternate', hreflang: 'de' },
    ])
  })
  it('splits X-Robots-Tag by user agent', () => {
    expect([...parseXRobotsTag('googlebot: noindex, nofollow, otherbot: none')]).toEqual([
      ['googlebot', ['noindex', 'nofollow']],
      ['otherbot', ['none']],
    ])
    expect([...parseXRobotsTag('unavailable_after: 25 Jun 2010 15:00:00 PST')]).toEqual([['*', ['unavailable_after: 25 Jun 2010 15:00:00 PST']]])
  })
  it('validates hreflang codes like Lighthouse', () => {
    for (const ok of ['es', 'en-PH', 'ru-RU', 'zh-Hans-TW', 'x-default', 'X-Default', 'fil']) expect(isValidHreflang(ok), ok).toBe(true)
    for (const bad of ['xx', ' x-default', 'en_US', 'english', '']) expect(isValidHreflang(bad), bad).toBe(false)
  })
  it('reports AI crawlers that robots.txt blocks, by group', () => {
    const r = describeRobots(
      'https://a.test/robots.txt',
      200,
      'User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /\n\nUser-agent: *\nAllow: /\nCrawl-delay: 2\nSitemap: https://a.test/s.xml',
      'https://a.test',
    )
    expect(r.blockedAiCrawlers).toEqual(['GPTBot', 'ClaudeBot'])
    expect(r.crawlDelaySeconds).toBe(2)
    expect(r.sitemaps).toEqual(['https://a.test/s.xml'])
  })
  it('treats a 5xx or missing robots.txt as allowing everything', () => {
    expect(describeRobots('https://a.test/robots.txt', 503, 'User-agent: *\nDisallow: /', 'https://a.test').blockedAiCrawlers).toEqual([])
  })
})

describe('indexability', () => {
  const rec = (meta: { name: string; content: string }[], xRobotsTag: string[] = []) =>
    ({ url: 'https://a.test/x', kind: 'html', status: 200, xRobotsTag, linkHeaders: [], html: { metaRobots: meta } }) as never
  it('counts bot-specific meta robots and X-Robots-Tag, and ignores other bots', async () => {
    const { indexBlockers } = await import('../../src/audit/page-checks')
    const now = Date.parse('2026-01-01')
    expect(indexBlockers(rec([{ name: 'googlebot', content: 'noindex' }]), now)).toEqual(['<meta name="googlebot" content="noindex">'])
    expect(indexBlockers(rec([{ name: 'robots', content: 'index, follow' }], ['otherbot: noindex']), now)).toEqual([])
    expect(indexBlockers(rec([], ['googlebot: none']), now)).toEqual(['X-Robots-Tag: googlebot: none'])
    expect(indexBlockers(rec([{ name: 'robots', content: 'unavailable_after: 2020-01-01' }]), now)).toHaveLength(1)
  })
})

describe('page fetching limits', () => {
  const fetcherFor = (res: () => Response) => createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS, fetcher: withFakeDns(async () => res()) })
  it('records a page over the size cap as an error instead of reading it all', async () => {
    const big = () => new Response('<html><body>' + 'x'.repeat(PAGE_MAX_BYTES + 10) + '</body></html>', { headers: { 'content-type': 'text/html' } })
    const rec = await fetchPage(fetcherFor(big), 'https://a.test/big')
    expect(rec.kind).toBe('error')
    expect(rec.error).toMatch(/more than 3145728 bytes|over the limit/)
  })
  it('skips non-HTML answers and keeps redirect targets without following them', async () => {
    const pdf = await fetchPage(
      fetcherFor(() => new Response('%PDF', { headers: { 'content-type': 'application/pdf' } })),
      'https://a.test/doc',
    )
    expect(pdf).toMatchObject({ kind: 'skipped', status: 200, error: 'not HTML (application/pdf)' })
    const moved = await fetchPage(
      fetcherFor(() => new Response(null, { status: 301, headers: { location: '/new#x' } })),
      'https://a.test/old',
    )
    expect(moved).toMatchObject({ kind: 'redirect', status: 301, location: 'https://a.test/new' })
  })
})

/** parseLinkHeader as it was before its pattern was made linear: the oracle for ordinary headers. */
function linkHeaderBefore(value: string, base: string) {
  return [...value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+(?:=(?:"[^"]*"|[^;,]*))?)*)/g)].map((m) => {
    const params = new Map<string, string>()
    for (const p of m[2].matchAll(/;\s*([^=;,\s]+)\s*(?:=\s*("([^"]*)"|[^;,]*))?/g)) params.set(p[1].toLowerCase(), (p[3] ?? p[2] ?? '').trim())
    let url = m[1].trim()
    try {
      url = new URL(url, base).toString()
    } catch {
      // kept raw, as the function does
    }
    return { url, rel: (params.get('rel') ?? '').toLowerCase(), hreflang: params.has('hreflang') ? (params.get('hreflang') ?? '') : null }
  })
}

/** parseXRobotsTag as it was before its pattern was made linear. */
function xRobotsTagBefore(value: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let agent = '*'
  for (const raw of value.split(',')) {
    let part = raw.trim()
    const m = /^([a-z0-9_-]+)\s*:\s*(.*)$/i.exec(part)
    if (m && m[1].toLowerCase() !== 'unavailable_after') {
      agent = m[1].toLowerCase()
      part = m[2].trim()
    }
    if (!part) continue
    if (!out.has(agent)) out.set(agent, [])
    out.get(agent)!.push(part)
  }
  return out
}

describe('header parsing in linear time', () => {
  const linkEntry = fc
    .tuple(
      fc.constantFrom('https://a.test/', '/de', 'page?x=1', '', ' https://a.test/x ', 'http://[bad', 'mailto:a@b.test'),
      fc.array(
        fc.constantFrom(
          '; rel="canonical"',
          ';rel=alternate',
          '; hreflang=de',
          '; hreflang="en-US"',
          ' ; rel=next',
          '; title="a, b"',
          '; title="x;y"',
          ';',
          '; ',
          '; a',
          '; =x',
          ' ;  rel = "x" ',
          ' ',
        ),
        { maxLength: 5 },
      ),
    )
    .map(([url, params]) => `<${url}>${params.join('')}`)
  const linkValue = fc.array(fc.oneof(linkEntry, fc.constantFrom('junk', ' ', ';', '>')), { maxLength: 5 }).chain((entries) => fc.constantFrom(', ', ',', ' , ').map((sep) => entries.join(sep)))

  it('reads ordinary Link headers as the backtracking pattern did', () => {
    fc.assert(
      fc.property(linkValue, (value) => {
        expect(parseLinkHeader(value, 'https://a.test/page')).toEqual(linkHeaderBefore(value, 'https://a.test/page'))
      }),
      { numRuns: 2000 },
    )
  })

  it('reads a URL that holds "<" from its last "<" on, as RFC 8288 has no "<" inside one', () => {
    expect(parseLinkHeader('<a<https://a.test/x>; rel=canonical', 'https://a.test/')).toEqual([{ url: 'https://a.test/x', rel: 'canonical', hreflang: null }])
  })

  it('reads any X-Robots-Tag value as the backtracking pattern did', () => {
    const text = fc.oneof(fc.string({ unit: fc.constantFrom(...'ab_-: ,\n\t\u2028x'), maxLength: 40 }), fc.string({ maxLength: 40 }))
    fc.assert(
      fc.property(text, (value) => {
        expect([...parseXRobotsTag(value)]).toEqual([...xRobotsTagBefore(value)])
      }),
      { numRuns: 2000 },
    )
  })

  it('returns on long hostile header values that the old patterns took seconds over', () => {
    expect(parseLinkHeader('<'.repeat(100_000), 'https://a.test/')).toEqual([])
    expect([...parseXRobotsTag(`googlebot:${' '.repeat(100_000)}\nx\ny`)]).toHaveLength(1)
  })
})

describe('robots.txt comments in linear time', () => {
  const line = fc
    .array(fc.constantFrom('User-agent: *', 'Disallow: /a', 'Allow: /', 'Sitemap: https://a.test/s.xml', 'Crawl-delay: 5', 'junk', ' ', '#', '# note', '##', 'x'), { maxLength: 4 })
    .map((p) => p.join(''))
  const robots = fc.array(line, { maxLength: 8 }).map((lines) => lines.join('\n'))

  it('drops comments as before, where no line holds a U+2028 or U+2029', () => {
    const before = (text: string) =>
      text
        .split('\n')
        .map((l) => l.replace(/#.*$/, ''))
        .join('\n')
    fc.assert(
      fc.property(robots, (text) => {
        expect(validateRobots(text)).toEqual(validateRobots(before(text)))
      }),
      { numRuns: 1000 },
    )
  })

  it('ends a comment at the end of the line even past a U+2028, which the old `.` stopped at', () => {
    expect(validateRobots('Disallow /a # x\u2028y')).toEqual(validateRobots('Disallow /a'))
  })

  it('returns on a long hostile comment', () => {
    expect(validateRobots(`${'#'.repeat(100_000)}\u2028`)).toEqual([])
  })
})
