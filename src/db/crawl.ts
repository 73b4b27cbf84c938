/** The crawl frontier of content audits, keyed by run id (migration 0007). */
import { jsonSize } from '../lib/json-size'

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

/** One statement adding URLs to the frontier (ones already there, pending or done, are left alone). */
function enqueueStatement(db: D1Database, runId: string, entries: FrontierEntry[], seqBase: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO crawl_pages (run_id, url, depth, seq, source, state)
       SELECT ?1, j.value ->> 'url', j.value ->> 'depth', ?2 + j.key, j.value ->> 'source', 'pending' FROM json_each(?3) AS j WHERE true
       ON CONFLICT(run_id, url) DO NOTHING`,
    )
    .bind(runId, seqBase, JSON.stringify(entries))
}

/** Bytes of JSON one frontier insert binds at most: D1 refuses a value over 2,000,000 bytes. */
const ENQUEUE_CHUNK_BYTES = 512 * 1024

/**
 * Statements adding URLs to the frontier, each binding at most ENQUEUE_CHUNK_BYTES of entries: a
 * batch of pages can find thousands of URLs of up to 8,192 characters each.
 */
function enqueueStatements(db: D1Database, runId: string, entries: FrontierEntry[], seqBase: number): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = []
  let start = 0
  let size = 2
  for (let i = 0; i < entries.length; i++) {
    const n = jsonSize(entries[i]) + 1
    if (i > start && size + n > ENQUEUE_CHUNK_BYTES) {
      out.push(enqueueStatement(db, runId, entries.slice(start, i), seqBase + start))
      start = i
      size = 2
    }
    size += n
  }
  if (start < entries.length) out.push(enqueueStatement(db, runId, entries.slice(start), seqBase + start))
  return out
}

/** Adds URLs to the frontier; ones already there (pending or done) are left alone. */
export async function enqueueUrls(db: D1Database, runId: string, entries: FrontierEntry[], seqBase: number): Promise<void> {
  if (entries.length === 0) return
  await db.batch(enqueueStatements(db, runId, entries, seqBase))
}

/** The next pending URLs, shallowest first, then in discovery order. */
export async function nextPending(db: D1Database, runId: string, limit: number): Promise<FrontierEntry[]> {
  const { results } = await db.prepare(`SELECT url, depth, source FROM crawl_pages WHERE run_id = ? AND state = 'pending' ORDER BY depth, seq LIMIT ?`).bind(runId, limit).all<FrontierEntry>()
  return results
}

/**
 * Marks pages done with their results and adds the URLs they led to, in one transaction: a crash
 * leaves either both or neither, so no finished page loses its discoveries.
 */
export async function finishPages(db: D1Database, runId: string, results: CrawlResult[], discovered: FrontierEntry[], seqBase: number, now: number): Promise<void> {
  if (results.length === 0 && discovered.length === 0) return
  const update = db.prepare(`UPDATE crawl_pages SET state = 'done', kind = ?, status = ?, facts = ?, fetched_at = ? WHERE run_id = ? AND url = ?`)
  const statements = results.map((r) => update.bind(r.kind, r.status, r.facts, now, runId, r.url))
  statements.push(...enqueueStatements(db, runId, discovered, seqBase))
  await db.batch(statements)
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

/** A finished URL as the audit first reads it: no page facts, only where a redirect leads and why a URL was not read. */
export interface DoneUrl {
  url: string
  kind: CrawlKind
  status: number | null
  location: string | null
  error: string | null
}

/** Finished URLs without their facts, a page at a time (ordered by url for stable paging). */
export async function doneUrls(db: D1Database, runId: string, afterUrl: string, limit: number): Promise<DoneUrl[]> {
  const { results } = await db
    .prepare(
      `SELECT url, kind, status,
              CASE WHEN kind = 'redirect' THEN facts ->> '$.location' END AS location,
              CASE WHEN kind IN ('error', 'blocked') THEN facts ->> '$.error' END AS error
         FROM crawl_pages
        WHERE run_id = ? AND state = 'done' AND url > ? ORDER BY url LIMIT ?`,
    )
    .bind(runId, afterUrl, limit)
    .all<DoneUrl>()
  return results
}

/** Drops a run's frontier once its audit is stored. */
export async function deleteCrawl(db: D1Database, runId: string): Promise<void> {
  await db.prepare('DELETE FROM crawl_pages WHERE run_id = ?').bind(runId).run()
}
