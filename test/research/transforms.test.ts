import fc from 'fast-check'
import { reviewSummary, type BusinessUnit } from '../../src/providers/trustpilot/client'
import { describe, expect, it } from 'vitest'
import { recordsOf } from '../../src/providers/dns/transform'
import { annualFigures, firstListedTicker } from '../../src/providers/edgar/transform'
import { articlesOf, seenDate, type ArtList } from '../../src/providers/gdelt/transform'
import { findBoards, fromAshby, fromLever } from '../../src/providers/jobs/transform'
import { dateValue, hostOf, latestQuantity, tickers, websiteQuery, type WikidataEntity } from '../../src/providers/wikidata/transform'
import { hostMatches, normalizeDomain } from '../../src/research/domain'
import { researchInputs } from '../../src/research/report'
import { PeopleFound, people } from '../../src/research/sections/web'
import { parseFeed } from '../../src/research/site'
import type { ActionContext } from '../../src/runtime/context'
import { detectTechnologies, FINGERPRINT_COUNT } from '../../src/research/tech'
import { timelineSvg } from '../../src/research/timeline'
import companyFacts from '../fixtures/edgar/companyfacts.json'
import tickerFile from '../fixtures/edgar/company_tickers.json'
import artlist from '../fixtures/gdelt/artlist.json'
import ashby from '../fixtures/jobs/ashby.json'
import lever from '../fixtures/jobs/lever.json'
import dnsTxt from '../fixtures/dns/txt.json'
import entities from '../fixtures/wikidata/entities.json'
import type { CompanyFacts } from '../../src/providers/edgar/transform'
import { peopleOf, type Sighting } from '../fixtures/before-quad/people'
import { detectTechnologies as detectBefore } from '../fixtures/before-quad/tech'
import { arrayWork } from '../array-work'

describe('domain normalization', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['https://www.example.com/', 'example.com'],
    ['http://shop.example.co.uk', 'shop.example.co.uk'],
    ['example.com.', 'example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
  ])('normalizes %s to %s', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected)
  })
  it.each(['10.0.0.1', '[::1]', 'example.com/path', 'example', 'exa mple.com', 'mailto:a@b.com', 'user@example.com', 'example.123'])('rejects %s', (input) => {
    expect(() => normalizeDomain(input)).toThrow(/domain/)
  })
})

