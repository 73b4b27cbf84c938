import { describe, expect, it } from 'vitest'
import { AUDIT_ACTION, runAudit } from './run-audit'
import { action, mockFetch, newCaller, request, type Json } from '../helpers'
import { createFakeLlm } from '../llm/fake-llm'
import { CANNIBALIZED, HTML_PATHS, ORIGIN, PLANTED, trailgear } from '../fixtures/sites/trailgear'

const NAME = AUDIT_ACTION

const path = (url: string) => url.slice(ORIGIN.length) || '/'

describe('content audit of the TrailGear fixture site', () => {
  it('crawls every reachable page once and finds exactly the planted defects', async () => {
    const seen = mockFetch(trailgear)
    const { token } = await newCaller()
    const { run, response: audit } = await runAudit(token, { website_url: `${ORIGIN}/` })
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.attempts).toBeGreaterThan(1)
    expect(run.progress.phase).toBe('analyzing')

    const fetched = seen.map((r) => r.url)
    const pageFetches = fetched.filter((u) => !/robots\.txt|sitemap|llms\.txt|feed\.xml/.test(u))
    // The start page is fetched once before the run is queued (is the site reachable?), then crawled.
    expect(pageFetches.filter((u) => u === `${ORIGIN}/`)).toHaveLength(2)
    const crawled = pageFetches.filter((u) => u !== `${ORIGIN}/`)
    expect(new Set(crawled).size).toBe(crawled.length)
    expect(fetched).not.toContain(`${ORIGIN}/cart`)
    expect(fetched).not.toContain(`${ORIGIN}/catalog.pdf`)

    const inventory: Json[] = audit.inventory
    const html = inventory
      .filter((r) => r.kind === 'html')
      .map((r) => path(r.url))
      .sort()
    expect(html).toEqual([...HTML_PATHS].sort())
    expect(audit.summary).toMatchObject({ html_pages: HTML_PATHS.length, error_pages: 1, redirects: 2, non_html_skipped: 1, blocked_by_robots: 1 })

    const flaggedBy = Object.fromEntries(
      Object.keys(PLANTED).map((check) => [
        check,
        inventory
          .filter((r) => r.issues.some((i: Json) => i.check === check))
          .map((r) => path(r.url))
          .sort(),
      ]),
    )
    expect(flaggedBy).toEqual(Object.fromEntries(Object.entries(PLANTED).map(([check, pages]) => [check, [...pages].sort()])))

    const site = Object.fromEntries(audit.site_checks.map((c: Json) => [c.check, c]))
    expect(site['robots-txt'].passed).toBe(true)
    expect(site.sitemap.passed).toBe(true)
    expect(site['llms-txt'].passed).toBe(false)
    expect(site['ai-crawlers'].message).toBe('robots.txt blocks PerplexityBot')
    expect(site['ai-training-crawlers'].message).toBe('robots.txt blocks GPTBot')
    expect(audit.sitemaps.fetched).toEqual([`${ORIGIN}/sitemap_index.xml`, `${ORIGIN}/page-sitemap.xml`, `${ORIGIN}/post-sitemap.xml.gz`])

    expect(audit.keyword_cannibalization.map((g: Json) => ({ keyphrase: g.keyphrase, pages: g.pages.map((p: Json) => path(p.url)).sort() }))).toEqual(CANNIBALIZED)
    expect(audit.keyword_cannibalization[0].pages[0].evidence).toMatchObject({ in_title: true, in_h1: true, in_url: true })

    expect(audit.content_gaps.uncovered_topics.map((t: Json) => t.topic)).toContain('bear canister')
    expect(audit.content_gaps.thin_sections.map((s: Json) => s.section)).toEqual(['/guides/'])
    expect(audit.content_gaps.missing_pages).toEqual([{ url: `${ORIGIN}/blog/snowshoe-guide`, status: 404, anchor_texts: ['snowshoe buying guide'], linked_from: 1 }])
    expect(audit.content_gaps.unanswered_questions).toEqual([{ question: 'What temperature rating do I need?', url: `${ORIGIN}/blog/how-to-choose-a-sleeping-bag` }])
    expect(audit.content_gaps.model_analysis).toBeNull()

    expect(audit.scores.seo).toBeGreaterThan(0)
    expect(audit.scores.seo).toBeLessThan(100)
    expect(audit.scores.overall).toBe(Math.round(0.5 * audit.scores.seo + 0.5 * audit.scores.aeo))
    const plan: Json[] = audit.action_plan
    expect(plan[0].rank).toBe(1)
    for (let i = 1; i < plan.length; i++) expect(plan[i].priority_score).toBeLessThanOrEqual(plan[i - 1].priority_score)
    const broken = plan.find((p) => p.check === 'broken-links')
    expect(broken).toMatchObject({ severity: 'error', pages: [`${ORIGIN}/blog/winter-camping-tips`], pages_affected: 1 })
    expect(broken.fix).toBeTruthy()
    expect(broken.why_it_matters).toBeTruthy()
  })

  it('weights the overall score and the plan by optimization_focus', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const { response: audit } = await runAudit(token, { website_url: ORIGIN, optimization_focus: 'aeo_focused', audit_scope: 'custom_path', custom_path: '/guides/' })
    expect(audit.inventory.map((r: Json) => path(r.url)).sort()).toEqual(['/guides/', '/guides/knots', '/guides/map-reading'])
    expect(audit.scores.overall).toBe(Math.round(0.25 * audit.scores.seo + 0.75 * audit.scores.aeo))
    expect(audit.scope).toEqual({ prefixes: ['/guides/'], how: 'custom_path /guides/' })
  })

  it('audits only the blog sections for blog_only, found from URLs, the post sitemap and the feed', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const { response: audit } = await runAudit(token, { website_url: ORIGIN, audit_scope: 'blog_only', max_pages: 12 })
    expect(audit.scope.prefixes).toEqual(['/blog'])
    expect(audit.scope.how).toBe('/blog (blog-like URL section, post sitemap, RSS/Atom feed items)')
    expect(audit.inventory.every((r: Json) => new URL(r.url).pathname.startsWith('/blog'))).toBe(true)
    expect(audit.summary.urls_crawled).toBe(12)
    expect(audit.summary.not_crawled_page_cap).toBeGreaterThan(0)
  })
})

