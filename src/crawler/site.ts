import { ProviderError, UpstreamError } from '../providers/errors'
import type { GuardedFetch } from '../providers/web/fetch'
import { CRAWLER_TOKEN, describeRobots, parseRobots, robotsDecision, type RobotsInfo } from '../providers/web/robots'
import { MAX_DECIDED_URL_LENGTH } from '../providers/web/robots-rules'
import { gunzip, isGzip, parseFeedLinks, parseSitemap } from '../providers/web/sitemap'
import { fetchPage } from './fetch-page'
import { blogPrefixes, crawlable, normalizeUrl, sameSite, siteOf, type AuditScope, type Scope } from './scope'

/** Site-level facts gathered before the crawl: robots.txt, sitemaps, llms.txt, scope and seeds. */
export interface SiteInfo {
  startUrl: string
  origin: string
  scope: Scope
  robots: RobotsInfo
  llmsTxt: { url: string; present: boolean; status: number | null; bytes: number }
  /** `listed`: the sitemap URLs seeded into the crawl (the ones whose answers the sitemap check reads). */
  sitemaps: { fetched: string[]; errors: { url: string; message: string }[]; urlCount: number; lastmod: Record<string, string>; listed: string[] }
  feeds: string[]
  seeds: string[]
}

/**
 * Sitemap files requested at most, answered or not: an index may list tens of thousands of files
 * (robots.txt too), and ones that fail would otherwise never use the budget up.
 */
export const MAX_SITEMAP_FILES = 25
const MAX_SITEMAP_URLS = 5000
const MAX_SITEMAP_BYTES = 10 * 1024 * 1024
/** The longest sitemap lastmod kept: a W3C datetime is at most 35 characters ("2025-03-03T12:34:56.123456789+01:00"). */
const MAX_LASTMOD_CHARS = 64

/**
 * Whether a sitemap's file name names posts ("post-sitemap.xml", "news_1.xml.gz"): a word before
 * the ".xml" ending, in the last path segment. What `/(post|blog|article|news)[^/]*\.xml(\.gz)?$/i`
 * says, read in two linear steps: that pattern scanned the rest of the segment from each word in it.
 */
export function isPostSitemap(url: string): boolean {
  const name = url.slice(url.lastIndexOf('/') + 1)
  const ending = /\.xml(?:\.gz)?$/i.exec(name)
  return ending !== null && /post|blog|article|news/i.test(name.slice(0, ending.index))
}

/** Fetches a small text resource; status null when it could not be reached. */
async function fetchText(fetcher: GuardedFetch, url: string, maxBytes: number): Promise<{ status: number | null; text: string; contentType: string; bytes: Uint8Array }> {
  try {
    const res = await fetcher(url, { service: new URL(url).hostname, timeoutMs: 10_000, maxBytes, retries: 1, maxRetryAfterMs: 3000 })
    if (res.status >= 400) {
      await res.body?.cancel()
      return { status: res.status, text: '', contentType: '', bytes: new Uint8Array() }
    }
    const bytes = new Uint8Array(await res.arrayBuffer())
    return { status: res.status, text: new TextDecoder().decode(bytes), contentType: res.headers.get('content-type') ?? '', bytes }
  } catch {
    return { status: null, text: '', contentType: '', bytes: new Uint8Array() }
  }
}

