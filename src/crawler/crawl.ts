import { enqueueUrls, finishPages, frontierCounts, nextPending, type CrawlResult, type FrontierEntry } from '../db/crawl'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import { parseRobots, ROBOTS_DISALLOWED, ROBOTS_UNDECIDED, robotsDecision } from '../providers/web/robots'
import { fetchPage, type PageRecord } from './fetch-page'
import type { SiteInfo } from './site'
import { crawlable, normalizeUrl } from './scope'

/** Crawl limits from settings (CRAWL_CONCURRENCY, CRAWL_PAGES_PER_MESSAGE). */
export interface CrawlLimits {
  maxPages: number
  concurrency: number
  pagesPerMessage: number
  /** Wall time one Queue message spends fetching before handing over to the next (well under the consumer's 15 min). */
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
    messageBudgetMs: 60_000,
  }
}

/** Least time between two progress writes of a crawl: each is a D1 write, and the runs API needs no finer grain. */
export const PROGRESS_INTERVAL_MS = 1000

/** Puts the seeds in the frontier (a retried setup adds nothing twice). */
export async function seedFrontier(db: D1Database, runId: string, site: SiteInfo): Promise<void> {
  const listed = new Set(site.sitemaps.listed)
  await enqueueUrls(
    db,
    runId,
    site.seeds.map((url, i) => ({ url, depth: 0, source: i === 0 || !listed.has(url) ? 'seed' : 'sitemap' })),
    Date.now() * 1000,
  )
}

/** URLs a page record adds to the frontier: followed links, redirect target, canonical target. */
function discovered(site: SiteInfo, entry: FrontierEntry, rec: PageRecord): FrontierEntry[] {
  const out: FrontierEntry[] = []
  const push = (url: string | null, depth: number, source: FrontierEntry['source']) => {
    if (url && url !== entry.url && crawlable(site.scope, url)) out.push({ url, depth, source })
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
 * Fetches frontier pages for one Queue message with `concurrency` fetches always in flight (no
 * batch barrier): workers take pending URLs (shallowest first) from a buffer refilled from D1, and
 * finished pages are written with the URLs they led to in one D1 transaction every few pages
 * (progress at most every PROGRESS_INTERVAL_MS, and when the message's share ends). Ends
 * 'done' at the page cap or an empty frontier, 'more' when this message's page or time budget is
 * spent. A crashed consumer loses only the unwritten pages, which the next delivery fetches again.
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
  const flushEvery = Math.max(8, concurrency * 2)
  const started = Date.now()
  const counts = await frontierCounts(db, runId)
  if (counts.fetched >= limits.maxPages || counts.pending === 0) return 'done'

  let fetchesStarted = 0
  let written = 0
  let frontierTotal = counts.total
  let lastPending = counts.pending
  let buffer: FrontierEntry[] = []
  let exhausted = false
  const taken = new Set<string>()
  const discoveredUrls = new Set<string>()
  // `rec` null: robots.txt kept the URL from being fetched; `blocked` says why, as the report will.
  let unwritten: { entry: FrontierEntry; rec: PageRecord | null; blocked?: string }[] = []
  let chain: Promise<void> = Promise.resolve()
  let failure: unknown = null
  let wake: () => void = () => undefined
  let woken = new Promise<void>((r) => (wake = r))
  const notify = () => {
    wake()
    woken = new Promise<void>((r) => (wake = r))
  }

  const budgetSpent = () => taken.size >= limits.pagesPerMessage || Date.now() - started > limits.messageBudgetMs
  const capReached = () => counts.fetched + fetchesStarted >= limits.maxPages

  let progressAt = 0
  let progressOwed = false
  const reportProgress = async (last: boolean) => {
    if (!progressOwed || (!last && Date.now() - progressAt < PROGRESS_INTERVAL_MS)) return
    progressAt = Date.now()
    progressOwed = false
    await onProgress({ fetched: counts.fetched + fetchesStarted, pending: lastPending })
  }

  /** Writes finished pages and their discoveries (serialized, so writes never interleave); `last` always records progress. */
  const flush = (last = false) => {
    const batch = unwritten
    unwritten = []
    chain = chain.then(async () => {
      if (!batch.length) return reportProgress(last)
      const rows: CrawlResult[] = batch.map(({ entry, rec, blocked }) =>
        rec
          ? { url: entry.url, kind: rec.kind, status: rec.status, facts: JSON.stringify(rec) }
          : { url: entry.url, kind: 'blocked', status: null, facts: JSON.stringify({ url: entry.url, kind: 'blocked', error: blocked ?? ROBOTS_DISALLOWED }) },
      )
      const found: FrontierEntry[] = []
      const room = limits.maxPages * 5 - frontierTotal
      for (const { entry, rec } of batch) {
        if (!rec) continue
        for (const d of discovered(site, entry, rec)) {
          if (found.length >= room || discoveredUrls.has(d.url)) continue
          discoveredUrls.add(d.url)
          found.push(d)
        }
      }
      await finishPages(db, runId, rows, found, Date.now() * 1000, Date.now())
      written += batch.length
      frontierTotal += found.length
      lastPending = Math.max(0, lastPending - batch.length) + found.length
      exhausted = false
      progressOwed = true
      await reportProgress(last)
    })
    chain = chain.catch((err) => {
      failure ??= err
    })
    return chain.then(notify)
  }

  let refilling: Promise<void> | null = null
  const refill = () => {
    refilling ??= (async () => {
      const want = Math.max(concurrency * 4, 20)
      // Pages taken but not yet written are still pending in D1: ask for that many more.
      const rows = await nextPending(db, runId, want + taken.size - written)
      buffer = rows.filter((r) => !taken.has(r.url))
      exhausted = buffer.length === 0
      // Workers idling for discoveries can take these.
      if (buffer.length) notify()
    })().finally(() => (refilling = null))
    return refilling
  }

  let active = 0
  const worker = async () => {
    for (;;) {
      if (failure || budgetSpent() || capReached()) return
      if (!buffer.length) {
        await refill()
        if (!buffer.length) {
          // Nothing pending right now: if pages are still in flight or unwritten, their links may add more.
          if (active === 0 && unwritten.length === 0) return
          if (unwritten.length) await flush()
          else await woken
          if (exhausted && active === 0 && unwritten.length === 0) {
            await refill()
            if (!buffer.length) return
          }
          continue
        }
      }
      // Re-checked after the awaits above: from here to fetchesStarted++ nothing yields.
      if (failure || budgetSpent() || capReached()) return
      const entry = buffer.shift()!
      if (taken.has(entry.url)) continue
      taken.add(entry.url)
      const verdict = robotsDecision(robots, entry.url)
      active++
      let rec: PageRecord | null = null
      try {
        if (verdict === 'allow') {
          fetchesStarted++
          rec = await fetchPage(fetcher, entry.url)
          if (delayMs) await new Promise((r) => setTimeout(r, delayMs))
        }
      } finally {
        active--
      }
      unwritten.push({ entry, rec, blocked: verdict === 'undecided' ? ROBOTS_UNDECIDED : undefined })
      // Writes run in the background (serialized); only a dry buffer waits, for the new links.
      if (buffer.length === 0) await flush()
      else if (unwritten.length >= flushEvery) void flush()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await flush(true)
  if (failure) throw failure
  const after = await frontierCounts(db, runId)
  if (after.fetched >= limits.maxPages || after.pending === 0) return 'done'
  return 'more'
}