describe('provider transforms', () => {
  it('reads the last fiscal years from EDGAR company facts, ignoring quarterly values', () => {
    const years = annualFigures(companyFacts as CompanyFacts)
    expect(years.map((y) => y.fiscal_year)).toEqual([2024, 2023])
    expect(years[1]).toMatchObject({ revenue_usd: 410000000, net_income_usd: -20000000, net_margin: -0.0488, gross_margin: null })
    expect(firstListedTicker(tickerFile, ['acme'])).toEqual({ ticker: 'acme', cik: '0009990001', title: 'Acme Robotics Inc.' })
  })

  it('reads Wikidata dates at their precision, the latest quantity and tickers', () => {
    const e = (entities as { entities: Record<string, WikidataEntity> }).entities.Q999001
    expect(dateValue(e, 'P571')).toBe('2011-03-15')
    expect(latestQuantity(e, 'P1128')).toEqual({ value: 1200, as_of: '2024-12-31' })
    expect(
      tickers({
        id: 'Q1',
        claims: { P414: [{ mainsnak: { datavalue: { type: 'wikibase-entityid', value: { id: 'Q13677' } } }, qualifiers: { P249: [{ datavalue: { type: 'string', value: 'ACME' } }] } }] },
      }),
    ).toEqual([{ ticker: 'ACME', exchange: 'Q13677' }])
    expect(websiteQuery('a.example')).toContain('<https://www.a.example/>')
  })

  it('deduplicates GDELT articles and converts seen dates', () => {
    expect(articlesOf(artlist)).toHaveLength(2)
    expect(seenDate('20261012T091500Z')).toBe('2026-10-12T09:15:00Z')
    // A seen date that is empty, malformed or missing is no date (null), never "".
    const one = (seendate: unknown) => articlesOf({ articles: [{ title: 'T', url: 'https://n.example/1', seendate }] } as unknown as ArtList)[0].published_at
    expect([one(''), one('yesterday'), one(undefined), one(7)]).toEqual([null, null, null, null])
  })

  it('finds job boards in links and reads Lever and Ashby postings', () => {
    expect(findBoards(['https://jobs.lever.co/acme', 'https://boards.greenhouse.io/embed/job_board?for=acme', 'https://jobs.ashbyhq.com/acme/abc', 'https://example.com/jobs'])).toEqual([
      { kind: 'lever', token: 'acme' },
      { kind: 'greenhouse', token: 'acme' },
      { kind: 'ashby', token: 'acme' },
    ])
    expect(fromLever(lever)[0]).toMatchObject({ title: 'Account Executive', location: 'New York', department: 'Sales', employment_type: 'Full-time' })
    expect(fromAshby(ashby).map((j) => j.title)).toEqual(['Product Designer'])
  })

  it('keeps every Lever posting when a timestamp is out of any date range, without its date', () => {
    const times = [1_700_000_000_000, 8.64e15, 8.64e15 + 1, 1.7e18, -1e300, Number.NaN]
    const postings = fromLever(times.map((createdAt, i) => ({ ...lever[0], text: `Role ${i}`, createdAt })))
    expect(postings.map((p) => p.posted_at)).toEqual(['2023-11-14T22:13:20.000Z', '+275760-09-13T00:00:00.000Z', null, null, null, null])
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: -9e15, max: 9e15 }), fc.constantFrom(null, '1700000000000', -8.64e15)), (createdAt) => {
        const [posting] = fromLever([{ ...lever[0], createdAt } as never])
        const holdable = typeof createdAt === 'number' && Number.isFinite(createdAt) && Math.abs(createdAt) <= 8.64e15
        if (!holdable) expect(posting.posted_at).toBeNull()
        else expect(Date.parse(posting.posted_at!)).toBe(Math.trunc(createdAt) + 0)
      }),
      { numRuns: 1000 },
    )
  })

  it('joins split TXT strings and detects SaaS verification records', () => {
    const txt = recordsOf(dnsTxt, 'TXT')
    expect(txt).toContain('slack-domain-verification=xyz789')
    expect(detectTechnologies({ txt, mx: [] }).map((d) => d.name)).toEqual(expect.arrayContaining(['Google Workspace', 'SendGrid', 'Atlassian', 'Slack']))
    expect(FINGERPRINT_COUNT).toBeGreaterThanOrEqual(80)
  })

  it('parses RSS and Atom items', () => {
    const atom = '<feed><entry><title>Hello</title><link href="https://a.example/1"/><updated>2026-01-02T03:04:05Z</updated></entry></feed>'
    expect(parseFeed(atom)).toEqual([{ title: 'Hello', url: 'https://a.example/1', date: '2026-01-02T03:04:05.000Z' }])
  })

  it('escapes milestone text in the timeline SVG', () => {
    const svg = timelineSvg('A<b>', [{ date: '2020', label: '<script>alert(1)</script>', kind: 'news', source: 'https://a.example' }])
    expect(svg).not.toContain('<script>')
    expect(svg).toContain('&lt;script&gt;')
  })
})

/** parseFeed as it was before its patterns were made linear: the oracle for ordinary feeds. */
function feedBefore(xml: string) {
  const decode = (s: string) =>
    s
      .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&')
      .trim()
  const tag = (block: string, name: string) => {
    const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, 'i').exec(block)
    return m ? decode(m[1]) : null
  }
  const blocks = xml.match(/<(item|entry)[\s>][\s\S]*?<\/\1>/gi) ?? []
  return blocks.slice(0, 50).map((b) => {
    const atomLink = /<link[^>]*href="([^"]+)"/i.exec(b)?.[1] ?? null
    const raw = tag(b, 'pubDate') ?? tag(b, 'published') ?? tag(b, 'updated') ?? tag(b, 'dc:date')
    const time = raw ? Date.parse(raw) : NaN
    return { title: tag(b, 'title') ?? '', url: tag(b, 'link') || atomLink, date: Number.isFinite(time) ? new Date(time).toISOString() : null }
  })
}

