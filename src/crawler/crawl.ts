import { enqueueUrls, finishPages, frontierCounts, nextPending, type CrawlResult, type FrontierEntry } from '../db/crawl'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import { parseRobots, robotsAllows } from '../providers/web/robots'
import { fetchPage, type PageRecord } from './fetch-page'
import type { SiteInfo } from './site'
import { inScope, looksNonHtml, normalizeUrl } from './scope'

/** Crawl limits from settings (CRAWL_CONCURRENCY, CRAWL_PAGES_PER_MESSAGE). */
export interface CrawlLimits {
  maxPages: number
  concurrency: number
  pagesPerMessage: number
  /** Wall time one Queue message spends fetching before handing over to the next. */
  messageBudgetMs: number
}

function intSetting(value: string | undefined, fallback: number, min: number, max: number): number {
  const n = Number(value)
  return value !== undefined && value.trim() !== '' && Number.isFinite(n) ? Math.min(max, Math.max(min, Math.floor(n))) : fallback
}

/** Crawl limits of this deployment for a run capped at `maxPages`. */
export function crawlLimits(env: Env, maxPages: number): CrawlLimits {
  return {
    maxPages,
    concurrency: intSetting(env.CRAWL_CONCURRENCY, 4, 1, 16),
    pagesPerMessage: intSetting(env.CRAWL_PAGES_PER_MESSAGE, 50, 5, 1000),
    messageBudgetMs: 20_000,
  }
}

/** Puts the seeds in the frontier (a retried setup adds nothing twice). */
export async function seedFrontier(db: D1Database, runId: string, site: SiteInfo): Promise<void> {
  await enqueueUrls(
    db,
    runId,
    site.seeds.map((url, i) => ({ url, depth: 0, source: i === 0 ? 'seed' : 'sitemap' })),
    Date.now() * 1000,
  )
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i])
    }
  })
  await Promise.all(workers)
  return out
}

/** URLs a page record adds to the frontier: followed links, redirect target, canonical target. */
function discovered(site: SiteInfo, entry: FrontierEntry, rec: PageRecord): FrontierEntry[] {
  const out: FrontierEntry[] = []
  const push = (url: string | null, depth: number, source: FrontierEntry['source']) => {
    if (url && url !== entry.url && inScope(site.scope, url) && !looksNonHtml(url)) out.push({ url, depth, source })
  }
  if (rec.kind === 'redirect') push(rec.location, entry.depth, 'redirect')
  const html = rec.html
  if (!html) return out
  const metaNofollow = html.metaRobots.some((m) => (m.name === 'robots' || m.name === 'agentactionapi') && /\b(nofollow|none)\b/i.test(m.content))
  if (html.canonicals.length === 1) push(normalizeUrl(html.canonicals[0], entry.url), entry.depth, 'canonical')
  if (!metaNofollow) for (const link of html.links) if (!link.nofollow) push(link.url, entry.depth + 1, 'link')
  return out
}

/**
 * Fetches frontier pages for one Queue message: batches of pending URLs (shallowest first) with
 * `concurrency` fetches in flight, each batch's results and discoveries written to D1 before the
 * next, until the page cap, an empty frontier ('done') or this message's page/time budget ('more').
 * Each batch's results and discoveries are written in one D1 transaction, so a crashed consumer
 * loses at most the batch in flight, which the next delivery fetches again.
 */
export async function crawlSome(
  db: D1Database,
  fetcher: GuardedFetch,
  runId: string,
  site: SiteInfo,
  limits: CrawlLimits,
  onProgress: (p: { fetched: number; pending: number }) => Promise<void>,
): Promise<'done' | 'more'> {
  const robots = parseRobots(site.robots.url, site.robots.text)
  const delayMs = Math.min(5, site.robots.crawlDelaySeconds ?? 0) * 1000
  const concurrency = delayMs > 0 ? 1 : limits.concurrency
  const started = Date.now()
  let handled = 0
  for (;;) {
    const counts = await frontierCounts(db, runId)
    if (counts.fetched >= limits.maxPages || counts.pending === 0) return 'done'
    if (handled >= limits.pagesPerMessage || Date.now() - started > limits.messageBudgetMs) return 'more'
    const room = Math.min(limits.maxPages - counts.fetched, limits.pagesPerMessage - handled, Math.max(concurrency * 4, 20))
    const batch = await nextPending(db, runId, room)
    const results = await pool(batch, concurrency, async (entry): Promise<{ entry: FrontierEntry; rec: PageRecord | null }> => {
      if (!robotsAllows(robots, entry.url)) return { entry, rec: null }
      const rec = await fetchPage(fetcher, entry.url)
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs))
      return { entry, rec }
    })
    const rows: CrawlResult[] = results.map(({ entry, rec }) =>
      rec
        ? { url: entry.url, kind: rec.kind, status: rec.status, facts: JSON.stringify(rec) }
        : { url: entry.url, kind: 'blocked', status: null, facts: JSON.stringify({ url: entry.url, kind: 'blocked', error: 'disallowed by robots.txt' }) },
    )
    const found: FrontierEntry[] = []
    const frontierRoom = limits.maxPages * 5 - counts.total
    if (frontierRoom > 0) {
      const seen = new Set<string>()
      for (const { entry, rec } of results) {
        if (!rec) continue
        for (const d of discovered(site, entry, rec)) {
          if (seen.has(d.url) || found.length >= frontierRoom) continue
          seen.add(d.url)
          found.push(d)
        }
      }
    }
    await finishPages(db, runId, rows, found, Date.now() * 1000, Date.now())
    handled += batch.length
    await onProgress({ fetched: counts.fetched + results.filter((r) => r.rec).length, pending: Math.max(0, counts.pending - batch.length) })
  }
}
