import type { SiteInfo } from '../crawler/site'
import { CRAWLER_TOKEN, parseRobots, ROBOTS_UNDECIDED, robotsDisallows } from '../providers/web/robots'
import { findCannibalization, type CannibalizationGroup } from './cannibalization'
import { CHECKS, type CheckId, type Finding } from './checks'
import { findGaps, type ContentGaps } from './gaps'
import { pageFindings, THIN_CONTENT_WORDS } from './page-checks'
import { buildPlan, PRIORITY_FORMULA, type PlanItem } from './plan'
import { pageScores, SCORE_FORMULA, siteScores, type Focus } from './scoring'
import { crossPageFindings, isPrimary, redirectPath, siteFindings, type CrawledPage } from './site-checks'

/** One row of the page inventory. */
export interface InventoryRow {
  url: string
  kind: string
  status: number | null
  title: string | null
  word_count: number | null
  /** Time to response headers, ms (null when not fetched). */
  response_ms: number | null
  /** Clicks from the start page (redirects add none); null when no crawled link leads here (sitemap only). */
  depth: number | null
  seo_score: number | null
  aeo_score: number | null
  redirects_to: string | null
  issues: { check: CheckId; severity: string; category: string; message: string }[]
}

/** The audit result. */
export interface Audit {
  website_url: string
  audit_scope: string
  optimization_focus: Focus
  scope: { prefixes: string[]; how: string }
  summary: {
    urls_crawled: number
    html_pages: number
    error_pages: number
    redirects: number
    non_html_skipped: number
    blocked_by_robots: number
    not_crawled_page_cap: number
    max_pages: number
    /** Words of main content under which a page is reported as thin (the request's thin_content_words). */
    thin_content_words: number
    /** Mean time to response headers of the fetched pages (server response time), ms. */
    average_response_ms: number | null
    issues: { error: number; warning: number; notice: number; info: number }
  }
  scores: { seo: number; aeo: number; overall: number; formula: string }
  /** Every site-level check; `title` is worded as a pass or as the failure it found. */
  site_checks: { check: CheckId; category: string; severity: string; passed: boolean; title: string; message: string | null; details?: unknown }[]
  action_plan: PlanItem[]
  priority_formula: string
  keyword_cannibalization: CannibalizationGroup[]
  content_gaps: ContentGaps
  inventory: InventoryRow[]
  robots_txt: { url: string; status: number | null; errors: { line: number; message: string }[]; blocked_ai_crawlers: string[]; crawl_delay_seconds: number | null }
  sitemaps: { fetched: string[]; errors: { url: string; message: string }[]; url_count: number }
  llms_txt: { url: string; present: boolean }
  generated_at: string
}

function mean(xs: (number | undefined)[]): number | null {
  const nums = xs.filter((x): x is number => typeof x === 'number')
  return nums.length ? Math.round(nums.reduce((a, b) => a + b, 0) / nums.length) : null
}

/**
 * Click depth of every crawled URL from the start page: following a link is one click, a redirect
 * none. URLs no crawled link reaches (found only through a sitemap) are left out.
 */
export function clickDepths(startUrl: string, pages: CrawledPage[]): Map<string, number> {
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const depth = new Map<string, number>([[startUrl, 0]])
  // 0-1 breadth-first search: redirects go to the front of the queue, links to the back.
  const queue: string[] = [startUrl]
  while (queue.length) {
    const url = queue.shift()!
    const d = depth.get(url)!
    const page = byUrl.get(url)
    if (!page) continue
    const location = page.rec.kind === 'redirect' ? page.rec.location : null
    if (location && (depth.get(location) ?? Infinity) > d) {
      depth.set(location, d)
      queue.unshift(location)
    }
    for (const l of page.rec.html?.links ?? []) {
      if ((depth.get(l.url) ?? Infinity) > d + 1) {
        depth.set(l.url, d + 1)
        queue.push(l.url)
      }
    }
  }
  return depth
}