describe('feeds, hosts and records in linear time', () => {
  // Whole tags and text, as a feed writes them: "<" only ever opens a tag.
  const token = fc.constantFrom(
    '<item>',
    '</item>',
    '<ITEM>',
    '<entry>',
    '</entry>',
    '<item\n>',
    '<entry xml:lang="en">',
    '<title>',
    '</title>',
    '<title type="html">',
    '<link>',
    '</link>',
    '<link href="https://a.test/1"/>',
    '<link rel="alternate" href="https://a.test/2">',
    '<pubDate>',
    '</pubDate>',
    '<updated>',
    '</updated>',
    '<dc:date>',
    '</dc:date>',
    '<![CDATA[',
    ']]>',
    'Hello',
    ' &amp; ',
    '&lt;b&gt;',
    'https://a.test/3',
    'Tue, 05 Mar 2024 14:00:00 GMT',
    '2026-01-02T03:04:05Z',
    ' ',
    '\n',
    'x>',
  )
  const feed = fc.array(token, { maxLength: 25 }).map((t) => t.join(''))

  it('reads ordinary feeds as the backtracking patterns did', () => {
    fc.assert(
      fc.property(feed, (xml) => {
        expect(parseFeed(xml)).toEqual(feedBefore(xml))
      }),
      { numRuns: 3000 },
    )
  })

  it('returns on feeds of unclosed tags that the old patterns took minutes over at the 3 MiB cap', () => {
    const n = 100_000
    for (const xml of ['<item>'.repeat(n / 6), `<item>${'<link'.repeat(n / 5)}</item>`, `<item>${'<title>'.repeat(n / 7)}</item>`, `<item><title>${'<![CDATA['.repeat(n / 9)}</title></item>`]) {
      expect(parseFeed(xml).length).toBeLessThanOrEqual(1)
    }
  })

  it('matches hosts and names Wikidata sites as before', () => {
    const hostMatchesBefore = (url: string, domain: string) => {
      try {
        const host = new URL(url).hostname
          .toLowerCase()
          .replace(/\.+$/, '')
          .replace(/^www\./, '')
        return host === domain || host.endsWith(`.${domain}`)
      } catch {
        return false
      }
    }
    const hostOfBefore = (url: string) => {
      try {
        return new URL(url).hostname
          .toLowerCase()
          .replace(/^www\./, '')
          .replace(/\.+$/, '')
      } catch {
        return null
      }
    }
    const host = fc.array(fc.constantFrom('www.', 'a', 'example', '.com', '.', '..', 'b.'), { minLength: 1, maxLength: 6 }).map((p) => p.join(''))
    fc.assert(
      fc.property(host, fc.constantFrom('example.com', 'a.com', 'com'), (h, domain) => {
        expect(hostMatches(`https://${h}/x`, domain)).toBe(hostMatchesBefore(`https://${h}/x`, domain))
        expect(hostOf(`https://${h}/x`)).toBe(hostOfBefore(`https://${h}/x`))
      }),
      { numRuns: 2000 },
    )
    const dots = `https://a${'.'.repeat(100_000)}b/`
    expect(hostMatches(dots, 'example.com')).toBe(false)
    expect(hostOf(dots)).toHaveLength(100_002)
  })

  it('finds Proofpoint in SPF records as before, unless a ":" stands between include: and the name', () => {
    const before = /include:[^ ]*pphosted\.com/i
    const proofpoint = (txt: string) => detectTechnologies({ txt: [txt] }).some((d) => d.name === 'Proofpoint')
    const record = fc
      .array(fc.constantFrom('v=spf1', ' ', 'include:', '_spf.', 'spf-0012.', 'pphosted.com', 'PPHOSTED.COM', 'google.com', ' ip4:1.2.3.4 ', '-all', '~all'), { maxLength: 8 })
      .map((p) => p.join(''))
    fc.assert(
      fc.property(record, (txt) => {
        expect(proofpoint(txt)).toBe(before.test(txt))
      }),
      { numRuns: 2000 },
    )
    expect(proofpoint('include:%{i}:x.pphosted.com')).toBe(false)
    expect(proofpoint('include:'.repeat(8192))).toBe(false)
  })
})

describe('people and their profile links in linear work', () => {
  const DOMAIN = 'team.example.org'
  const sighting: fc.Arbitrary<Sighting> = fc.tuple(
    fc.option(fc.constantFrom('Ada Lovelace', 'ada lovelace', 'Grace Hopper', ''), { nil: null }),
    fc.option(fc.constantFrom('CEO', 'Founder'), { nil: null }),
    fc.array(fc.constantFrom('https://linkedin.com/in/ada', 'https://x.test/ada', 'https://linkedin.com/in/grace'), { maxLength: 4 }),
    fc.constantFrom('https://team.example.org/team', 'https://www.wikidata.org/wiki/Q1'),
  )

  it('merges sightings of a person as before: first spelling, title and source, every profile URL once', () => {
    fc.assert(
      fc.property(fc.array(sighting, { maxLength: 10 }), (sightings) => {
        const found = new PeopleFound()
        // The old merge kept a single sighting's list itself: each gets its own copy.
        for (const [name, title, urls, source] of sightings) found.add(name, title, [...urls], source)
        expect(found.list()).toEqual(peopleOf(sightings.map(([name, title, urls, source]) => [name, title, [...urls], source])))
      }),
      { numRuns: 2000 },
    )
  })

  // Failed before: each sighting of a name rebuilt the person's whole list of profile URLs, so a
  // team page linking one name to many profiles cost the square of its links (about 2 million
  // elements copied here; 34 s of CPU for a 1.2 MB page in Node).
  it('reads a team page linking one name to 2,000 profiles in linear work', async () => {
    const n = 2000
    const team = `<html><body>${Array.from({ length: n }, (_, i) => `<a href="https://linkedin.com/in/ada-${i}">Ada Lovelace</a>`).join('')}</body></html>`
    const fetch = async (url: string) => {
      const { hostname, pathname } = new URL(url)
      if (hostname !== DOMAIN) return new Response('{}', { status: 500 })
      const html = pathname === '/' ? '<html><body><a href="/team">Team</a></body></html>' : pathname === '/team' ? team : null
      return new Response(html ?? 'none', { status: html ? 200 : 404, headers: { 'content-type': 'text/html' } })
    }
    const inputs = researchInputs({ fetch, config: { contactEmail: 'ops@example.org' }, env: {} } as unknown as ActionContext, DOMAIN)
    const { result, work } = await arrayWork(() => people.run(inputs))
    expect(result.status).toBe('ok')
    const [ada] = (result.data as { people: { name: string; profile_urls: string[] }[] }).people
    expect(ada.profile_urls).toHaveLength(n)
    expect(work).toBeLessThanOrEqual(40 * n)
  })
})

