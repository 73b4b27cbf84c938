import type { CrawlKind } from '../db/crawl'
import type { PageRecord } from '../crawler/fetch-page'
import type { SiteInfo } from '../crawler/site'
import type { PageLink } from '../providers/web/html-facts'
import { AI_CRAWLERS } from '../providers/web/robots'
import type { Finding } from './checks'
import { canonicalCheck, indexBlockers } from './page-checks'

/** A crawled URL with what the crawler knows about it. */
export interface CrawledPage {
  url: string
  depth: number
  source: string
  rec: PageRecord
}

/**
 * What the audit knows of every finished URL before it reads any page's facts: enough to follow
 * redirects and to tell which link targets were crawled and how they answered.
 */
export interface CrawledUrl {
  url: string
  kind: CrawlKind
  status: number | null
  /** Redirect target (redirects only). */
  location: string | null
  /** Why the URL was not read (errors and robots-blocked URLs). */
  error: string | null
}

export const crawledUrl = (p: CrawledPage): CrawledUrl => ({ url: p.url, kind: p.rec.kind, status: p.rec.status ?? null, location: p.rec.location ?? null, error: p.rec.error ?? null })

/**
 * Pages a site-wide finding's details list at most (its message counts them all): a title shared
 * by hundreds of pages, or a redirect linked from them, would otherwise hold every URL.
 */
export const DETAILS_LISTED = 20

/** Pages a message names before saying how many more there are. */
const NAMED = 3

/** `urls` named in a message: the first few and how many more. */
export const namedPages = (urls: string[], named = NAMED) => `${urls.slice(0, named).join(', ')}${urls.length > named ? ` and ${urls.length - named} more` : ''}`

/** Whether a page is an indexable, self-canonical HTML page (the ones duplicates and keyphrases are judged on). */
export function isPrimary(p: CrawledPage, now: number): boolean {
  if (p.rec.kind !== 'html' || !p.rec.html) return false
  if (indexBlockers(p.rec, now).length) return false
  const c = canonicalCheck(p.rec)
  return !c.target || c.target === p.url
}

/** Follows redirects from `url`; returns the hops and whether it loops. */
export function redirectPath(url: string, byUrl: Map<string, CrawledUrl>): { hops: string[]; loop: boolean; final: CrawledUrl | null } {
  const hops: string[] = []
  const seen = new Set<string>([url])
  let current = byUrl.get(url) ?? null
  while (current && current.kind === 'redirect' && current.location) {
    const next = current.location
    hops.push(next)
    if (seen.has(next)) return { hops, loop: true, final: null }
    seen.add(next)
    current = byUrl.get(next) ?? null
    if (hops.length > 10) return { hops, loop: true, final: null }
  }
  return { hops, loop: false, final: current }
}

/**
 * What one page's links say: its links to crawled URLs that answer an error (directly or at the end
 * of their redirects) and to crawled redirects; the crawled URLs it links to (`targets`, in link
 * order, the crawl's own strings); and those plus where their redirects end (`reached`).
 */
export function linkFindings(links: PageLink[], byUrl: Map<string, CrawledUrl>): { findings: Finding[]; targets: CrawledUrl[]; reached: string[] } {
  const broken: { url: string; text: string; status: number | null }[] = []
  const redirected: string[] = []
  const targets: CrawledUrl[] = []
  const reached: string[] = []
  for (const l of links) {
    const target = byUrl.get(l.url)
    if (!target) continue
    targets.push(target)
    reached.push(target.url)
    if (target.kind === 'error') broken.push({ url: l.url, text: l.text, status: target.status })
    else if (target.kind === 'redirect') {
      const path = redirectPath(l.url, byUrl)
      if (path.final) reached.push(path.final.url)
      if (path.final?.kind === 'error') broken.push({ url: l.url, text: l.text, status: path.final.status })
      else redirected.push(l.url)
    }
  }
  const findings: Finding[] = []
  if (broken.length)
    findings.push({
      check: 'broken-links',
      message: `${broken.length} link(s) to missing pages: ${broken
        .slice(0, 3)
        .map((b) => `${b.url} (${b.status ?? 'unreachable'})`)
        .join(', ')}`,
      details: broken,
    })
  if (redirected.length)
    findings.push({
      check: 'redirected-links',
      message: `${redirected.length} link(s) to redirecting URLs: ${redirected
        .slice(0, 3)
        .map((u) => `${u} → ${redirectPath(u, byUrl).hops.at(-1)}`)
        .join(', ')}`,
      details: redirected,
    })
  return { findings, targets, reached }
}