/** Reads sitemaps breadth-first through sitemap indexes, gzip included, within file and URL caps (`guessed`: the root is /sitemap.xml, not declared). */
async function readSitemaps(fetcher: GuardedFetch, roots: string[], site: string, guessed: boolean) {
  // Breadth first within MAX_SITEMAP_FILES requests, a file listed beyond them would never be read:
  // the queue holds only those that will be, and a file listed again (an index listing itself) is not.
  const queue = [...new Set(roots)].slice(0, MAX_SITEMAP_FILES)
  const listed = new Set(queue)
  let requested = 0
  const fetched: string[] = []
  const errors: { url: string; message: string }[] = []
  const urls: string[] = []
  const postUrls: string[] = []
  const lastmod: Record<string, string> = {}
  while (queue.length && urls.length < MAX_SITEMAP_URLS) {
    const url = queue.shift()!
    requested++
    const got = await fetchText(fetcher, url, MAX_SITEMAP_BYTES)
    if (got.status === null || got.status >= 400) {
      // A missing /sitemap.xml that nothing declared is no error (the sitemap check reports "none").
      if (guessed && got.status === 404 && roots.includes(url)) continue
      errors.push({ url, message: got.status === null ? 'could not be fetched' : `HTTP ${got.status}` })
      continue
    }
    fetched.push(url)
    let xml = got.text
    if (isGzip(got.bytes)) {
      try {
        xml = await gunzip(got.bytes, MAX_SITEMAP_BYTES)
      } catch (err) {
        errors.push({ url, message: `gzip: ${(err as Error).message}` })
        continue
      }
    }
    const parsed = parseSitemap(xml)
    const postSitemap = isPostSitemap(url)
    if (parsed.kind === 'invalid') errors.push({ url, message: parsed.error ?? 'invalid sitemap' })
    for (const child of parsed.sitemaps) {
      if (requested + queue.length >= MAX_SITEMAP_FILES) break
      const n = normalizeUrl(child, url)
      if (n && !listed.has(n) && sameSite({ site }, n)) {
        listed.add(n)
        queue.push(n)
      }
    }
    for (const entry of parsed.urls) {
      const n = normalizeUrl(entry.loc, url)
      // A URL the crawl cannot follow is not kept (5,000 of 8,192 characters would be 40 MB), and a
      // lastmod longer than any date is no date.
      if (!n || n.length > MAX_DECIDED_URL_LENGTH || !sameSite({ site }, n) || urls.length >= MAX_SITEMAP_URLS) continue
      urls.push(n)
      if (entry.lastmod && entry.lastmod.length <= MAX_LASTMOD_CHARS) lastmod[n] = entry.lastmod
      if (postSitemap) postUrls.push(n)
    }
  }
  return { fetched, errors, urls, postUrls, lastmod }
}

/**
 * Gathers what the crawl needs before fetching pages, and the scope. `custom_path` scope uses
 * `customPath`, else the path of the start URL; `blog_only` finds blog sections from URL paths,
 * post sitemaps and feeds (see `blogPrefixes`).
 */