describe('technology detection compiles each pattern once', () => {
  // Values some fingerprints match (scripts, cookies, markup, DNS records) and some none does.
  const script = fc.constantFrom(
    'https://cdn.shopify.com/s/app.js',
    'https://www.googletagmanager.com/gtm.js?id=GTM-1',
    'https://js.stripe.com/v3/',
    '/wp-content/themes/x.js',
    'https://a.test/app.js',
  )
  const cookie = fc.constantFrom('_shopify_y', 'SS_MID', '_ga', 'session')
  const record = fc.constantFrom('v=spf1 include:_spf.google.com ~all', 'google-site-verification=abc', 'aspmx.l.google.com', 'mx.a.test', 'v=spf1 -all')
  const html = fc.array(fc.constantFrom('<link href="/wp-content/x.css">', 'data-wf-site="1"', 'cdn.sanity.io', '<p>hello</p>'), { maxLength: 4 }).map((h) => h.join(''))
  const signals = fc.record({
    page: fc.record({
      headers: fc.dictionary(fc.constantFrom('server', 'x-powered-by', 'via'), fc.constantFrom('cloudflare', 'Express', 'nginx', 'vercel')),
      cookies: fc.array(cookie, { maxLength: 4 }),
      scripts: fc.array(script, { maxLength: 6 }),
      meta: fc.dictionary(fc.constantFrom('generator', 'og:site_name'), fc.constantFrom('WordPress 6.6', 'Webflow', 'Acme')),
      html,
    }),
    mx: fc.array(record, { maxLength: 3 }),
    txt: fc.array(record, { maxLength: 3 }),
  })

  it('detects what it detected before', () => {
    fc.assert(
      fc.property(signals, (s) => {
        expect(detectTechnologies(s)).toEqual(detectBefore(s))
      }),
      { numRuns: 500 },
    )
  })

  // Failed before: every pattern was compiled again for each script, cookie and record it was
  // tried on, 87 script patterns a script (1.2 s of CPU for a homepage of 112,000 script tags).
  it('compiles no pattern per script of a page of 2,000 scripts', () => {
    const scripts = Array.from({ length: 2000 }, (_, i) => `https://a.test/${i}.js`)
    const Original = globalThis.RegExp
    let made = 0
    globalThis.RegExp = class extends Original {
      constructor(...args: ConstructorParameters<RegExpConstructor>) {
        super(...args)
        made++
      }
    } as RegExpConstructor
    try {
      detectTechnologies({ page: { headers: {}, cookies: [], scripts, meta: {}, html: '' } })
    } finally {
      globalThis.RegExp = Original
    }
    expect(made).toBeLessThanOrEqual(FINGERPRINT_COUNT * 10)
  })
})

describe('Trustpilot profile links', () => {
  const unit = (identifying: unknown) => ({ id: 'u1', displayName: 'Acme', name: { identifying } }) as BusinessUnit
  // Failed before: the name went into the path as sent, so "../../login?next=" linked to another page of the site.
  it('put the identifying name in one path segment, whatever Trustpilot sends, or give no link', () => {
    expect(reviewSummary(unit('acmerobotics.example')).profile_url).toBe('https://www.trustpilot.com/review/acmerobotics.example')
    expect([unit(''), unit('..'), unit(undefined), unit(7), unit('\ud800')].map((u) => reviewSummary(u).profile_url)).toEqual([null, null, null, null, null])
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '.', '/', '?', '#', '%', '\\', ' ', 'é', '\ud800'), maxLength: 12 }), (name) => {
        const link = reviewSummary(unit(name)).profile_url
        if (link === null) return
        const url = new URL(link)
        expect(url.origin).toBe('https://www.trustpilot.com')
        expect(url.pathname.split('/').slice(0, 2)).toEqual(['', 'review'])
        expect(url.pathname.split('/')).toHaveLength(3)
        expect(url.search + url.hash).toBe('')
      }),
      { numRuns: 500 },
    )
  })
})
