/**
 * The audit's reading of a crawl, one page at a time. A crawl keeps up to 1,000 fetched pages
 * (and more robots-blocked URLs), each with up to PAGE_FACTS_MAX_BYTES of facts: held all at once
 * they could take hundreds of megabytes, where a Worker has 128 MB. So a page's facts are read,
 * checked and dropped: what outlives the page is its own findings, the crawled URLs its links lead
 * to, the first texts the site-wide checks quote, and for an indexable page its first title and
 * H1 and its body's phrase counts (at most LIST_LIMITS.phraseCounts bytes of them).
 * Everything site-wide that depends on all pages (duplicates, orphans, redirect chains, click
 * depths, gaps, keyphrases) is tallied as pages arrive and finished once the last one is in.
 */
import type { SiteInfo } from '../crawler/site'
import { cutChars, squash } from '../lib/text'
import { descriptionKey, titleKey } from '../providers/web/html'
import type { HtmlFacts } from '../providers/web/html-facts'
import { CRAWLER_TOKEN, parseRobots, ROBOTS_UNDECIDED, robotsDisallows } from '../providers/web/robots'
import type { KeyphrasePage } from './cannibalization'
import type { Finding } from './checks'
import { GapTally, type GapPage } from './gaps'
import { pageFindings } from './page-checks'
import { DETAILS_LISTED, isPrimary, linkFindings, namedPages, redirectChainFinding, redirectPath, type CrawledPage, type CrawledUrl } from './site-checks'

/** What the report keeps of one crawled URL once its facts are dropped. */
export interface AnalyzedPage {
  url: string
  source: string
  kind: CrawledUrl['kind']
  status: number | null
  location: string | null
  /** Time to the response headers; null for a URL robots.txt kept from being fetched. */
  fetchMs: number | null
  title: string | null
  wordCount: number | null
  /** What the page alone shows, robots.txt's verdict for Googlebot last. */
  own: Finding[]
  /** broken-links and redirected-links. */
  links: Finding[]
  /** Indexable and self-canonical (isPrimary). */
  primary: boolean
  /** The crawled URLs the page links to, in link order (the crawl's own strings, not copies). */
  targets: string[]
}

/**
 * Characters a finding's message keeps: the longest real ones (a duplicate title quoted with ten
 * URLs, a page's H1s listed) are a few hundred; a hostile page's could be tens of thousands, on
 * every page of the report.
 */
export const MESSAGE_CHARS = 1000

/**
 * A copy of `s` that keeps nothing else alive: V8 makes a cut of a longer string point into it,
 * so a kept prefix would keep the whole text it was cut from.
 */
const detached = (s: string) => (' ' + s).slice(1)

/**
 * A finding as the analysis keeps it: its message within MESSAGE_CHARS, and its details only when
 * asked for (a page's findings reach the report as messages, in its inventory and action plan).
 */
function kept(f: Finding, withDetails = false): Finding {
  const message = f.message.length > MESSAGE_CHARS ? `${detached(cutChars(f.message, MESSAGE_CHARS - 1))}…` : f.message
  return withDetails && f.details !== undefined ? { check: f.check, message, details: f.details } : { check: f.check, message }
}

/** Pages a duplicate title or description message names. */
const DUPLICATES_NAMED = 10

/** A text as a duplicate's message quotes it: squashed, and no longer than a message keeps. */
const quote = (text: string | undefined) => {
  const q = squash(text ?? '')
  return q.length > MESSAGE_CHARS ? detached(cutChars(q, MESSAGE_CHARS)) : q
}

interface DuplicateGroup {
  /** The first page's text, as quoted. */
  quote: string
  urls: string[]
}

export class CrawlAnalysis {
  readonly byUrl: Map<string, CrawledUrl>
  /** The start page, and where it redirects (http -> https, bare domain -> www ...). */
  readonly home: Set<string>
  readonly pages: AnalyzedPage[] = []
  readonly gaps = new GapTally()
  readonly keyphrasePages: (KeyphrasePage & GapPage)[] = []
  private readonly robots: ReturnType<typeof parseRobots>
  private readonly titles = new Map<string, DuplicateGroup>()
  private readonly descriptions = new Map<string, DuplicateGroup>()
  /** Crawled URLs some crawled page links to, directly or through redirects. */
  private readonly reached = new Set<string>()
  /** The pages linking to each crawled redirect, for its chain's report. */
  private readonly linkedFrom = new Map<string, string[]>()

  /** `urls`: every finished URL of the crawl (crawledUrl of each page). */
  constructor(
    readonly site: SiteInfo,
    readonly urls: CrawledUrl[],
    private readonly opts: { now: number; thinWords: number },
  ) {
    this.byUrl = new Map(urls.map((u) => [u.url, u]))
    this.home = new Set([site.startUrl, redirectPath(site.startUrl, this.byUrl).final?.url ?? site.startUrl])
    this.robots = parseRobots(site.robots.url, site.robots.text)
  }

