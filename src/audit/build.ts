import type { SiteInfo } from '../crawler/site'
import { CRAWLER_TOKEN, parseRobots, robotsAllows } from '../providers/web/robots'
import { findCannibalization, type CannibalizationGroup } from './cannibalization'
import { CHECKS, type CheckId, type Finding } from './checks'
import { findGaps, type ContentGaps } from './gaps'
import { pageFindings } from './page-checks'
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
  depth: number
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
    /** Mean time to response headers of the fetched pages (server response time), ms. */
    average_response_ms: number | null
    issues: { error: number; warning: number; notice: number }
  }
  scores: { seo: number; aeo: number; overall: number; formula: string }
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

/** Builds the audit from the crawled pages and site facts. */
export function buildAudit(opts: {
  site: SiteInfo
  pages: CrawledPage[]
  focus: Focus
  auditScope: string
  maxPages: number
  notCrawled: number
  now: number
}): Audit {
  const { site, pages, focus, now } = opts
  // The start page, or where it redirects (http -> https, bare domain -> www ...).
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const home = new Set([site.startUrl, redirectPath(site.startUrl, byUrl).final?.url ?? site.startUrl])
  const cross = crossPageFindings(pages, site, now, home)
  const robots = parseRobots(site.robots.url, site.robots.text)
  const findings = new Map<string, Finding[]>()
  for (const p of pages) {
    const list =
      p.rec.kind === 'blocked'
        ? [{ check: 'is-crawlable' as const, message: `Disallowed by robots.txt for ${CRAWLER_TOKEN}` }]
        : pageFindings(p.rec, { now, home: home.has(p.url), sitemapLastmod: site.sitemaps.lastmod[p.url] })
    // Lighthouse's is-crawlable also asks whether Googlebot may fetch the page.
    if (p.rec.kind === 'html' && !robotsAllows(robots, p.url, 'Googlebot')) list.push({ check: 'is-crawlable', message: 'Disallowed by robots.txt for Googlebot' })
    list.push(...(cross.get(p.url) ?? []))
    if (list.length) findings.set(p.url, list)
  }
  const siteLevel = siteFindings(site)

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
        depth: p.depth,
        seo_score: scores.seo,
        aeo_score: scores.aeo,
        redirects_to: p.rec.location ?? null,
        issues: list.map((f) => ({ check: f.check, severity: CHECKS[f.check].severity, category: CHECKS[f.check].category, message: f.message })),
      }
    })
    .sort((a, b) => a.depth - b.depth || a.url.localeCompare(b.url))

  const scored = inventory.filter((r) => r.seo_score !== null)
  const scores = siteScores(
    scored.map((r) => ({ seo: r.seo_score, aeo: r.aeo_score })),
    siteLevel,
    focus,
  )
  const primary = pages.filter((p) => isPrimary(p, now))
  const count = (kind: string) => pages.filter((p) => p.rec.kind === kind).length
  const issues = { error: 0, warning: 0, notice: 0 }
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
      average_response_ms: mean(pages.filter((p) => p.rec.kind !== 'blocked').map((p) => p.rec.fetchMs)),
      issues,
    },
    scores: { ...scores, formula: SCORE_FORMULA },
    site_checks: siteCheckIds.map((check) => {
      const f = failedSite.get(check)
      return { check, category: CHECKS[check].category, severity: CHECKS[check].severity, passed: !f, title: CHECKS[check].title, message: f?.message ?? null, ...(f?.details ? { details: f.details } : {}) }
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
