import { pageQuestions } from '../audit/questions'
import { fetchPage } from '../crawler/fetch-page'
import { crawlable, normalizeUrl } from '../crawler/scope'
import { discoverSite } from '../crawler/site'
import type { GuardedFetch } from '../providers/web/fetch'
import { parseRobots, robotsAllows } from '../providers/web/robots'
import { errorText, nowIso, type Provenance } from './types'

/** What the research keeps of one page of the site. */
export interface SitePage {
  url: string
  title: string | null
  h1: string | null
  headings: string[]
  /** Top terms and bigrams of the main text, with counts. */
  terms: [string, number][]
  questions: string[]
  word_count: number
}

export interface SitePages extends Provenance {
  pages_fetched: number
  pages: SitePage[]
}

const CONCURRENCY = 4

/**
 * A small, bounded crawl of the site for candidate keywords and coverage checks. It reuses the
 * content audit crawler's site discovery (robots.txt, sitemaps) and page fetch/extract, but not its
 * D1 frontier: a few dozen pages fit in one request, so the frontier is an in-memory list seeded
 * with the start page and sitemap URLs and extended with same-site links, breadth first. robots.txt
 * is obeyed; redirects are followed inside the site.
 */
export async function crawlSitePages(fetcher: GuardedFetch, websiteUrl: string, maxPages: number): Promise<SitePages> {
  let site
  try {
    site = await discoverSite(fetcher, websiteUrl, 'full_site', undefined, maxPages)
  } catch (err) {
    return { status: 'error', source: 'site_crawl', measured_at: nowIso(), note: `The site could not be crawled: ${errorText(err)}`, pages_fetched: 0, pages: [] }
  }
  const robots = parseRobots(site.robots.url, site.robots.text)
  const queue: string[] = []
  const seen = new Set<string>()
  const enqueue = (url: string | null) => {
    if (!url || seen.has(url) || !crawlable(site.scope, url) || !robotsAllows(robots, url)) return
    seen.add(url)
    queue.push(url)
  }
  // Start page first, then links found on fetched pages, then the sitemap: the pages a visitor reaches first.
  enqueue(site.startUrl)
  const sitemapSeeds = site.seeds.filter((s) => s !== site.startUrl)
  let fetched = 0
  const pages: SitePage[] = []
  // Waves of parallel fetches: simple, and a few dozen pages make the wave barrier cheap.
  while (fetched < maxPages) {
    while (queue.length < CONCURRENCY && sitemapSeeds.length) enqueue(sitemapSeeds.shift()!)
    const wave = queue.splice(0, Math.min(CONCURRENCY, maxPages - fetched))
    if (!wave.length) break
    fetched += wave.length
    const records = await Promise.all(wave.map((url) => fetchPage(fetcher, url)))
    for (const rec of records) {
      if (rec.kind === 'redirect') enqueue(rec.location)
      if (rec.kind !== 'html' || !rec.html) continue
      const h = rec.html
      for (const link of h.links) if (!link.nofollow) enqueue(normalizeUrl(link.url))
      pages.push({
        url: rec.url,
        title: h.titles[0]?.trim() || null,
        h1: h.headings.find((x) => x.level === 1)?.text ?? null,
        headings: h.headings
          .filter((x) => x.level <= 3)
          .map((x) => x.text)
          .slice(0, 40),
        terms: h.terms.slice(0, 30),
        questions: pageQuestions(h)
          .map((q) => q.text)
          .slice(0, 20),
        word_count: h.wordCount,
      })
    }
  }
  return {
    status: pages.length ? 'ok' : 'error',
    source: 'site_crawl',
    measured_at: nowIso(),
    note: pages.length
      ? `${pages.length} HTML pages of ${site.origin} read (${fetched} URLs fetched, at most ${maxPages}; robots.txt obeyed)`
      : `No HTML page of ${site.origin} could be read (${fetched} URLs fetched)`,
    pages_fetched: fetched,
    pages,
  }
}
