import { env } from 'cloudflare:test'
import fc from 'fast-check'
import robotsParser from 'robots-parser'
import { describe, expect, it } from 'vitest'
import { buildAudit } from '../../src/audit/build'
import { crawlSome, seedFrontier } from '../../src/crawler/crawl'
import type { PageRecord } from '../../src/crawler/fetch-page'
import { crawlable } from '../../src/crawler/scope'
import { discoverSite, type SiteInfo } from '../../src/crawler/site'
import { donePages, frontierCounts } from '../../src/db/crawl'
import { insertRun } from '../../src/db/runs'
import { describeRobots, parseRobots, ROBOTS_UNDECIDED, robotsAllows, robotsDecision, robotsDisallows } from '../../src/providers/web/robots'
import { MAX_MATCH_STEPS, MAX_ROBOTS_CHARS, MAX_DECIDED_URL_LENGTH, PART_STEPS, parseRobotsRules, robotsCrawlDelay, robotsDecide, robotsSitemaps } from '../../src/providers/web/robots-rules'
import type { GuardedFetch } from '../../src/providers/web/fetch'
import { fakeSite, htmlPage } from './fake-site'
import { newCaller, runningRun } from '../helpers'

// robots-parser (a devDependency now) decided robots.txt before robots-rules.ts: it is the oracle
// for ordinary files, where its matching is fast.
const ROBOTS_URL = 'https://a.test/robots.txt'
const ORIGIN = 'https://a.test'

/** Most steps a decision can reach: it stops at the first charge past the bound, and one part search charges at most this much. */
const MOST_STEPS = MAX_MATCH_STEPS + PART_STEPS + 2 * MAX_DECIDED_URL_LENGTH

const oracle = (text: string, url: string, agent: string) => (robotsParser(ROBOTS_URL, text).isAllowed(url, agent) !== false ? 'allow' : 'disallow')

/** Discovers and crawls the fake site to its end, as an audit run of a new caller would; the run and the site. */
async function crawlToEnd(fetcher: GuardedFetch, maxPages: number, concurrency: number): Promise<{ runId: string; site: SiteInfo }> {
  const { accountId } = await newCaller()
  const runId = `run_${crypto.randomUUID().replace(/-/g, '')}`
  await insertRun(env.DB, runningRun(runId, accountId, 'content_audit_generate_audit_action'))
  const site = await discoverSite(fetcher, ORIGIN, 'full_site', undefined, maxPages)
  await seedFrontier(env.DB, runId, site)
  const limits = { maxPages, concurrency, pagesPerMessage: 1000, messageBudgetMs: 60_000 }
  expect(await crawlSome(env.DB, fetcher, runId, site, limits, async () => undefined)).toBe('done')
  return { runId, site }
}

