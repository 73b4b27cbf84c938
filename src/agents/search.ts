import {
  listByPopularityQuery,
  rankCandidatesQuery,
  relevanceFloor,
  relevancePart,
  runQueries,
  runQuery,
  SCORE_K,
  trigramCandidatesQuery,
  type AgentRow,
  type Query,
  type Read,
  type RankedPage,
  type ScoredAgent,
  type Viewer,
  type VisibilityFilter,
} from '../db/agents'
import { agentsByRowidQuery } from '../db/public-agents'
import { ByteLru } from '../lib/lru'
import { catalogPoint, publicRanker, type PublicRanker, type RankedAgent } from './public-rank'
import { closeEnough, queryTerms, trigramMatch, wordsOf } from './query'
import { absorb, candidatesOf, completeLists, knownLists, kthLargest, likelyEmpty, lookupPhrases, missingLists, sumLists, type Matches } from './relevance'

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

/** How search turns matches into the page: guessed along with the list read, then made exact. */
interface Pager {
  /** A query answering the page if the matches stay as they are, to send with the list read. */
  guess(m: Matches): Query<unknown>
  /** The exact page of the matches (using what a guess brought back, where it still applies). */
  page(m: Matches): Promise<ScoredAgent[]>
}

/**
 * Pages ranked by D1. Popularity adds at most POPULARITY_WEIGHT, so only agents whose relevance
 * part comes within that of the k-th best relevance can reach rank k: only those are sent to D1 for
 * visibility, popularity and ordering. That page stands when it reaches rank k and its last score is
 * at least the k-th relevance part (nothing left out can beat it); else every match is ranked.
 */
function d1Pager(db: D1Database, read: Read, base: { viewer: Viewer; filter: VisibilityFilter }, limit: number, offset: number): Pager {
  const k = offset + limit
  const firstTry = (m: Matches) => {
    if (m.rels.length <= k) return { query: rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m), limit, offset }), stands: () => true }
    const kth = kthLargest(m.rels, k)
    return {
      query: rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m, relevanceFloor(relevancePart(kth))), limit, offset }),
      stands: (page: RankedPage) => {
        const last = page.rows[page.rows.length - 1]
        return page.ranked >= k && last !== undefined && last.raw >= relevancePart(kth)
      },
    }
  }
  let guessed: { m: Matches; stands: (page: RankedPage) => boolean; page?: RankedPage } | null = null
  return {
    guess(m) {
      const first = firstTry(m)
      const g: NonNullable<typeof guessed> = { m, stands: first.stands }
      guessed = g
      return { statement: first.query.statement, read: (result) => (g.page = first.query.read(result)) }
    },
    async page(m) {
      const tried = guessed?.m === m ? guessed : null
      if (tried?.page) {
        if (tried.stands(tried.page)) return tried.page.rows
      } else {
        const first = firstTry(m)
        const page = await runQuery(read, first.query)
        if (first.stands(page)) return page.rows
      }
      return (await runQuery(read, rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m), limit, offset }))).rows
    },
  }
}

/**
 * Pages of public searches ranked in the Worker (see public-rank.ts): D1 only returns the page's
 * rows. Rows already read are reused when the ranking moves (the state caught up with changes, or a
 * phrase turned out to match), and a row that is gone or no longer public hands the page to D1.
 */
function workerPager(db: D1Database, ranker: PublicRanker, fallback: Pager, limit: number, offset: number): Pager {
  const rows = new Map<number, AgentRow>()
  const rowsQuery = (rowids: number[]): Query<void> => {
    const q = agentsByRowidQuery(db, rowids)
    return { statement: q.statement, read: (result) => q.read(result).forEach((r) => rows.set(r.rowid, r)) }
  }
  const unread = (ranked: RankedAgent[]) => ranked.filter((r) => !rows.has(r.rowid)).map((r) => r.rowid)
  return {
    guess(m) {
      return rowsQuery(unread((ranker.rank(m, offset + limit) ?? []).slice(offset)))
    },
    async page(m) {
      // The first read brings the state up to date, which may move the ranking once more.
      for (let reads = 0; reads < 3; reads++) {
        const ranked = ranker.rank(m, offset + limit)
        if (!ranked) break
        const page = ranked.slice(offset)
        const need = unread(page)
        if (need.length === 0 && ranker.current()) {
          const hits = page.map((r) => ({ row: rows.get(r.rowid)!, raw: r.raw }))
          if (hits.some((h) => h.row.visibility !== 'public')) break
          return hits.map((h) => ({ ...h.row, score: Math.round(h.raw * 1e6) / 1e6 }))
        }
        if (reads === 2) break
        await runQuery(ranker.read, rowsQuery(need))
        // Behind for good, or a row no agent has any more: the agents changed under this search.
        if (!ranker.current() || need.some((rowid) => !rows.has(rowid))) break
      }
      return fallback.page(m)
    },
  }
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
  const seen = s.filter === 'public' && s.catalogVersion ? catalogPoint(s.catalogVersion) : null
  const ranker = seen ? await publicRanker(db, read, seen) : null
  if (ranker) read = ranker.read
  const inD1 = d1Pager(db, read, base, s.limit, offset)
  const pager = ranker ? workerPager(db, ranker, inD1, s.limit, offset) : inD1
  const phrases = lookupPhrases(indexVersion, terms)
  let matches = sumLists(knownLists(phrases))
  const missing = missingLists(db, phrases)
  if (missing) {
    // When the phrases the cache lacks probably match nothing (unknown words, numbers, typos), guess
    // the page in the same round trip as reading them; when one does match, the page is made again.
    const guess = matches.rowids.length >= FUZZY_THRESHOLD && likelyEmpty(missing) ? pager.guess(matches) : null
    const [fetched] = guess ? await runQueries(read, missing.query, guess) : [await runQuery(read, missing.query)]
    if (absorb(phrases, missing, await completeLists(db, read, missing, fetched))) matches = sumLists(knownLists(phrases))
  }
  const matched = matches.rowids.length
  const fuzzy = matched >= FUZZY_THRESHOLD ? null : trigramMatch(terms)
  if (!fuzzy) return matched > 0 ? pager.page(matches) : []
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