/** A crawled redirect's chain or loop, if it has one (`from`: the crawled pages linking to it, in crawl order). */
export function redirectChainFinding(url: string, source: string, from: string[], byUrl: Map<string, CrawledUrl>): Finding | null {
  const path = redirectPath(url, byUrl)
  if (!path.loop && path.hops.length < 2) return null
  const via = from.length ? `linked from ${namedPages(from)}` : `found through the ${source === 'sitemap' ? 'sitemap' : source}`
  const hops = [url, ...path.hops]
  const details = { linked_from: from.slice(0, DETAILS_LISTED), hops, target: path.loop ? null : (path.final?.url ?? path.hops.at(-1) ?? null), loop: path.loop }
  if (path.loop) return { check: 'redirect-chain', message: `Redirect loop (${via}): ${hops.join(' → ')}`, details }
  return { check: 'redirect-chain', message: `${path.hops.length} redirect hops to ${details.target} (${via}): ${hops.join(' → ')}`, details }
}

/**
 * Site-level checks: robots.txt validity, sitemaps (the files, and the URLs they list that answer
 * 4xx/5xx), llms.txt and AI crawler access.
 */
export function siteFindings(site: SiteInfo, urls: CrawledUrl[] = []): Finding[] {
  const f: Finding[] = []
  const r = site.robots
  if (r.status !== null && r.status >= 500) f.push({ check: 'robots-txt', message: `robots.txt answered HTTP ${r.status}` })
  else if (r.errors.length)
    f.push({
      check: 'robots-txt',
      message: `${r.errors.length} invalid line(s) in robots.txt: ${r.errors
        .slice(0, 3)
        .map((e) => `line ${e.line}: ${e.message}`)
        .join('; ')}`,
      details: r.errors,
    })
  const listed = new Set(site.sitemaps.listed ?? [])
  const failing = urls
    .filter((p) => listed.has(p.url) && p.kind === 'error' && p.status !== null && p.status >= 400)
    .map((p) => ({ url: p.url, status: p.status! }))
    .sort((a, b) => a.url.localeCompare(b.url))
  if (site.sitemaps.fetched.length === 0) f.push({ check: 'sitemap', message: 'No XML sitemap found (robots.txt Sitemap: lines or /sitemap.xml)', details: { files: site.sitemaps.errors } })
  else if (site.sitemaps.errors.length || failing.length) {
    const parts: string[] = []
    if (site.sitemaps.errors.length)
      parts.push(
        `${site.sitemaps.errors.length} sitemap file(s) failed: ${site.sitemaps.errors
          .slice(0, 3)
          .map((e) => `${e.url} (${e.message})`)
          .join(', ')}`,
      )
    if (failing.length)
      parts.push(
        `${failing.length} listed URL(s) answer an error: ${failing
          .slice(0, 5)
          .map((u) => `${u.url} (HTTP ${u.status})`)
          .join(', ')}`,
      )
    f.push({ check: 'sitemap', message: parts.join('; '), details: { files: site.sitemaps.errors, urls: failing } })
  }
  if (!site.llmsTxt.present) f.push({ check: 'llms-txt', message: `${site.llmsTxt.url} is missing` })
  const blocked = new Set(r.blockedAiCrawlers)
  const answers = AI_CRAWLERS.filter((c) => c.purpose === 'answers' && blocked.has(c.agent))
  const training = AI_CRAWLERS.filter((c) => c.purpose === 'training' && blocked.has(c.agent))
  if (answers.length) f.push({ check: 'ai-crawlers', message: `robots.txt blocks ${answers.map((c) => c.agent).join(', ')}`, details: answers })
  if (training.length) f.push({ check: 'ai-training-crawlers', message: `robots.txt blocks ${training.map((c) => c.agent).join(', ')}`, details: training })
  return f
}
