import { buildAudit } from '../../audit/build'
import { modelGapAnalysis } from '../../audit/model-gaps'
import { redirectPath, type CrawledPage } from '../../audit/site-checks'
import { crawlLimits, crawlSome, seedFrontier } from '../../crawler/crawl'
import type { PageRecord } from '../../crawler/fetch-page'
import { assertStartPageReachable, discoverSite } from '../../crawler/site'
import { deleteCrawl, donePages, frontierCounts } from '../../db/crawl'
import { ProviderError } from '../../providers/errors'
import { assertPublicDestination } from '../../providers/web/dns'
import { ContinueLater } from '../../runtime/jobs'
import { defineAction } from '../define'
import { ContentAuditInput } from './schema'

/** Crawled rows read a query: 100 records of at most PAGE_FACTS_MAX_BYTES (320 KiB) stay well within the 50 MB D1 answers a query with. */
const DONE_PAGES_PER_READ = 100

/** Fails the run when the crawl could not read the start page (it answered before the run was queued, but sites fail). */
function assertStartPageCrawled(startUrl: string, pages: CrawledPage[]): void {
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const final = redirectPath(startUrl, byUrl).final
  if (!final || final.rec.kind !== 'error') return
  const why = final.rec.status ? `answered HTTP ${final.rec.status}` : `could not be fetched (${final.rec.error ?? 'no answer'})`
  throw new ProviderError('unprocessable', `The site could not be crawled: its start page ${final.url} ${why}, so no scores were computed.`, 'website_url')
}

/**
 * `content_audit_generate_audit_action`: crawls a site through the Queue (the frontier lives in D1,
 * keyed by the run, and each message fetches a batch) and returns an SEO/AEO audit.
 */
export const contentAuditAction = defineAction({
  name: 'content_audit_generate_audit_action',
  summary: 'Audit a website for SEO and AEO',
  description:
    'Crawls a website (robots.txt obeyed, sitemaps read, same-site links followed within the scope and page cap) and returns SEO and AEO scores, a prioritized action plan, keyword cannibalization, content gaps and a page inventory. Runs queued; poll the run when the answer is 202.',
  input: ContentAuditInput,
  hints: { readOnly: true, idempotent: true },
  integrations: ['model'],
  mode: 'queued',
  examples: [
    { website_url: 'https://example.com', audit_scope: 'full_site', optimization_focus: 'balanced', output_variable_name: 'content_audit' },
    { website_url: 'https://example.com/docs/', audit_scope: 'custom_path', max_pages: 200 },
  ],
  async precheck(input, ctx) {
    await assertPublicDestination(input.website_url, { allowPrivate: ctx.config.allowPrivateFetch, dns: ctx.config.outboundDns }, 'website_url')
    // A site that cannot be crawled answers an error now, not a queued run that scores nothing.
    await assertStartPageReachable(ctx.fetch, input.website_url)
  },
  async run(input, ctx) {
    const limits = crawlLimits(ctx.env, input.max_pages)
    const site = await ctx.step('site', () => discoverSite(ctx.fetch, input.website_url, input.audit_scope, input.custom_path, input.max_pages))
    await ctx.step('seed', async () => {
      await seedFrontier(ctx.db, ctx.runId, site)
      return true
    })
    const audit = await ctx.step('audit', async () => {
      const state = await crawlSome(ctx.db, ctx.fetch, ctx.runId, site, limits, (p) =>
        ctx.progress({ phase: 'crawling', pages_fetched: p.fetched, pages_queued: p.pending, max_pages: input.max_pages }),
      )
      if (state === 'more') throw new ContinueLater()
      await ctx.progress({ phase: 'analyzing', max_pages: input.max_pages })
      const counts = await frontierCounts(ctx.db, ctx.runId)
      const pages: CrawledPage[] = []
      let after = ''
      for (;;) {
        const rows = await donePages(ctx.db, ctx.runId, after, DONE_PAGES_PER_READ)
        for (const r of rows) pages.push({ url: r.url, depth: r.depth, source: r.source, rec: JSON.parse(r.facts) as PageRecord })
        if (rows.length < DONE_PAGES_PER_READ) break
        after = rows[rows.length - 1].url
      }
      assertStartPageCrawled(site.startUrl, pages)
      return buildAudit({
        site,
        pages,
        focus: input.optimization_focus,
        auditScope: input.audit_scope,
        maxPages: input.max_pages,
        notCrawled: counts.pending,
        now: Date.now(),
        thinContentWords: input.thin_content_words,
      })
    })
    const modelAnalysis = await ctx.step('model_gaps', () => modelGapAnalysis(ctx, audit.content_gaps, input.website_url, audit.inventory.map((p) => p.title ?? '').filter(Boolean)))
    await deleteCrawl(ctx.db, ctx.runId)
    return { ...audit, content_gaps: { ...audit.content_gaps, model_analysis: modelAnalysis } }
  },
})
