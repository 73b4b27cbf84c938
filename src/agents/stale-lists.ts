/**
 * Relevance lists kept across agent text changes. A phrase's list holds FTS5's bm25 for every agent
 * it matches, and bm25 reads the whole index: any text change moves FTS5's row and token totals, and
 * so every value of every list a little. Reading each list again after every write costs the most
 * SQL search does, so a list read at an older index version is kept and used with bounds:
 *
 * For one phrase FTS5 gives (fts5_aux.c, k1 = 1.2, b = 0.75)
 *   t = idf(N, n) · F(k1 + 1) / (F + k1(1 - b + b · D / avgdl)),  idf(N, n) = log((N - n + 0.5) / (n + 0.5)),
 * floored to 1e-6 when not positive, where F is the agent's weighted count of the phrase, D its
 * token count, N the rows, n the rows the phrase matches and avgdl the tokens over N. An agent whose
 * text did not change keeps F and D, so its value moves only through idf and avgdl: by the factor
 * idf(N', n') / idf(N, n) times a factor between 1 and avgdl' / avgdl (the length part is
 * (F + k1(1 - b) + k1 · b · D / avgdl)⁻¹ up to a constant, and adding the same positive F + k1(1 - b) to
 * both sides of the ratio moves it toward 1). N, the tokens and n now are read exactly (one
 * statement, counting matches without scoring them), so the bound is tight; the agents changed
 * since the list was read are scored again whatever their old value.
 */
import type { FtsTotals } from '../db/index-changes'

/** Relative room for rounding (the values and the bound are each a handful of double operations). */
const SLACK = 1e-9

/**
 * Agents changed since a list was read, at most, for the list to be used rather than read again:
 * every search using it reads them and has them scored again, so past this many a fresh read of the
 * list is cheaper than carrying them.
 */
export const MAX_STALE_CHANGES = 256

/** FTS5's idf, as fts5_aux.c computes and floors it. */
export function ftsIdf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5))
  return idf <= 0 ? 1e-6 : idf
}

/**
 * The factor by which any unchanged agent's value for a phrase can at most have grown between two
 * reads of the index: `then` and `now` are FTS5's totals with the phrase's match count. Null when
 * the totals cannot bound it (an empty index).
 */
export function growthBound(then: FtsTotals & { hits: number }, now: FtsTotals & { hits: number }): number | null {
  if (!(then.rows > 0 && now.rows > 0 && then.tokens > 0 && now.tokens > 0 && then.hits >= 0 && now.hits >= 0)) return null
  const lengths = now.tokens / now.rows / (then.tokens / then.rows)
  const bound = (ftsIdf(now.rows, now.hits) / ftsIdf(then.rows, then.hits)) * Math.max(1, lengths)
  return Number.isFinite(bound) && bound > 0 ? bound * (1 + SLACK) : null
}
