import {
  listByPopularity,
  matchStats,
  POPULARITY_WEIGHT,
  SCORE_K,
  searchTopByText,
  trigramCandidates,
  type ScoredAgent,
  type Viewer,
  type VisibilityFilter,
} from '../db/agents'
import { closeEnough, queryTerms, trigramMatch, wordMatch, wordsOf } from './query'

/** Below this many word-index matches, typo-tolerant hits are merged in. */
const FUZZY_THRESHOLD = 5
/** Fuzzy hits rank below exact ones: their score is scaled by this and by term coverage. */
const FUZZY_SCALE = 0.6
const FUZZY_CANDIDATES = 200
const FIRST_WINDOW = 64

export interface CatalogSearch {
  viewer: Viewer
  query: string
  filter: VisibilityFilter
  limit: number
  page: number
  /** Catalog version (`<epoch>:<version>`) the caller saw; with the public filter, enables the page cache. */
  catalogVersion?: string | null
}

/**
 * Pages of public searches, per isolate, keyed by catalog version: every agent write moves the version
 * (triggers in migration 0008), so a cached page is exactly what the query would return now. Only the
 * public filter is cached, since its answer does not depend on who asks.
 */
const PAGE_CACHE_LIMIT = 500
const pageCache = new Map<string, ScoredAgent[]>()

function cacheKey(s: CatalogSearch): string | null {
  if (s.filter !== 'public' || !s.catalogVersion) return null
  return `${s.catalogVersion}|${s.limit}|${s.page}|${queryTerms(s.query).join(' ')}`
}

/** Ranked catalog search, served from the page cache when the catalog has not changed. */
export async function searchCatalog(db: D1Database, s: CatalogSearch): Promise<ScoredAgent[]> {
  const key = cacheKey(s)
  if (key) {
    const hit = pageCache.get(key)
    if (hit) {
      pageCache.delete(key)
      pageCache.set(key, hit)
      return hit
    }
  }
  const rows = await rankCatalog(db, s)
  if (key) {
    pageCache.set(key, rows)
    if (pageCache.size > PAGE_CACHE_LIMIT) pageCache.delete(pageCache.keys().next().value!)
  }
  return rows
}

const order = (a: ScoredAgent, b: ScoredAgent) => b.score - a.score || b.executions - a.executions || a.rowid - b.rowid

/**
 * Exact top-k over all word matches without scoring every match against the wide agent rows: rank a
 * window of the best matches by text relevance alone, blend popularity, and accept the page when its
 * last score beats anything outside the window could reach (text score at the window's edge plus the
 * full popularity weight). Otherwise widen the window.
 */
async function rankedPage(db: D1Database, base: { viewer: Viewer; filter: VisibilityFilter }, match: string, limit: number, offset: number) {
  const needed = offset + limit
  for (let window = Math.max(FIRST_WINDOW, needed * 2); ; window *= 4) {
    const page = await searchTopByText(db, { ...base, match, window, limit, offset })
    if (page.candidates < window) return page.rows
    const ceiling = (1 - POPULARITY_WEIGHT) * (page.minRel / (page.minRel + SCORE_K)) + POPULARITY_WEIGHT
    const last = page.rows[page.rows.length - 1]
    if (page.rows.length === limit && last.score > ceiling) return page.rows
  }
}

/**
 * Ranked catalog search. When the word index finds fewer than FUZZY_THRESHOLD agents, trigram
 * candidates are kept only if one of their words is within a small edit distance of a query term,
 * and merged below the exact hits. That decision depends only on the query, never on the page, so
 * every page is a slice of the same ordering.
 */
async function rankCatalog(db: D1Database, s: CatalogSearch): Promise<ScoredAgent[]> {
  const offset = s.page * s.limit
  // Past any real catalog size; also keeps the OFFSET an exact integer for SQLite.
  if (offset > 1e9) return []
  const terms = queryTerms(s.query)
  const exact = wordMatch(terms)
  const base = { viewer: s.viewer, filter: s.filter }
  if (!exact) return listByPopularity(db, { ...base, limit: s.limit, offset })
  const prefixed = wordMatch(terms, true)!
  const stats = await matchStats(db, exact, `"${terms[terms.length - 1]}"`, prefixed, FUZZY_THRESHOLD)
  const match = stats.lastTermKnown ? exact : prefixed
  const matched = stats.lastTermKnown ? stats.exact : stats.prefixed
  const fuzzy = trigramMatch(terms)
  if (!fuzzy || matched >= FUZZY_THRESHOLD) return rankedPage(db, base, match, s.limit, offset)
  const [exactHits, candidates] = await Promise.all([
    rankedPage(db, base, match, FUZZY_THRESHOLD, 0),
    trigramCandidates(db, { ...base, match: fuzzy, limit: FUZZY_CANDIDATES }),
  ])
  const merged = new Map(exactHits.map((a) => [a.id, a]))
  const fuzzyTerms = terms.filter((t) => t.length >= 4)
  for (const c of candidates) {
    if (merged.has(c.id)) continue
    const words = wordsOf(`${c.name} ${c.description}`)
    const covered = fuzzyTerms.filter((t) => words.some((w) => closeEnough(t, w))).length
    if (covered === 0) continue
    const { rel, ...agent } = c
    const score = FUZZY_SCALE * (covered / fuzzyTerms.length) * (rel / (rel + SCORE_K))
    merged.set(c.id, { ...agent, score: Math.round(score * 1e6) / 1e6 })
  }
  return [...merged.values()].sort(order).slice(offset, offset + s.limit)
}
