import {
  listByPopularityQuery,
  POPULARITY_WEIGHT,
  rankCandidatesQuery,
  runQueries,
  runQuery,
  SCORE_K,
  trigramCandidatesQuery,
  type Query,
  type Read,
  type RankedPage,
  type ScoredAgent,
  type Viewer,
  type VisibilityFilter,
} from '../db/agents'
import { ByteLru } from '../lib/lru'
import { closeEnough, queryTerms, trigramMatch, wordsOf } from './query'
import { absorb, candidatesOf, knownLists, kthLargest, likelyEmpty, lookupPhrases, missingLists, sumLists, type Matches } from './relevance'

/** Below this many word-index matches, typo-tolerant hits are merged in. */
const FUZZY_THRESHOLD = 5
/** Fuzzy hits rank below exact ones: their score is scaled by this and by term coverage. */
const FUZZY_SCALE = 0.6
const FUZZY_CANDIDATES = 200

export interface CatalogSearch {
  viewer: Viewer
  query: string
  filter: VisibilityFilter
  limit: number
  page: number
  /**
   * Catalog version (`<epoch>:<version>:<index version>`) the caller saw: enables the page cache (public
   * filter) and the phrase relevance cache.
   */
  catalogVersion?: string | null
}

/**
 * Pages of public searches, per isolate, keyed by catalog version: every agent write moves the version
 * (triggers in migration 0008), so a cached page is exactly what the query would return now. Only the
 * public filter is cached, since its answer does not depend on who asks. Bounded by the memory the
 * pages take, least recently used first out. A page is kept only when its query comes a second time,
 * so the long tail of queries asked once cannot push out the ones callers repeat.
 */
const pageCache = new ByteLru<ScoredAgent[]>(8 * 2 ** 20)
/** Hashes of the page keys asked once (a collision only lets a page in early). */
const askedOnce = new Set<number>()
const ASKED_ONCE_LIMIT = 50_000

/** FNV-1a, 32 bits. */
function hashKey(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h >>> 0
}

function rememberPage(key: string, rows: ScoredAgent[]): void {
  const h = hashKey(key)
  if (askedOnce.delete(h)) return pageCache.set(key, rows, pageBytes(rows))
  if (askedOnce.size >= ASKED_ONCE_LIMIT) askedOnce.clear()
  askedOnce.add(h)
}

/** Roughly what a page holds in memory: its text (two bytes a character) and a little per row. */
function pageBytes(rows: ScoredAgent[]): number {
  let chars = 0
  for (const r of rows) chars += r.name.length + r.description.length + r.parameters.length + r.workflow.length + r.param_text.length + 200
  return 2 * chars
}

function cacheKey(s: CatalogSearch, terms: string[]): string | null {
  if (s.filter !== 'public' || !s.catalogVersion) return null
  return `${s.catalogVersion}|${s.limit}|${s.page}|${terms.join(' ')}`
}

/**
 * Ranked catalog search, served from the page cache when the catalog has not changed. `read` runs
 * each round trip (an action passes `ctx.read`).
 */
export async function searchCatalog(db: D1Database, s: CatalogSearch, read: Read = (statements) => db.batch(statements)): Promise<ScoredAgent[]> {
  const terms = queryTerms(s.query)
  const key = cacheKey(s, terms)
  if (key) {
    const hit = pageCache.get(key)
    if (hit) return hit
  }
  const rows = await rankCatalog(db, read, s, terms)
  if (key) rememberPage(key, rows)
  return rows
}

const order = (a: ScoredAgent, b: ScoredAgent) => b.score - a.score || b.executions - a.executions || a.rowid - b.rowid

/** The relevance part of a blended score, computed as the SQL computes it. */
const relevancePart = (rel: number) => ((1 - POPULARITY_WEIGHT) * rel) / (rel + SCORE_K)

interface FirstTry {
  query: Query<RankedPage>
  stands: (page: RankedPage) => boolean
}

/**
 * The first try at the exact page of the OR query. Popularity adds at most POPULARITY_WEIGHT, so only
 * agents whose relevance part comes within that of the k-th best relevance can reach rank k: only
 * those are sent to D1 for visibility, popularity and ordering. The page stands when it reaches rank
 * k and its last score is at least the k-th relevance part (nothing left out can beat it).
 */