  /** Reads one page; pages are added in crawl order, each once. */
  add(p: CrawledPage): void {
    const { rec } = p
    const h = rec.html
    // A URL robots.txt disallows is the site's choice: reported as a fact, never as a defect.
    const own: Finding[] =
      rec.kind === 'blocked'
        ? [
            {
              check: 'robots-excluded',
              message:
                rec.error === ROBOTS_UNDECIDED
                  ? `Not fetched: robots.txt could not be decided for this URL within its matching bound (treated as disallowed for ${CRAWLER_TOKEN})`
                  : `Excluded by robots.txt (disallowed for ${CRAWLER_TOKEN}); not fetched`,
            },
          ]
        : pageFindings(rec, { now: this.opts.now, home: this.home.has(p.url), sitemapLastmod: this.site.sitemaps.lastmod[p.url], thinWords: this.opts.thinWords })
    // Informational, so only what robots.txt was seen to say: an undecided URL is not reported.
    if (rec.kind === 'html' && robotsDisallows(this.robots, p.url, 'Googlebot')) own.push({ check: 'robots-excluded', message: 'Excluded by robots.txt for Googlebot' })

    const links = h?.links ?? []
    const { findings, targets: linked, reached } = linkFindings(links, this.byUrl)
    for (const url of reached) this.reached.add(url)
    const targets = linked.map((t) => t.url)
    for (const target of linked) {
      if (target.kind === 'redirect') {
        const from = this.linkedFrom.get(target.url)
        if (from) from.push(p.url)
        else this.linkedFrom.set(target.url, [p.url])
      }
    }
    this.gaps.addLinks(p.url, links, this.byUrl)

    const primary = isPrimary(p, this.opts.now)
    if (primary && h) {
      group(this.titles, titleKey(h), p.url, () => quote(h.titles[0]))
      group(this.descriptions, descriptionKey(h), p.url, () => quote(h.metaDescriptions[0]))
      this.gaps.addPrimary(p.url, h)
      this.keyphrasePages.push(keyphrasePage(p.url, h))
    }

    this.pages.push({
      url: p.url,
      source: p.source,
      kind: rec.kind,
      status: rec.status ?? null,
      location: rec.location ?? null,
      fetchMs: rec.kind === 'blocked' ? null : (rec.fetchMs ?? null),
      title: h?.titles[0] ?? null,
      wordCount: h?.wordCount ?? null,
      own: own.map((f) => kept(f)),
      links: findings.map((f) => kept(f)),
      primary,
      targets,
    })
  }

  /**
   * Every page's findings, in the order pages were added (pages with none left out): its own,
   * then duplicates, its links, its redirect chain and whether it is an orphan.
   */
  findings(): Map<string, Finding[]> {
    const cross = new Map<string, Finding[]>()
    const add = (url: string, f: Finding) => {
      const list = cross.get(url)
      if (list) list.push(f)
      else cross.set(url, [f])
    }
    for (const [, g] of this.titles) {
      if (g.urls.length < 2) continue
      const details = { title: g.quote, pages: g.urls.slice(0, DETAILS_LISTED) }
      const message = `Title "${g.quote}" is shared by ${g.urls.length} pages: ${namedPages(g.urls, DUPLICATES_NAMED)}`
      const f = kept({ check: 'duplicate-title', message, details }, true)
      for (const url of g.urls) add(url, f)
    }
    for (const [, g] of this.descriptions) {
      if (g.urls.length < 2) continue
      const details = { description: g.quote, pages: g.urls.slice(0, DETAILS_LISTED) }
      const message = `Meta description "${g.quote}" is shared by ${g.urls.length} pages: ${namedPages(g.urls, DUPLICATES_NAMED)}`
      const f = kept({ check: 'duplicate-description', message, details }, true)
      for (const url of g.urls) add(url, f)
    }
    const out = new Map<string, Finding[]>()
    for (const p of this.pages) {
      const list = [...p.own, ...(cross.get(p.url) ?? []), ...p.links]
      if (p.kind === 'redirect') {
        const chain = redirectChainFinding(p.url, p.source, this.linkedFrom.get(p.url) ?? [], this.byUrl)
        if (chain) list.push(kept(chain, true))
      }
      if (p.primary && !this.home.has(p.url) && p.url !== this.site.startUrl && !this.reached.has(p.url)) {
        list.push({ check: 'orphan-page', message: 'No crawled page links here (found through the sitemap or a redirect)' })
      }
      if (list.length) out.set(p.url, list)
    }
    return out
  }

  /**
   * Click depth of every crawled URL from the start page: following a link is one click, a redirect
   * none. URLs no crawled link reaches (found only through a sitemap) are left out.
   */
  depths(): Map<string, number> {
    const byUrl = new Map(this.pages.map((p) => [p.url, p]))
    const depth = new Map<string, number>([[this.site.startUrl, 0]])
    // 0-1 breadth-first search: redirects go to the front of the queue, links to the back.
    const queue: string[] = [this.site.startUrl]
    while (queue.length) {
      const url = queue.shift()!
      const d = depth.get(url)!
      const page = byUrl.get(url)
      if (!page) continue
      const location = page.kind === 'redirect' ? page.location : null
      if (location && (depth.get(location) ?? Infinity) > d) {
        depth.set(location, d)
        queue.unshift(location)
      }
      for (const target of page.targets) {
        if ((depth.get(target) ?? Infinity) > d + 1) {
          depth.set(target, d + 1)
          queue.push(target)
        }
      }
    }
    return depth
  }
}

/** What keyphrases and gaps keep of an indexable page (a heading's text is at most 200 characters, html.ts). */
export function keyphrasePage(url: string, h: HtmlFacts): KeyphrasePage & GapPage {
  return { url, title: h.titles[0] ?? '', h1: h.headings.find((x) => x.level === 1)?.text ?? '', phraseCounts: h.phraseCounts }
}

/** Adds a page to the group of its duplicate key (none for an empty text), quoting the first page's text. */
function group(groups: Map<string, DuplicateGroup>, key: string, url: string, quote: () => string): void {
  if (!key) return
  const g = groups.get(key)
  if (g) g.urls.push(url)
  else groups.set(key, { quote: quote(), urls: [url] })
}