describe('content audit input', () => {
  it('rejects a website_url without an http(s) scheme, naming the field', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'ftp://example.com' }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/website_url')
  })
  it('refuses private addresses before queuing', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'http://127.0.0.1/' }, token)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('UNSAFE_URL')
  })
  it('rejects max_pages over 1000 and custom_path without the custom_path scope', async () => {
    const { token } = await newCaller()
    const big = await action(NAME, { website_url: 'https://example.com', max_pages: 1001 }, token)
    expect(big.status).toBe(400)
    expect(big.body.details[0].path).toBe('/max_pages')
    const path = await action(NAME, { website_url: 'https://example.com', custom_path: '/docs/' }, token)
    expect(path.status).toBe(400)
    expect(path.body.details[0].path).toBe('/custom_path')
  })
  it('fails the run with a clear message when custom_path scope has no path', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const { run } = await runAudit(token, { website_url: ORIGIN, audit_scope: 'custom_path' })
    expect(run.state).toBe('failed')
    expect(run.error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' })
    expect(run.error.message).toMatch(/custom_path/)
  })
})

describe('model-written gap analysis', () => {
  it('adds a gap analysis marked as model-written, citing only evidence from the crawl', async () => {
    const llm = createFakeLlm({
      respond: (call) =>
        call.api === 'openai.responses'
          ? {
              object: {
                summary: 'Care guides are thin.',
                gaps: [
                  { topic: 'tent care', why: 'Mentioned often, no page', suggested_page: 'How to care for a tent', evidence: ['E1', 'E999'] },
                  { topic: 'made up', why: 'no evidence', suggested_page: 'x', evidence: ['E999'] },
                ],
              },
            }
          : undefined,
    })
    mockFetch(trailgear, (req) => llm.handle(req))
    const { token } = await newCaller()
    expect((await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: 'sk-test-openai' } })).status).toBe(200)
    const { run, response: audit } = await runAudit(token, { website_url: `${ORIGIN}/` })
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    const analysis = audit.content_gaps.model_analysis
    expect(analysis).toMatchObject({ written_by_model: true, status: 'ok', summary: 'Care guides are thin.' })
    expect(analysis.gaps).toEqual([expect.objectContaining({ topic: 'tent care', evidence: ['E1'] })])
    expect(llm.calls.length).toBe(1)
  })

  it('leaves model_analysis null when no model is configured', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const { response: audit } = await runAudit(token, { website_url: `${ORIGIN}/`, max_pages: 10 })
    expect(audit.content_gaps.model_analysis).toBeNull()
  })
})