describe('robots.txt decisions as robots-parser made them', () => {
  const agentsNamed = ['*', '*', 'AgentActionAPI', 'agentactionapi/2.1', 'Googlebot', 'GPTBot', 'other-bot', ' googlebot / 1.0', '']
  const agentsAsked = ['AgentActionAPI', 'Googlebot', 'googlebot/2.1', 'GPTBot', 'ClaudeBot', '*']
  // Pieces of paths and patterns: separators, letters in both cases, non-ASCII characters, escapes in
  // both cases (of "/", "A" and a three-byte character), query syntax, and a "$" or "*" used literally.
  const pieces = ['/', 'a', 'b', 'A', 'é', '€', '%2f', '%2F', '%41', '%e2%82%ac', '?', '=', '&', '.', '-', '$', '*', '%', ' ', 'ab', 'a/']
  const pattern = fc
    .tuple(
      fc.constantFrom('/', '/', '/', '/', '/', '/', '*', '*', 'a', '$', ''),
      fc.array(fc.constantFrom(...pieces, 'a', 'b', '/', '*', '*', '$'), { maxLength: 6 }),
      fc.constantFrom('', '', '', '$'),
    )
    .map(([start, rest, end]) => start + rest.join('') + end)
  const ruleLine = fc.tuple(fc.constantFrom('Allow', 'Disallow', 'disallow', 'ALLOW', 'Disallow '), pattern, fc.constantFrom(': ', ':', ':  ')).map(([k, v, sep]) => `${k}${sep}${v}`)
  const otherLine = fc.constantFrom(
    'Crawl-delay: 5',
    'crawl-delay: 0.5',
    'Crawl-delay: soon',
    'Crawl-delay:',
    'Sitemap: https://a.test/s.xml',
    'sitemap:https://a.test/b.xml # second',
    'Sitemap:',
    'Host: a.test',
    '# a comment',
    '',
    'no colon here',
    'Foo: bar',
    ': empty key',
    'User-agent: *',
    'User-agent: AgentActionAPI',
  )
  const group = fc
    .tuple(fc.array(fc.constantFrom(...agentsNamed), { minLength: 1, maxLength: 3 }), fc.array(fc.oneof(ruleLine, ruleLine, ruleLine, otherLine), { maxLength: 6 }))
    .map(([agents, lines]) => [...agents.map((a) => `User-agent: ${a}`), ...lines])
  const anyLine = fc.oneof(
    ruleLine,
    otherLine,
    fc.constantFrom(...agentsNamed).map((a) => `User-agent: ${a}`),
  )
  const groups = fc.array(group, { minLength: 1, maxLength: 4 }).map((g) => g.flat())
  const robotsLines = fc.oneof(groups, groups, groups, fc.array(anyLine, { maxLength: 14 }))
  const robotsTxt = fc.tuple(robotsLines, fc.constantFrom('\n', '\r\n', '\r'), fc.boolean()).map(([lines, eol, bom]) => ({ lines, text: (bom ? '\uFEFF' : '') + lines.join(eol) }))
  const freePath = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((p) => `/${p.join('')}`)
  /** A path a pattern matches, most of the time: its `*` filled in, its final `$` dropped. */
  const pathFrom = (p: string, fill: string[]) => {
    const body = p.endsWith('$') ? p.slice(0, -1) : p
    const path = body.split('*').reduce((out, part, i) => out + (i ? fill[i % fill.length] : '') + part, '')
    return path.startsWith('/') ? path : `/${path}`
  }
  /**
   * A robots.txt, a path and a crawler, the path often made from a pattern of the file and the
   * crawler often one it names, so that rules match and compete.
   */
  const robotsCase = robotsTxt.chain(({ lines, text }) => {
    const valueOf = (l: string) => l.slice(l.indexOf(':') + 1).trim()
    const patterns = lines.filter((l) => /^(allow|disallow)/i.test(l)).map(valueOf)
    const named = lines.filter((l) => /^user-agent:/i.test(l)).map(valueOf)
    const fill = fc.array(fc.constantFrom(...pieces, ''), { minLength: 1, maxLength: 3 })
    const fromRule = patterns.length ? fc.tuple(fc.constantFrom(...patterns), fill).map(([p, f]) => pathFrom(p, f)) : freePath
    const asked = fc.constantFrom(...agentsAsked)
    return fc.tuple(fc.constant(text), fc.oneof(fromRule, fromRule, fromRule, freePath), named.length ? fc.oneof(fc.constantFrom(...named), asked) : asked)
  })
  const origin = fc.oneof(fc.constant(ORIGIN), fc.constant(ORIGIN), fc.constant(ORIGIN), fc.constantFrom('http://a.test', 'https://a.test:8443', 'https://b.test', 'https://A.TEST'))

  it('allows and disallows every URL as robots-parser did, for every crawler (20,000 runs)', () => {
    fc.assert(
      fc.property(robotsCase, origin, ([text, p, agent], host) => {
        const url = host + p
        const want = oracle(text, url, agent)
        const rules = parseRobots(ROBOTS_URL, text)
        expect(robotsDecision(rules, url, agent)).toBe(want)
        expect(robotsAllows(rules, url, agent)).toBe(want === 'allow')
        expect(robotsDisallows(rules, url, agent)).toBe(want === 'disallow')
      }),
      { numRuns: 20_000 },
    )
  })

  it('reads the same crawl delay and sitemaps as robots-parser did', () => {
    fc.assert(
      fc.property(robotsTxt, fc.constantFrom(...agentsAsked), ({ text }, agent) => {
        const theirs = robotsParser(ROBOTS_URL, text)
        const ours = parseRobotsRules(ROBOTS_URL, text)
        expect(robotsCrawlDelay(ours, agent)).toBe(theirs.getCrawlDelay(agent))
        expect(robotsSitemaps(ours)).toEqual(theirs.getSitemaps())
      }),
      { numRuns: 5000 },
    )
  })

  it('decides many overlapping rules and long URLs as robots-parser did', () => {
    // Hundreds of rules sharing starts (the index walks their prefixes) and `*` rules tried in
    // order of length, against URLs of a few hundred characters: where robots-parser is still fast.
    const piece = fc.constantFrom('a', 'b', '/', 'ab', 'ba', '/a')
    const rule = fc
      .tuple(fc.constantFrom('Allow', 'Disallow'), fc.array(fc.constantFrom('a', 'b', '/', 'ab', '*', '*a', 'b*'), { maxLength: 8 }), fc.constantFrom('', '', '$'))
      .map(([k, parts, end]) => `${k}: /${parts.join('')}${end}`)
    const text = fc.array(rule, { minLength: 50, maxLength: 400 }).map((rules) => ['User-agent: *', ...rules].join('\n'))
    const longPath = fc.array(piece, { maxLength: 150 }).map((p) => `/${p.join('')}`)
    fc.assert(
      fc.property(text, longPath, (t, p) => {
        const decision = robotsDecide(parseRobotsRules(ROBOTS_URL, t), ORIGIN + p, 'AgentActionAPI')
        expect(decision.verdict).toBe(oracle(t, ORIGIN + p, 'AgentActionAPI'))
        expect(decision.steps).toBeLessThanOrEqual(MOST_STEPS)
      }),
      { numRuns: 300 },
    )
  })

  it('compares URLs with the robots.txt origin: scheme, host and port', () => {
    const rules = parseRobots(ROBOTS_URL, 'User-agent: *\nDisallow: /')
    expect(robotsDecision(rules, `${ORIGIN}/x`)).toBe('disallow')
    expect(robotsDecision(rules, 'https://A.test:443/x')).toBe('disallow')
    for (const other of ['http://a.test/x', 'https://a.test:8443/x', 'https://b.test/x', 'not a url']) expect(robotsDecision(rules, other)).toBe('allow')
    expect(robotsDecision(parseRobots('robots.txt', 'User-agent: *\nDisallow: /'), `${ORIGIN}/x`)).toBe('allow')
  })
})