/** Builds the audit from the crawled pages and site facts. */
export function buildAudit(opts: { site: SiteInfo; pages: CrawledPage[]; focus: Focus; auditScope: string; maxPages: number; notCrawled: number; now: number; thinContentWords?: number }): Audit {
  const { site, pages, focus, now } = opts
  const thinWords = opts.thinContentWords ?? THIN_CONTENT_WORDS
  // The start page, or where it redirects (http -> https, bare domain -> www ...).
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const home = new Set([site.startUrl, redirectPath(site.startUrl, byUrl).final?.url ?? site.startUrl])
  const cross = crossPageFindings(pages, site, now, home)
  const robots = parseRobots(site.robots.url, site.robots.text)
  const findings = new Map<string, Finding[]>()
  for (const p of pages) {
    // A URL robots.txt disallows is the site's choice: reported as a fact, never as a defect.
    const list: Finding[] =
      p.rec.kind === 'blocked'
        ? [
            {
              check: 'robots-excluded',
              message:
                p.rec.error === ROBOTS_UNDECIDED
                  ? `Not fetched: robots.txt could not be decided for this URL within its matching bound (treated as disallowed for ${CRAWLER_TOKEN})`
                  : `Excluded by robots.txt (disallowed for ${CRAWLER_TOKEN}); not fetched`,
            },
          ]
        : pageFindings(p.rec, { now, home: home.has(p.url), sitemapLastmod: site.sitemaps.lastmod[p.url], thinWords })
    // Informational, so only what robots.txt was seen to say: an undecided URL is not reported.
    if (p.rec.kind === 'html' && robotsDisallows(robots, p.url, 'Googlebot')) list.push({ check: 'robots-excluded', message: 'Excluded by robots.txt for Googlebot' })
    list.push(...(cross.get(p.url) ?? []))
    if (list.length) findings.set(p.url, list)
  }
  const siteLevel = siteFindings(site, pages)
  const depths = clickDepths(site.startUrl, pages)

  const inventory: InventoryRow[] = pages
    .map((p) => {
      const list = findings.get(p.url) ?? []
      const scores = pageScores(p.rec.kind, list)
      return {
        url: p.url,
        kind: p.rec.kind,
        status: p.rec.status ?? null,
        title: p.rec.html?.titles[0] ?? null,
        word_count: p.rec.html?.wordCount ?? null,
        response_ms: p.rec.kind === 'blocked' ? null : (p.rec.fetchMs ?? null),
        depth: depths.get(p.url) ?? null,
        seo_score: scores.seo,
        aeo_score: scores.aeo,
        redirects_to: p.rec.location ?? null,
        issues: list.map((f) => ({ check: f.check, severity: CHECKS[f.check].severity, category: CHECKS[f.check].category, message: f.message })),
      }
    })
    .sort((a, b) => (a.depth ?? Infinity) - (b.depth ?? Infinity) || a.url.localeCompare(b.url))

  const scored = inventory.filter((r) => r.seo_score !== null)
  const scores = siteScores(
    scored.map((r) => ({ seo: r.seo_score, aeo: r.aeo_score })),
    siteLevel,
    focus,
  )
  const primary = pages.filter((p) => isPrimary(p, now))
  const count = (kind: string) => pages.filter((p) => p.rec.kind === kind).length
  const issues = { error: 0, warning: 0, notice: 0, info: 0 }
  for (const list of [...findings.values(), siteLevel]) for (const f of list) issues[CHECKS[f.check].severity]++
  const failedSite = new Map(siteLevel.map((f) => [f.check, f]))
  const siteCheckIds: CheckId[] = ['robots-txt', 'sitemap', 'llms-txt', 'ai-crawlers', 'ai-training-crawlers']

  return {
    website_url: site.startUrl,
    audit_scope: opts.auditScope,
    optimization_focus: focus,
    scope: { prefixes: site.scope.prefixes, how: site.scope.reason },
    summary: {
      urls_crawled: pages.filter((p) => p.rec.kind !== 'blocked').length,
      html_pages: count('html'),
      error_pages: count('error'),
      redirects: count('redirect'),
      non_html_skipped: count('skipped'),
      blocked_by_robots: count('blocked'),
      not_crawled_page_cap: opts.notCrawled,
      max_pages: opts.maxPages,
      thin_content_words: thinWords,
      average_response_ms: mean(pages.filter((p) => p.rec.kind !== 'blocked').map((p) => p.rec.fetchMs)),
      issues,
    },
    scores: { ...scores, formula: SCORE_FORMULA },
    site_checks: siteCheckIds.map((check) => {
      const f = failedSite.get(check)
      const info = CHECKS[check]
      return { check, category: info.category, severity: info.severity, passed: !f, title: f ? info.title : info.passed, message: f?.message ?? null, ...(f?.details ? { details: f.details } : {}) }
    }),
    action_plan: buildPlan(findings, siteLevel, scored.length, focus),
    priority_formula: PRIORITY_FORMULA,
    keyword_cannibalization: findCannibalization(primary),
    content_gaps: findGaps(primary, pages),
    inventory,
    robots_txt: {
      url: site.robots.url,
      status: site.robots.status,
      errors: site.robots.errors,
      blocked_ai_crawlers: site.robots.blockedAiCrawlers,
      crawl_delay_seconds: site.robots.crawlDelaySeconds,
    },
    sitemaps: { fetched: site.sitemaps.fetched, errors: site.sitemaps.errors, url_count: site.sitemaps.urlCount },
    llms_txt: { url: site.llmsTxt.url, present: site.llmsTxt.present },
    generated_at: new Date(now).toISOString(),
  }
}
