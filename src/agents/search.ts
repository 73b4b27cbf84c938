import {
  listByPopularity,
  phraseListsQuery,
  POPULARITY_WEIGHT,
  rankCandidatesQuery,
  runQueries,
  runQuery,
  SCORE_K,
  trigramCandidates,
  type FetchedLists,
  type PhraseList,
  type Query,
  type RankedPage,
  type ScoredAgent,
  type Viewer,
  type VisibilityFilter,
} from '../db/agents'
import { closeEnough, phrase, queryTerms, trigramMatch, wordsOf } from './query'

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
 * Relevance lists per phrase, per isolate, keyed by the index version (the third part of the catalog
 * version, moved by every change to agent text; migration 0009): a list depends on nothing else, so
 * executions and reviews leave it valid. Bounded by the number of entries held, least recently used
 * first out.
 */
const LIST_CACHE_ENTRIES = 1_000_000
const listCache = new Map<string, PhraseList>()
let listCacheEntries = 0

function cachedList(key: string | null): PhraseList | undefined {
  const hit = key ? listCache.get(key) : undefined
  if (key && hit) {
    listCache.delete(key)
    listCache.set(key, hit)
  }
  return hit
}

function rememberList(key: string | null, list: PhraseList): void {
  if (!key || list.rowids.length > LIST_CACHE_ENTRIES / 4) return
  listCache.set(key, list)
  listCacheEntries += list.rowids.length
  for (const [oldest, old] of listCache) {
    if (listCacheEntries <= LIST_CACHE_ENTRIES) break
    listCache.delete(oldest)
    listCacheEntries -= old.rowids.length
  }
}

/**
 * The phrases of a word query and what the cache knows of them: every term, and the last term as a
 * prefix when the index does not know it as a word (so "transcri" finds "transcript" while the caller
 * is still typing; a known word is not also matched as a prefix, which bm25 would count twice).
 */
interface QueryPhrases {
  exprs: string[]
  prefix: string | null
  lists: Map<string, PhraseList>
  prefixList: PhraseList | undefined
  keyOf: (expr: string) => string | null
}

function lookupPhrases(indexVersion: string | null, terms: string[]): QueryPhrases {
  const exprs = terms.map((t) => phrase(t))
  const last = terms[terms.length - 1]
  const keyOf = (expr: string) => (indexVersion ? `${indexVersion}|${expr}` : null)
  const lists = new Map<string, PhraseList>()
  for (const expr of exprs) {
    const hit = cachedList(keyOf(expr))
    if (hit) lists.set(expr, hit)
  }
  const prefix = last.length >= 2 ? phrase(last, true) : null
  const prefixList = prefix && lists.get(exprs[exprs.length - 1])?.rowids.length === 0 ? cachedList(keyOf(prefix)) : undefined
  return { exprs, prefix, lists, prefixList, keyOf }
}

/** The query reading what the cache lacks, or null when it has everything. */
function missingQuery(db: D1Database, q: QueryPhrases): Query<FetchedLists> | null {
  const missing = q.exprs.filter((e) => !q.lists.has(e))
  const lastList = q.lists.get(q.exprs[q.exprs.length - 1])
  const wantPrefix = q.prefix !== null && q.prefixList === undefined && (lastList === undefined || lastList.rowids.length === 0)
  if (missing.length === 0 && !wantPrefix) return null
  return phraseListsQuery(db, missing, wantPrefix ? { phrase: q.prefix!, unless: q.exprs[q.exprs.length - 1] } : null)
}

/** Stores fetched lists in the query and the cache; true when any of them matches something. */
function absorb(q: QueryPhrases, fetched: FetchedLists): boolean {
  const missing = q.exprs.filter((e) => !q.lists.has(e))
  missing.forEach((expr, i) => {
    q.lists.set(expr, fetched.lists[i])
    rememberList(q.keyOf(expr), fetched.lists[i])
  })
  if (fetched.fallback) {
    q.prefixList = fetched.fallback
    rememberList(q.keyOf(q.prefix!), fetched.fallback)
  }
  return fetched.lists.some((l) => l.rowids.length > 0) || (fetched.fallback?.rowids.length ?? 0) > 0
}

/** Relevance lists of the query's phrases in order, phrases not known (yet) or matching nothing left out. */
function knownLists(q: QueryPhrases): PhraseList[] {
  const ordered = q.exprs.map((e) => q.lists.get(e))
  if (q.prefixList && q.lists.get(q.exprs[q.exprs.length - 1])?.rowids.length === 0) ordered.push(q.prefixList)
  return ordered.filter((l): l is PhraseList => l !== undefined && l.rowids.length > 0)
}

/** Every agent the OR query matches, by rowid ascending, with its bm25 relevance. */
interface Matches {
  rowids: Float64Array
  rels: Float64Array
}

/**
 * bm25 of the OR query for every matching agent: the sum of its phrases' relevance, added in phrase
 * order as FTS5 adds them, so the values are the ones FTS5 itself would give. The lists are sorted by
 * rowid, so one merge pass does it.
 */
