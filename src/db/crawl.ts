/** The crawl frontier of content audits, keyed by run id (migration 0007). */

export type CrawlSource = 'seed' | 'sitemap' | 'link' | 'redirect' | 'canonical'
export type CrawlKind = 'html' | 'redirect' | 'error' | 'skipped' | 'blocked'

export interface FrontierEntry {
  url: string
  depth: number
  source: CrawlSource
}

export interface CrawlResult {
  url: string
  kind: CrawlKind
  status: number | null
  /** JSON text of the page facts. */
  facts: string
}

export interface DoneRow {
  url: string
  depth: number
  source: CrawlSource
  kind: CrawlKind
  status: number | null
  facts: string
}

export interface FrontierCounts {
  pending: number
  done: number
  /** Finished rows that cost a fetch (everything but robots-blocked URLs). */
  fetched: number
  total: number
}

/** Adds URLs to the frontier; ones already there (pending or done) are left alone. */
export async function enqueueUrls(db: D1Database, runId: string, entries: FrontierEntry[], seqBase: number): Promise<void> {
  if (entries.length === 0) return
  const stmt = db.prepare(
    `INSERT INTO crawl_pages (run_id, url, depth, seq, source, state) VALUES (?, ?, ?, ?, ?, 'pending')
      ON CONFLICT(run_id, url) DO NOTHING`,
  )
  for (let i = 0; i < entries.length; i += 50) {
    await db.batch(entries.slice(i, i + 50).map((e, j) => stmt.bind(runId, e.url, e.depth, seqBase + i + j, e.source)))
  }
}

/** The next pending URLs, shallowest first, then in discovery order. */
export async function nextPending(db: D1Database, runId: string, limit: number): Promise<FrontierEntry[]> {
  const { results } = await db
    .prepare(`SELECT url, depth, source FROM crawl_pages WHERE run_id = ? AND state = 'pending' ORDER BY depth, seq LIMIT ?`)
    .bind(runId, limit)
    .all<FrontierEntry>()
  return results
}

/** Marks pages done with their results, in one batch. */
export async function finishPages(db: D1Database, runId: string, results: CrawlResult[], now: number): Promise<void> {
  if (results.length === 0) return
  const stmt = db.prepare(
    `UPDATE crawl_pages SET state = 'done', kind = ?, status = ?, facts = ?, fetched_at = ? WHERE run_id = ? AND url = ?`,
  )
  await db.batch(results.map((r) => stmt.bind(r.kind, r.status, r.facts, now, runId, r.url)))
}

/** Pending, done and fetched counts of a run's frontier. */
export async function frontierCounts(db: D1Database, runId: string): Promise<FrontierCounts> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS total,
              COALESCE(SUM(state = 'pending'), 0) AS pending,
              COALESCE(SUM(state = 'done'), 0) AS done,
              COALESCE(SUM(state = 'done' AND kind <> 'blocked'), 0) AS fetched
         FROM crawl_pages WHERE run_id = ?`,
    )
    .bind(runId)
    .first<FrontierCounts>()
  return row ?? { pending: 0, done: 0, fetched: 0, total: 0 }
}

/** Finished rows, a page at a time (ordered by url for stable paging). */
export async function donePages(db: D1Database, runId: string, afterUrl: string, limit: number): Promise<DoneRow[]> {
  const { results } = await db
    .prepare(
      `SELECT url, depth, source, kind, status, facts FROM crawl_pages
        WHERE run_id = ? AND state = 'done' AND url > ? ORDER BY url LIMIT ?`,
    )
    .bind(runId, afterUrl, limit)
    .all<DoneRow>()
  return results
}

/** Drops a run's frontier once its audit is stored. */
export async function deleteCrawl(db: D1Database, runId: string): Promise<void> {
  await db.prepare('DELETE FROM crawl_pages WHERE run_id = ?').bind(runId).run()
}