export async function discoverSite(fetcher: GuardedFetch, websiteUrl: string, kind: AuditScope, customPath: string | undefined, maxPages: number): Promise<SiteInfo> {
  const startUrl = normalizeUrl(websiteUrl)
  if (!startUrl) throw new ProviderError('invalid_input', 'website_url must be an absolute http or https URL', 'website_url')
  if (startUrl.length > MAX_DECIDED_URL_LENGTH) {
    throw new ProviderError('invalid_input', `website_url is ${startUrl.length} characters once percent-encoded; the crawl follows URLs of at most ${MAX_DECIDED_URL_LENGTH}`, 'website_url')
  }
  const start = new URL(startUrl)
  const origin = start.origin
  const site = siteOf(start.hostname)

  const robotsUrl = `${origin}/robots.txt`
  const robotsAnswer = await fetchText(fetcher, robotsUrl, 512 * 1024)
  const robots = describeRobots(robotsUrl, robotsAnswer.status, robotsAnswer.text, origin)

  const llmsUrl = `${origin}/llms.txt`
  const llms = await fetchText(fetcher, llmsUrl, 1024 * 1024)
  const llmsPresent = llms.status !== null && llms.status < 300 && llms.text.trim().length > 0 && !/html/i.test(llms.contentType) && !/^\s*</.test(llms.text)

  const sitemapRoots = robots.sitemaps.map((s) => normalizeUrl(s)).filter((s): s is string => !!s && sameSite({ site }, s))
  const sitemaps = await readSitemaps(fetcher, sitemapRoots.length ? sitemapRoots : [`${origin}/sitemap.xml`], site, sitemapRoots.length === 0)

  let scope: Scope
  const feeds: string[] = []
  if (kind === 'full_site') {
    scope = { kind, site, prefixes: [], reason: 'every page of the site' }
  } else if (kind === 'custom_path') {
    const path = customPath ?? start.pathname
    if (!path || path === '/') {
      throw new ProviderError('invalid_input', 'audit_scope custom_path needs a path: give custom_path (e.g. "/docs/") or a website_url with a path', 'custom_path')
    }
    scope = { kind, site, prefixes: [path], reason: customPath ? `custom_path ${path}` : `path of website_url (${path})` }
  } else {
    const home = await fetchPage(fetcher, startUrl)
    const homeLinks = home.html?.links.map((l) => l.url) ?? []
    const feedItems: string[] = []
    for (const feed of (home.html?.feeds ?? []).slice(0, 3)) {
      feeds.push(feed)
      const got = await fetchText(fetcher, feed, 5 * 1024 * 1024)
      // A feed may list hundreds of thousands of items: appended one by one, never spread into a call's arguments.
      for (const item of parseFeedLinks(got.text)) feedItems.push(item)
    }
    const found = blogPrefixes([...homeLinks, ...sitemaps.urls], sitemaps.postUrls, feedItems, site)
    if (found.prefixes.length === 0) {
      throw new ProviderError(
        'unprocessable',
        'audit_scope blog_only found no blog section on this site (no /blog, /news, /articles ... section, post sitemap or feed). Use full_site or custom_path.',
        'audit_scope',
      )
    }
    scope = { kind, site, prefixes: found.prefixes, reason: found.reason }
  }

  const parsedRobots = parseRobots(robotsUrl, robots.text)
  const seeds: string[] = []
  // A Set beside the list: a sitemap may repeat a URL thousands of times, each a search of up to
  // 2,000 seeds of 2,000 characters (0.85 s in Node).
  const seeded = new Set<string>()
  const add = (url: string) => {
    if (seeded.has(url) || !crawlable(scope, url)) return
    seeded.add(url)
    seeds.push(url)
  }
  add(startUrl)
  for (const p of scope.prefixes) add(`${origin}${p}`)
  const listed: string[] = []
  for (const url of sitemaps.urls) {
    if (seeds.length >= maxPages * 2) break
    if (crawlable(scope, url)) listed.push(url)
    add(url)
  }
  if (seeds.length === 0) throw new ProviderError('unprocessable', `No page of ${startUrl} is inside the audit scope (${scope.reason})`, 'website_url')
  let undecided = false
  const allowed = seeds.some((s) => {
    const verdict = robotsDecision(parsedRobots, s)
    undecided ||= verdict === 'undecided'
    return verdict === 'allow'
  })
  if (!allowed) {
    const why = undecided ? ' (or could not be decided within its matching bound)' : ''
    throw new ProviderError('unprocessable', `robots.txt of ${origin} disallows every starting page of the audit for our crawler (${CRAWLER_TOKEN})${why}`, 'website_url')
  }
  return {
    startUrl,
    origin,
    scope,
    robots,
    llmsTxt: { url: llmsUrl, present: llmsPresent, status: llms.status, bytes: llms.text.length },
    sitemaps: { fetched: sitemaps.fetched, errors: sitemaps.errors, urlCount: sitemaps.urls.length, lastmod: Object.fromEntries(Object.entries(sitemaps.lastmod).slice(0, 2000)), listed },
    feeds,
    seeds,
  }
}

/**
 * Fetches the start page (following up to five redirects) and fails when the site cannot be
 * crawled from it: the upstream error as it came (DNS failure, refused connection, timeout: 502 or
 * 504), or an `unprocessable` error naming the status when the page answers 4xx/5xx. An audit of a
 * site whose start page is unreachable would score pages that were never read.
 */
export async function assertStartPageReachable(fetcher: GuardedFetch, websiteUrl: string, timeoutMs = 10_000): Promise<void> {
  const url = normalizeUrl(websiteUrl) ?? websiteUrl
  let res: Response
  try {
    res = await fetcher(url, {
      service: new URL(url).hostname,
      timeoutMs,
      maxBytes: 64 * 1024,
      maxRedirects: 5,
      retries: 1,
      maxRetryAfterMs: 3000,
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
    })
  } catch (err) {
    if (err instanceof UpstreamError) {
      throw new UpstreamError(err.service, err.kind, `The site could not be crawled: its start page ${url} failed: ${err.message}`, err.status, err.retryAfterSeconds)
    }
    throw err
  }
  await res.body?.cancel()
  if (res.status >= 400) {
    throw new ProviderError('unprocessable', `The site could not be crawled: its start page ${url} answered HTTP ${res.status}. Check website_url, or audit a page that answers 200.`, 'website_url')
  }
}
