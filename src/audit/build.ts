import type { SiteInfo } from '../crawler/site'
import { CrawlAnalysis } from './analyze'
import { findCannibalization, type CannibalizationGroup } from './cannibalization'
import { CHECKS, type CheckId } from './checks'
import type { ContentGaps } from './gaps'
import { THIN_CONTENT_WORDS } from './page-checks'
import { buildPlan, PRIORITY_FORMULA, type PlanItem } from './plan'
import { pageScores, SCORE_FORMULA, siteScores, type Focus } from './scoring'
import { crawledUrl, siteFindings, type CrawledPage } from './site-checks'

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

function mean(xs: (number | null)[]): number | null {
  const nums = xs.filter((x): x is number => typeof x === 'number')
  return nums.length ? Math.round(nums.reduce((a, b) => a + b, 0) / nums.length) : null
}

/** What an audit is asked for, beside its pages. */
export interface AuditOptions {
  site: SiteInfo
  focus: Focus
  auditScope: string
  maxPages: number
  notCrawled: number
  now: number
  thinContentWords?: number
}

/** An empty analysis of a crawl whose finished URLs are `urls`; add its pages, then call `auditOf`. */
export function startAnalysis(opts: AuditOptions, urls: CrawlAnalysis['urls']): CrawlAnalysis {
  return new CrawlAnalysis(opts.site, urls, { now: opts.now, thinWords: opts.thinContentWords ?? THIN_CONTENT_WORDS })
}

/** Builds the audit from pages held all at once (small crawls and tests; the action streams them). */
export function buildAudit(opts: AuditOptions & { pages: CrawledPage[] }): Audit {
  const analysis = startAnalysis(opts, opts.pages.map(crawledUrl))
  for (const p of opts.pages) analysis.add(p)
  return auditOf(analysis, opts)
}

/** Builds the audit once every page of the crawl was added to `analysis`. */
export function auditOf(analysis: CrawlAnalysis, opts: AuditOptions): Audit {
  const { site, focus, now } = opts
  const { pages } = analysis
  const findings = analysis.findings()
  const siteLevel = siteFindings(site, analysis.urls)
  const depths = analysis.depths()

  const inventory: InventoryRow[] = pages
    .map((p) => {
      const list = findings.get(p.url) ?? []
      const scores = pageScores(p.kind, list)
      return {
        url: p.url,
        kind: p.kind,
        status: p.status,
        title: p.title,
        word_count: p.wordCount,
        response_ms: p.fetchMs,
        depth: depths.get(p.url) ?? null,
        seo_score: scores.seo,
        aeo_score: scores.aeo,
        redirects_to: p.location,
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
  const count = (kind: string) => pages.filter((p) => p.kind === kind).length
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
      urls_crawled: pages.filter((p) => p.kind !== 'blocked').length,
      html_pages: count('html'),
      error_pages: count('error'),
      redirects: count('redirect'),
      non_html_skipped: count('skipped'),
      blocked_by_robots: count('blocked'),
      not_crawled_page_cap: opts.notCrawled,
      max_pages: opts.maxPages,
      thin_content_words: opts.thinContentWords ?? THIN_CONTENT_WORDS,
      average_response_ms: mean(pages.filter((p) => p.kind !== 'blocked').map((p) => p.fetchMs)),
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
    keyword_cannibalization: findCannibalization(analysis.keyphrasePages),
    content_gaps: analysis.gaps.result(analysis.keyphrasePages),
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
