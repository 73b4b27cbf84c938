import { auditOf, startAnalysis } from '../../audit/build'
import { modelGapAnalysis } from '../../audit/model-gaps'
import { redirectPath, type CrawledUrl } from '../../audit/site-checks'
import { crawlLimits, crawlSome, seedFrontier } from '../../crawler/crawl'
import type { PageRecord } from '../../crawler/fetch-page'
import { assertStartPageReachable, discoverSite } from '../../crawler/site'
import { deleteCrawl, donePages, doneUrls, frontierCounts } from '../../db/crawl'
import { ProviderError } from '../../providers/errors'
import { assertPublicDestination } from '../../providers/web/dns'
import { ContinueLater } from '../../runtime/jobs'
import { defineAction } from '../define'
import { ContentAuditInput } from './schema'

/**
 * Crawled rows read a query: all the page facts the audit holds at once, 25 records of at most
 * PAGE_FACTS_MAX_BYTES (320 KiB) each, 8 MB of JSON text.
 */
const DONE_PAGES_PER_READ = 25

/** Finished URLs read a query without their facts (each URL and redirect target at most 8,192 characters). */
const DONE_URLS_PER_READ = 1000

/** Fails the run when the crawl could not read the start page (it answered before the run was queued, but sites fail). */
function assertStartPageCrawled(startUrl: string, urls: CrawledUrl[]): void {
  const final = redirectPath(startUrl, new Map(urls.map((u) => [u.url, u]))).final
  if (!final || final.kind !== 'error') return
  const why = final.status ? `answered HTTP ${final.status}` : `could not be fetched (${final.error ?? 'no answer'})`
  throw new ProviderError('unprocessable', `The site could not be crawled: its start page ${final.url} ${why}, so no scores were computed.`, 'website_url')
}

/** Reads rows in url order through `read`, `perRead` at a time, handing each to `each`. */
async function readAll<T extends { url: string }>(read: (after: string, limit: number) => Promise<T[]>, perRead: number, each: (row: T) => void): Promise<void> {
  let after = ''
  for (;;) {
    const rows = await read(after, perRead)
    for (const r of rows) each(r)
    if (rows.length < perRead) return
    after = rows[rows.length - 1].url
  }
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
      const urls: CrawledUrl[] = []
      await readAll(
        (after, limit) => doneUrls(ctx.db, ctx.runId, after, limit),
        DONE_URLS_PER_READ,
        (u) => urls.push(u),
      )
      assertStartPageCrawled(site.startUrl, urls)
      const opts = {
        site,
        focus: input.optimization_focus,
        auditScope: input.audit_scope,
        maxPages: input.max_pages,
        notCrawled: counts.pending,
        now: Date.now(),
        thinContentWords: input.thin_content_words,
      }
      // Each page's facts are read, analyzed and dropped (analyze.ts): only a read's worth is held at once.
      const analysis = startAnalysis(opts, urls)
      await readAll(
        (after, limit) => donePages(ctx.db, ctx.runId, after, limit),
        DONE_PAGES_PER_READ,
        (r) => analysis.add({ url: r.url, depth: r.depth, source: r.source, rec: JSON.parse(r.facts) as PageRecord }),
      )
      return auditOf(analysis, opts)
    })
    const modelAnalysis = await ctx.step('model_gaps', () => modelGapAnalysis(ctx, audit.content_gaps, input.website_url, audit.inventory.map((p) => p.title ?? '').filter(Boolean)))
    await deleteCrawl(ctx.db, ctx.runId)
    return { ...audit, content_gaps: { ...audit.content_gaps, model_analysis: modelAnalysis } }
  },
})