function firstTry(db: D1Database, base: { viewer: Viewer; filter: VisibilityFilter }, m: Matches, limit: number, offset: number): FirstTry {
  const k = offset + limit
  if (m.rels.length <= k) return { query: rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m), limit, offset }), stands: () => true }
  const kth = kthLargest(m.rels, k)
  // The relevance c where relevancePart(c) + POPULARITY_WEIGHT = relevancePart(kth), solved for c.
  const y = kth / (kth + SCORE_K) - POPULARITY_WEIGHT / (1 - POPULARITY_WEIGHT)
  const cutoff = y > 0 ? (SCORE_K * y) / (1 - y) : 0
  return {
    query: rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m, cutoff), limit, offset }),
    stands: (page: RankedPage) => {
      const last = page.rows[page.rows.length - 1]
      return page.ranked >= k && last !== undefined && last.raw >= relevancePart(kth)
    },
  }
}

/** The exact page; when the first try does not stand (say the best matches are hidden from the caller), every match is ranked. */
async function exactPage(
  db: D1Database,
  read: Read,
  base: { viewer: Viewer; filter: VisibilityFilter },
  m: Matches,
  limit: number,
  offset: number,
  tried?: { first: FirstTry; page: RankedPage },
) {
  const first = tried?.first ?? firstTry(db, base, m, limit, offset)
  const page = tried?.page ?? (await runQuery(read, first.query))
  if (first.stands(page)) return page.rows
  return (await runQuery(read, rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m), limit, offset }))).rows
}

/**
 * Ranked catalog search. When the word index finds fewer than FUZZY_THRESHOLD agents, trigram
 * candidates are kept only if one of their words is within a small edit distance of a query term,
 * and merged below the exact hits. That decision depends only on the query, never on the page, so
 * every page is a slice of the same ordering.
 */
async function rankCatalog(db: D1Database, read: Read, s: CatalogSearch, terms: string[]): Promise<ScoredAgent[]> {
  const offset = s.page * s.limit
  // Past any real catalog size; also keeps the OFFSET an exact integer for SQLite.
  if (offset > 1e9) return []
  const base = { viewer: s.viewer, filter: s.filter }
  if (terms.length === 0) return runQuery(read, listByPopularityQuery(db, { ...base, limit: s.limit, offset }))
  // `<epoch>:<version>:<index version>` -> `<epoch>:<index version>`: lists outlive popularity changes.
  const indexVersion = s.catalogVersion ? s.catalogVersion.replace(/:[^:]*:/, ':') : null
  const phrases = lookupPhrases(indexVersion, terms)
  let matches = sumLists(knownLists(phrases))
  const missing = missingLists(db, phrases)
  let tried: { first: FirstTry; page: RankedPage } | undefined
  if (missing) {
    // When the phrases the cache lacks probably match nothing (unknown words, numbers, typos), rank
    // in the same round trip as reading them; when one does match, rank again with it.
    const first = matches.rowids.length >= FUZZY_THRESHOLD && likelyEmpty(missing) ? firstTry(db, base, matches, s.limit, offset) : null
    const [fetched, page] = first ? await runQueries(read, missing.query, first.query) : [await runQuery(read, missing.query), undefined]
    if (absorb(phrases, missing, fetched)) matches = sumLists(knownLists(phrases))
    else if (first && page) tried = { first, page }
  }
  const matched = matches.rowids.length
  const fuzzy = matched >= FUZZY_THRESHOLD ? null : trigramMatch(terms)
  if (!fuzzy) return matched > 0 ? exactPage(db, read, base, matches, s.limit, offset, tried) : []
  // The few exact hits and the trigram candidates, in one round trip.
  const trigram = trigramCandidatesQuery(db, { ...base, match: fuzzy, limit: FUZZY_CANDIDATES })
  const [exact, candidates] =
    matched > 0
      ? await runQueries(read, rankCandidatesQuery(db, { ...base, candidates: candidatesOf(matches), limit: FUZZY_THRESHOLD, offset: 0 }), trigram)
      : [{ rows: [] }, await runQuery(read, trigram)]
  const merged = new Map<string, ScoredAgent>(exact.rows.map(({ raw: _raw, ...a }) => [a.id, a]))
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