function sumLists(lists: PhraseList[]): Matches {
  const size = lists.reduce((n, l) => n + l.rowids.length, 0)
  const rowids = new Float64Array(size)
  const rels = new Float64Array(size)
  const at = lists.map(() => 0)
  let n = 0
  for (;;) {
    let next = Infinity
    for (let j = 0; j < lists.length; j++) if (at[j] < lists[j].rowids.length && lists[j].rowids[at[j]] < next) next = lists[j].rowids[at[j]]
    if (next === Infinity) break
    let sum = 0
    for (let j = 0; j < lists.length; j++) {
      if (at[j] < lists[j].rowids.length && lists[j].rowids[at[j]] === next) sum += lists[j].rels[at[j]++]
    }
    rowids[n] = next
    rels[n++] = sum
  }
  return { rowids: rowids.subarray(0, n), rels: rels.subarray(0, n) }
}

/** The k-th largest value (k >= 1, at most values.length). */
function kthLargest(values: Float64Array, k: number): number {
  if (k > 64) return Float64Array.from(values).sort()[values.length - k]
  // A small sorted window of the best k beats sorting everything for the usual page sizes.
  const best: number[] = []
  for (const v of values) {
    if (best.length === k && v <= best[k - 1]) continue
    let i = best.length === k ? k - 1 : best.length
    while (i > 0 && best[i - 1] < v) {
      best[i] = best[i - 1]
      i--
    }
    best[i] = v
  }
  return best[k - 1]
}

/** The matches with relevance at least `min`, as [rowid, relevance] pairs. */
function pairs(m: Matches, min = -Infinity): [number, number][] {
  const out: [number, number][] = []
  for (let i = 0; i < m.rowids.length; i++) if (m.rels[i] >= min) out.push([m.rowids[i], m.rels[i]])
  return out
}

/** The relevance part of a blended score, computed as the SQL computes it. */
const relevancePart = (rel: number) => ((1 - POPULARITY_WEIGHT) * rel) / (rel + SCORE_K)

/**
 * The first try at the exact page of the OR query. Popularity adds at most POPULARITY_WEIGHT, so only
 * agents whose relevance part comes within that of the k-th best relevance can reach rank k: only
 * those are sent to D1 for visibility, popularity and ordering. The page stands when it reaches rank
 * k and its last score is at least the k-th relevance part (nothing left out can beat it).
 */
function firstTry(db: D1Database, base: { viewer: Viewer; filter: VisibilityFilter }, m: Matches, limit: number, offset: number) {
  const k = offset + limit
  if (m.rels.length <= k) return { query: rankCandidatesQuery(db, { ...base, candidates: pairs(m), limit, offset }), stands: () => true }
  const kth = kthLargest(m.rels, k)
  const y = relevancePart(kth) / (1 - POPULARITY_WEIGHT) - POPULARITY_WEIGHT / (1 - POPULARITY_WEIGHT)
  const cutoff = y > 0 ? (SCORE_K * y) / (1 - y) : 0
  return {
    query: rankCandidatesQuery(db, { ...base, candidates: pairs(m, cutoff), limit, offset }),
    stands: (page: RankedPage) => {
      const last = page.rows[page.rows.length - 1]
      return page.ranked >= k && last !== undefined && last.raw >= relevancePart(kth)
    },
  }
}

/** The exact page; when the first try does not stand (say the best matches are hidden from the caller), every match is ranked. */
async function exactPage(db: D1Database, base: { viewer: Viewer; filter: VisibilityFilter }, m: Matches, limit: number, offset: number, tried?: RankedPage) {
  const first = firstTry(db, base, m, limit, offset)
  const page = tried ?? (await runQuery(first.query))
  if (first.stands(page)) return page.rows
  return (await runQuery(rankCandidatesQuery(db, { ...base, candidates: pairs(m), limit, offset }))).rows
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
  const base = { viewer: s.viewer, filter: s.filter }
  if (terms.length === 0) return listByPopularity(db, { ...base, limit: s.limit, offset })
  const indexVersion = s.catalogVersion ? s.catalogVersion.replace(/:[^:]*:/, ':') : null
  const phrases = lookupPhrases(indexVersion, terms)
  let matches = sumLists(knownLists(phrases))
  const missing = missingQuery(db, phrases)
  let tried: RankedPage | undefined
  if (missing) {
    // Speculate that the phrases the cache lacks match nothing (unknown words, numbers, typos are
    // common) and rank in the same round trip; when one does match, rank again with it.
    const attempt = matches.rowids.length >= FUZZY_THRESHOLD ? firstTry(db, base, matches, s.limit, offset).query : null
    const [fetched, page] = attempt ? await runQueries(db, missing, attempt) : [await runQuery(missing), undefined]
    if (absorb(phrases, fetched)) matches = sumLists(knownLists(phrases))
    else tried = page
  }
  const matched = matches.rowids.length
  const fuzzy = trigramMatch(terms)
  if (!fuzzy || matched >= FUZZY_THRESHOLD) return matched > 0 ? exactPage(db, base, matches, s.limit, offset, tried) : []
  const exact = matched > 0 ? (await runQuery(rankCandidatesQuery(db, { ...base, candidates: pairs(matches), limit: FUZZY_THRESHOLD, offset: 0 }))).rows : []
  const candidates = await trigramCandidates(db, { ...base, match: fuzzy, limit: FUZZY_CANDIDATES })
  const merged = new Map<string, ScoredAgent>(exact.map(({ raw: _raw, ...a }) => [a.id, a]))
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