describe('robots.txt decisions within a bound (amplification)', () => {
  /** A robots.txt of `head` lines, then `line(i)` for i = 0, 1 ... while the text stays within `bytes`. */
  const robotsOf = (line: (i: number) => string, bytes: number, head = ['User-agent: *']) => {
    const lines = [...head]
    let size = head.join('\n').length
    for (let i = 0; ; i++) {
      const next = line(i)
      if (size + 1 + next.length > bytes) break
      lines.push(next)
      size += 1 + next.length
    }
    return lines.join('\n')
  }
  const letters = 'cdefghij0123456789'
  /** Parts of letters that never follow a run of "a" in `longUrl`, so every search scans to its end. */
  const pick = (i: number, n: number) => Array.from({ length: n }, (_, k) => letters[Math.floor(i / letters.length ** k) % letters.length]).join('')
  const longUrl = (k: number) => `${ORIGIN}/${'a'.repeat(2000)}b${letters}~${k}`

  // Failed before (ran past the test timeout): robots-parser's matching cost the rules' length
  // times the URL's, 1.4 s a decision here in Node, so these 40 decisions took about a minute.
  it('decides 40 URLs of 2,000 characters against 380 KB of wildcard rules', () => {
    const text = robotsOf((i) => `Disallow: /*${'a*'.repeat(40)}b${i}`, 380 * 1024)
    const rules = parseRobots(ROBOTS_URL, text)
    for (let k = 0; k < 40; k++) expect(robotsAllows(rules, `${ORIGIN}/${'a'.repeat(2000)}${k}`)).toBe(true)
  })

  it('stops every decision within its bound, whatever 500 KiB of rules ask', () => {
    const shapes: Record<string, string> = {
      'wildcards with many parts': robotsOf((i) => `Disallow: /*${'a*'.repeat(40)}b${i}`, MAX_ROBOTS_CHARS),
      'short parts searched for in a run of their first character': robotsOf((i) => `Disallow: /*a0*${i}`, MAX_ROBOTS_CHARS),
      'short parts never found': robotsOf((i) => `Disallow: /*a${pick(i, 3)}`, MAX_ROBOTS_CHARS),
      'long parts never found': robotsOf((i) => `Disallow: /*aaaaaaaa${pick(i, 4)}`, MAX_ROBOTS_CHARS),
      'end anchors': robotsOf((i) => `Disallow: /*a${pick(i, 2)}${i}$`, MAX_ROBOTS_CHARS),
      'rules passed over': robotsOf((i) => `Allow: /*!${i}`, MAX_ROBOTS_CHARS),
      'a thousand parts each': robotsOf((i) => `Disallow: /*${'a*'.repeat(1000)}~${i}`, MAX_ROBOTS_CHARS),
      'nested prefixes': robotsOf((i) => `Disallow: /${'a'.repeat(i % 1500)}b${i}`, MAX_ROBOTS_CHARS),
      'one crawler in 28,000 groups': robotsOf((i) => (i % 2 ? 'Disallow: /*ab~' : 'User-agent: AgentActionAPI'), MAX_ROBOTS_CHARS, []),
    }
    for (const [shape, text] of Object.entries(shapes)) {
      const rules = parseRobots(ROBOTS_URL, text)
      for (let k = 0; k < 5; k++) {
        const decision = robotsDecide(rules, longUrl(k), 'AgentActionAPI')
        expect(decision.steps, shape).toBeLessThanOrEqual(MOST_STEPS)
        // Failed before: the first four shapes took 0.1 to 1.4 s a decision.
        expect(['allow', 'disallow', 'undecided'], shape).toContain(decision.verdict)
      }
    }
  })

  it('claims neither allow nor disallow when a decision runs out of steps', () => {
    const text = ['User-agent: *', ...Array.from({ length: 2000 }, (_, i) => `Disallow: /*a0*${i}`)].join('\n')
    const rules = parseRobots(ROBOTS_URL, text)
    expect(robotsDecision(rules, longUrl(1))).toBe('undecided')
    expect(robotsAllows(rules, longUrl(1))).toBe(false)
    expect(robotsDisallows(rules, longUrl(1))).toBe(false)
    // The bound is on the work of one decision: the same 2,000 rules decide shorter URLs.
    expect(robotsDecision(rules, `${ORIGIN}/xa0y1`)).toBe('disallow')
    expect(robotsDecision(rules, `${ORIGIN}/x`)).toBe('allow')
  })

  it('makes no decision for a URL longer than 2,048 characters', () => {
    const rules = parseRobots(ROBOTS_URL, 'User-agent: *\nAllow: /')
    const path = (n: number) => `/${'x'.repeat(n - ORIGIN.length - 1)}`
    expect(robotsDecision(rules, ORIGIN + path(MAX_DECIDED_URL_LENGTH))).toBe('allow')
    expect(robotsDecide(rules, ORIGIN + path(MAX_DECIDED_URL_LENGTH + 1), 'AgentActionAPI')).toEqual({ verdict: 'undecided', steps: 0 })
    // Short as written, long once its characters are percent-encoded.
    expect(robotsDecision(rules, `${ORIGIN}/${'é'.repeat(400)}`)).toBe('undecided')
  })

  it('reads the whole lines of the first 500 KiB of robots.txt and nothing after', () => {
    const pad = (n: number) => `# ${'x'.repeat(n - 2)}`
    const head = 'User-agent: *\nDisallow: /first\n'
    // A rule line ending exactly at the limit is read; one the limit cuts is not ("/cu" would disallow more).
    const fits = head + pad(MAX_ROBOTS_CHARS - head.length - 'Disallow: /last\n'.length) + '\nDisallow: /last\nDisallow: /after'
    expect(fits.indexOf('/last') + '/last'.length).toBe(MAX_ROBOTS_CHARS)
    const rules = parseRobots(ROBOTS_URL, fits)
    expect(robotsDecision(rules, `${ORIGIN}/first`)).toBe('disallow')
    expect(robotsDecision(rules, `${ORIGIN}/last`)).toBe('disallow')
    expect(robotsDecision(rules, `${ORIGIN}/after`)).toBe('allow')
    const cut = head + pad(MAX_ROBOTS_CHARS - head.length - '\nDisallow: /cu'.length) + '\nDisallow: /cut-here'
    expect(cut.indexOf('/cu') + '/cu'.length).toBe(MAX_ROBOTS_CHARS)
    expect(robotsDecision(parseRobots(ROBOTS_URL, cut), `${ORIGIN}/cu`)).toBe('allow')
  })

  it('reports only the AI crawlers robots.txt was seen to block', () => {
    // "*" named in 40,000 groups: the crawlers without a group of their own are not decided, so not reported.
    const hostile = robotsOf((i) => (i % 2 ? 'Disallow: /' : 'User-agent: *'), MAX_ROBOTS_CHARS, ['User-agent: GPTBot', 'Disallow: /'])
    expect(describeRobots(ROBOTS_URL, 200, hostile, ORIGIN).blockedAiCrawlers).toEqual(['GPTBot'])
    expect(describeRobots(ROBOTS_URL, 200, 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /', ORIGIN).blockedAiCrawlers).toHaveLength(15)
  })
})

describe('the crawl follows only URLs a decision is bounded for', () => {
  const scope = { kind: 'full_site' as const, site: 'a.test', prefixes: [], reason: 'every page of the site' }
  const url = (n: number) => `${ORIGIN}/${'p'.repeat(n - ORIGIN.length - 1)}`

  it('leaves out links longer than 2,048 characters, as it leaves out other sites', () => {
    expect(crawlable(scope, url(MAX_DECIDED_URL_LENGTH))).toBe(true)
    expect(crawlable(scope, url(MAX_DECIDED_URL_LENGTH + 1))).toBe(false)
  })

  it('refuses a website_url longer than 2,048 characters once percent-encoded', async () => {
    const fetcher = fakeSite(() => new Response('missing', { status: 404 }))
    await expect(discoverSite(fetcher, `${ORIGIN}/${'é'.repeat(400)}`, 'full_site', undefined, 10)).rejects.toMatchObject({ kind: 'invalid_input', field: 'website_url' })
  })

  it('crawls a site of 380 KB of wildcard rules and 2,000-character links, and reports what it could not decide', async () => {
    const robotsTxt = ['User-agent: *', ...Array.from({ length: 30_000 }, (_, i) => `Disallow: /*a0*${i}`)].join('\n').slice(0, 380 * 1024)
    // Every character of the rules is in these paths, and "a0" never is: each rule searches the whole run of "a".
    const long = (k: number) => `/${'a'.repeat(1980)}-0123456789-${k}`
    const links = [...Array.from({ length: 20 }, (_, k) => long(k)), `/${'a'.repeat(3000)}`, '/short']
    const fetcher = fakeSite((path) => {
      const body = path === '/' ? links.map((l) => `<a href="${l}">page</a>`).join(' ') : '<p>A page of the site.</p>'
      return htmlPage(`<html lang="en"><title>${path.slice(0, 20)}</title><body>${body}</body></html>`)
    }, robotsTxt)
    const { runId, site } = await crawlToEnd(fetcher, 50, 4)

    const rows = await donePages(env.DB, runId, '', 1000)
    const pages = rows.map((r) => ({ url: r.url, depth: r.depth, source: r.source, rec: JSON.parse(r.facts) as PageRecord }))
    expect(pages.find((p) => p.url === `${ORIGIN}/`)?.rec.kind).toBe('html')
    expect(pages.find((p) => p.url === `${ORIGIN}/short`)?.rec.kind).toBe('html')
    // Each long link cost its decision the whole bound, so it was not fetched, and says so.
    const blocked = pages.filter((p) => p.rec.kind === 'blocked')
    expect(blocked.map((p) => p.url).sort()).toEqual(Array.from({ length: 20 }, (_, k) => ORIGIN + long(k)).sort())
    for (const p of blocked) expect(p.rec.error).toBe(ROBOTS_UNDECIDED)
    expect(pages.some((p) => p.url.length > MAX_DECIDED_URL_LENGTH)).toBe(false)
    expect((await frontierCounts(env.DB, runId)).total).toBe(pages.length)

    const audit = buildAudit({ site, pages, focus: 'balanced', auditScope: 'full_site', maxPages: 50, notCrawled: 0, now: Date.now() })
    expect(audit.summary.blocked_by_robots).toBe(20)
    const issues = audit.inventory.find((r) => r.url === ORIGIN + long(0))!.issues
    expect(issues.map((i) => i.message)).toEqual(['Not fetched: robots.txt could not be decided for this URL within its matching bound (treated as disallowed for AgentActionAPI)'])
  })

  it('obeys the rules of a robots.txt past its first 100,000 characters', async () => {
    const robotsTxt = `${'# a long preamble\n'.repeat(8000)}User-agent: *\nDisallow: /private\n`
    const fetcher = fakeSite((path) => htmlPage(`<html lang="en"><title>${path}</title><body><a href="/private">private</a> <a href="/public">public</a></body></html>`), robotsTxt)
    const { runId } = await crawlToEnd(fetcher, 10, 2)
    // Failed before: the crawl decided from the first 100,000 characters only, and fetched /private.
    const kinds = Object.fromEntries((await donePages(env.DB, runId, '', 100)).map((r) => [new URL(r.url).pathname, r.kind]))
    expect(kinds).toEqual({ '/': 'html', '/private': 'blocked', '/public': 'html' })
  })
})
