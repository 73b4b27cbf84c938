import {
  listByPopularityQuery,
  rankCandidatesQuery,
  restrictedListQuery,
  runQuery,
  type AgentRow,
  type PhraseList,
  type Query,
  type Read,
  type RankedPage,
  type ScoredAgent,
  type Viewer,
  type VisibilityFilter,
  WIDE_BOUND,
} from '../db/agents'
import { indexCheckQuery, indexPointQuery, type IndexCheck } from '../db/index-changes'
import { agentsByRowidQuery } from '../db/public-agents'
import type { VocabularyWord } from '../db/search-words'
import { correctable, correctionsOf, typoProbe } from './corrections'
import type { Embedder } from './embedder'
import { calibratedPart } from './calibration'
import { FEEDBACK_AGENTS, feedbackLeast, feedbackQuery, fuse, queryVector, SEMANTIC_CANDIDATES, type Semantic, type VectorSource } from './hybrid'
import { catalogPoint, publicRanker, type PublicRanker, type RankedAgent } from './public-rank'
import { phrase, queryTerms } from './query'
import { blendedScore, partFloor, POPULARITY_WEIGHT, relevanceFloor, relevancePart, TYPO_WEIGHT } from './ranking'
import { absorb, candidatesOf, completeLists, knownLists, kthLargest, likelyEmpty, lookupPhrases, missingLists, sumLists, wideLists, type Matches, type QueryPhrases } from './relevance'
import { askedBefore, cached, indexParts, sawCatalog, sawVocabulary, vectorIndex, type CachedList } from './search-state'
import { growthBound, MAX_STALE_CHANGES } from './stale-lists'
import { porterStem } from './stem'
import { remoteVectors } from './vectorize'

/** How stale this isolate's vector index may be: a vector written later counts from then on. */
export const VECTOR_REFRESH_MS = 1000

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
  /**
   * The search vocabulary's point read with it (`<epoch>:<index version>:<vocabulary version>`): tells
   * whether a word that matched nothing at an older index version still does (relevance.ts).
   */
  vocabularyPoint?: string | null
  /** The search embedder, or null/absent for lexical search only. */
  embedder?: Embedder | null
  /** A Vectorize index of the agents' vectors, used instead of this isolate's index when bound. */
  vectorize?: Vectorize
  /** Hits scoring below this are left out (the ordering is by score, so pages stay slices of one list). */
  minScore?: number
  /** Where an embedder failure is reported (the search then answers lexically). */
  onEmbedError?: (err: unknown) => void
}

/**
 * Pages of public searches are cached (search-state.ts) under the catalog version: every agent write
 * moves the version (triggers in migration 0008), so a cached page is exactly what the query would
 * return now. Only the public filter is cached, since its answer does not depend on who asks; a page
 * is kept only when its query comes a second time.
 */
function cacheKey(s: CatalogSearch, terms: string[], semantic: Semantic | null): string | null {
  if (s.filter !== 'public' || !s.catalogVersion) return null
  // A hybrid page also depends on the vectors (their sequence) and the whole query text (its vector).
  if (semantic && semantic.version === null) return null
  const vectors = semantic ? `|${semantic.version}|${s.query.trim()}` : ''
  return `${s.limit}|${s.page}|${terms.join(' ')}${vectors}`
}

/**
 * Ranked catalog search, served from the page cache when the catalog has not changed. `read` runs
 * each round trip (an action passes `ctx.read`).
 */
export async function searchCatalog(db: D1Database, s: CatalogSearch, read: Read = (statements) => db.batch(statements)): Promise<ScoredAgent[]> {
  const terms = queryTerms(s.query)
  if (s.catalogVersion) sawCatalog(s.catalogVersion)
  if (s.vocabularyPoint) sawVocabulary(s.vocabularyPoint)
  const semantic = s.embedder && terms.length > 0 ? await semanticPart(db, s.embedder, s.query, s.onEmbedError ?? (() => {}), s.vectorize) : null
  const key = cacheKey(s, terms, semantic)
  const hit = key ? cached.page(s.catalogVersion!, key) : undefined
  const rows = hit ?? (await rankCatalog(db, read, s, terms, semantic))
  // A page made while the embedder failed is lexical: it is not kept under the hybrid key.
  if (key && !hit && (!semantic || (await semantic.vector())) && askedBefore(`${s.catalogVersion}|${key}`)) cached.setPage(s.catalogVersion!, key, rows)
  const min = s.minScore
  return min === undefined ? rows : rows.filter((r) => r.score >= min)
}

/**
 * The semantic part of a search: from Vectorize when bound, else from this isolate's index, or null
 * while that index has no vector from this embedder (the search is then exactly the lexical one,
 * and no query is embedded).
 */
async function semanticPart(db: D1Database, embedder: Embedder, query: string, onError: (err: unknown) => void, vectorize?: Vectorize): Promise<Semantic | null> {
  let vector: Promise<Float32Array | null> | null = null
  const queryVec = () => (vector ??= queryVector(embedder, query, onError))
  if (vectorize) {
    return { version: null, vector: queryVec, source: (lexical, q) => remoteVectors(vectorize, db, embedder.id, q, lexical, SEMANTIC_CANDIDATES) }
  }
  const index = await vectorIndex(db, embedder.id, VECTOR_REFRESH_MS)
  if (index.count === 0) return null
  return { version: `${index.embedder}@${index.seq}`, vector: queryVec, source: async () => index }
}

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
    const part = m.scale === 'part' ? (rel: number) => rel : relevancePart
    const floor = m.scale === 'part' ? partFloor : relevanceFloor
    const kth = part(kthLargest(m.rels, k))
    return {
      query: rankCandidatesQuery(db, { ...base, candidates: candidatesOf(m, floor(kth)), limit, offset }),
      stands: (page: RankedPage) => {
        const last = page.rows[page.rows.length - 1]
        return page.ranked >= k && last !== undefined && last.raw >= kth
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
 * rows. Rows already read (`rows`, which pagers of one search share) are reused when the ranking
 * moves (the state caught up with changes, or a phrase turned out to match), and a row that is gone
 * or no longer public hands the page to D1.
 */
function workerPager(db: D1Database, ranker: PublicRanker, fallback: Pager, limit: number, offset: number, rows = new Map<number, AgentRow>()): Pager {
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

/** The list with every relevance scaled by `by`. */
const scaled = (l: PhraseList, by: number): PhraseList => ({ rowids: l.rowids, values: l.values.map((v) => v * by), at: l.at })

/** A query's typo corrections (`fixes`) as lists at TYPO_WEIGHT, in correction order, a wide one with its list in `partial` if given. */
function typoListsOf(fixes: QueryPhrases, partial?: Map<string, PhraseList>): { expr: string; list: PhraseList }[] {
  return knownLists(fixes, partial).map((p) => ({ expr: p.expr, list: scaled(p.list, TYPO_WEIGHT) }))
}

/**
 * The first spelling of each stem among `words`, in order: spellings of one stem ("invoice",
 * "invoices") are one phrase to agents_fts, with one relevance list, which counts once.
 */
function oneSpellingPerStem(words: string[]): string[] {
  const stems = new Set<string>()
  return words.filter((w) => {
    const stem = porterStem(w)
    if (stems.has(stem)) return false
    stems.add(stem)
    return true
  })
}

/**
 * Reads the relevance lists of `phrases` (no prefix) into `q`, what the cache lacks in one round
 * trip; with `wideMin`, a phrase that turns out wide (wideLists) is marked so in `q` instead.
 */
async function readLists(db: D1Database, read: Read, q: QueryPhrases, wideMin: number | null = null): Promise<void> {
  const missing = missingLists(db, q, undefined, wideMin)
  if (!missing) return
  const fetched = await runQuery(read, missing.query)
  absorb(q, missing, await completeLists(db, read, missing, fetched))
}

/**
 * Ranked catalog search: bm25 over every query term (the last also as a prefix), each term the index
 * does not know replaced by its near spellings at TYPO_WEIGHT, fused with semantic similarity when
 * the query has a vector (see hybrid.ts). Every step depends only on the query and the catalog, never
 * on the page, so every page is a slice of the same ordering.
 */
async function rankCatalog(db: D1Database, read: Read, s: CatalogSearch, terms: string[], semantic: Semantic | null): Promise<ScoredAgent[]> {
  const offset = s.page * s.limit
  // Past any real catalog size; also keeps the OFFSET an exact integer for SQLite.
  if (offset > 1e9) return []
  const base = { viewer: s.viewer, filter: s.filter }
  if (terms.length === 0) return runQuery(read, listByPopularityQuery(db, { ...base, limit: s.limit, offset }))
  const queryVector = semantic ? semantic.vector() : null
  // `<epoch>:<version>:<index version>` -> `<epoch>:<index version>`: lists outlive popularity changes.
  const indexVersion = s.catalogVersion ? s.catalogVersion.replace(/:[^:]*:/, ':') : null
  const seen = s.filter === 'public' && s.catalogVersion ? catalogPoint(s.catalogVersion) : null
  const ranker = seen ? await publicRanker(db, read, seen) : null
  if (ranker) read = ranker.read
  const rowsRead = new Map<number, AgentRow>()
  const pagerOf = (limit: number, offset: number) => {
    const inD1 = d1Pager(db, read, base, limit, offset)
    return ranker ? workerPager(db, ranker, inD1, limit, offset, rowsRead) : inD1
  }
  const pager = pagerOf(s.limit, offset)
  // Lexical search keeps using lists read before the last text changes (stale-lists.ts).
  const phrases = lookupPhrases(indexVersion, terms, !semantic)
  // With Vectorize the semantic candidates depend on the lexical matches: wide lists are read whole.
  const wideRead = !semantic || semantic.version !== null
  if (!wideRead) phrases.wide.clear()
  let fixes: QueryPhrases | null = null
  const lexical = (partial?: Map<string, PhraseList>): Matches => {
    const known = knownLists(phrases, partial)
    const typo = fixes ? typoListsOf(fixes, partial) : []
    return typo.length > 0 ? { ...sumLists([...known, ...typo]), match: '' } : sumLists(known)
  }
  // Summed when first needed: a search whose page widePage makes sums its lists there.
  let summed: Matches | null = null
  const matches = () => (summed ??= lexical())
  // A word read for the first time also brings its near spellings, in case it matches nothing.
  const termOf = new Map(terms.map((t) => [phrase(t), t]))
  const missing = missingLists(db, phrases, (expr) => typoProbe(indexVersion, termOf.get(expr)!), wideRead ? wideLists.min : null)
  const nearFetched = new Map<string, VocabularyWord[]>()
  let vocabulary: string | null = null
  // Stale lists are checked in the same round trip: the index now, the agents changed since, each phrase's matches now.
  const check = phrases.stale.size > 0 ? indexCheckQuery(db, oldestIndex(phrases.stale), [...phrases.stale.keys()]) : null
  let checked: IndexCheck | null = null
  if (missing || check) {
    // When the phrases the cache lacks probably match nothing (unknown words, numbers, typos), guess
    // the page in the same round trip as reading them; when one does match, the page is made again.
    const guess = missing && !semantic && !check && matches().rowids.length >= 5 && likelyEmpty(missing) ? pager.guess(matches()) : null
    const results = await read([missing?.query.statement, guess?.statement, check?.statement].filter((st) => st !== undefined))
    const fetched = missing ? missing.query.read(results[0]) : null
    if (guess) guess.read(results[1])
    if (check) checked = check.read(results[results.length - 1])
    if (missing && fetched) {
      fetched.near.forEach((words, i) => words && nearFetched.set(termOf.get(missing.phrases[i])!, words))
      vocabulary = fetched.vocabulary ?? null
      sawVocabulary(vocabulary)
      if (absorb(phrases, missing, await completeLists(db, read, missing, fetched))) summed = null
    }
  }
  let stale = checked ? staleBounds(phrases, checked) : null
  if (await readUnbounded(db, read, phrases, stale, wideLists.min)) summed = null
  // Every word the index does not know (the last one not even as a prefix) is matched by its near spellings.
  const last = terms[terms.length - 1]
  const unknown = terms.filter(
    (t) => correctable(t) && !phrases.lists.get(phrase(t))?.rowids.length && !phrases.wide.has(phrase(t)) && !phrases.stale.has(phrase(t)) && !(t === last && phrases.prefixList?.rowids.length),
  )
  if (unknown.length > 0) {
    const near = (await correctionsOf(db, read, indexVersion, unknown, nearFetched, vocabulary)).flat().filter((w) => !terms.includes(w))
    if (near.length > 0) {
      // Corrections, like the query's words, keep lists read before the last text changes.
      const corrections: QueryPhrases = { ...lookupPhrases(indexVersion, oneSpellingPerStem(near), !semantic), prefix: null, prefixList: undefined }
      if (!wideRead) corrections.wide.clear()
      // A correction in most agents ("word" -> "work") is wide like a query word: read only where it can matter.
      stale = await readCorrections(db, read, corrections, stale, wideRead ? wideLists.min : null)
      fixes = corrections
      if (typoListsOf(corrections).length > 0 || corrections.stale.size > 0) summed = null
    }
  }
  const vector = queryVector ? await queryVector : null
  // Vectorize unreachable: the search answers lexically, reported like an embedder failure.
  const source = semantic && vector ? await semantic.source(matches(), vector).catch((err: unknown) => (s.onEmbedError?.(err), null)) : null
  const near = source && vector ? source.nearest(vector, SEMANTIC_CANDIDATES) : []
  const hybrid = source && vector ? { q: vector, source, near, first: () => pagerOf(FEEDBACK_AGENTS, 0) } : null
  const sets = fixes ? [phrases, fixes] : [phrases]
  const wide = sets.flatMap((q) => [...q.wide])
  const anyStale = sets.some((q) => q.stale.size > 0)
  if (wide.length > 0 || anyStale) {
    // A wide correction adds TYPO_WEIGHT of a wide word's relevance: counting it as a whole one is safe.
    const bound = WIDE_BOUND * wide.length + WIDE_SLACK
    if (hybrid)
      return widePage(
        db,
        read,
        sets,
        lexical,
        pager,
        s.limit,
        offset,
        (m) => semanticMatches(m, near, bound),
        (m, above) => refined(m, hybrid, above === null ? null : { above, bound }),
      )
    const k = offset + s.limit
    const choose = (m: Matches) => {
      const executions = ranker?.executions() ?? null
      const own = executions ? ownPopularityMatches(m, executions, k, bound, wide.length > 0) : null
      return own ?? nearMatches(m, k, bound) ?? (wide.length > 0 ? popularMatches(m, executions, k, bound) : everyMatch(m))
    }
    // Public pages are ranked in the Worker, which keeps the rows it read: the page the lists as read
    // give is almost always the page, so its rows come with the reads that make it exact.
    const guess = ranker ? (m: Matches) => pager.guess(m) : null
    return widePage(db, read, sets, lexical, pager, s.limit, offset, choose, undefined, anyStale ? stale : null, guess)
  }
  const ranked = hybrid ? (await refined(matches(), hybrid, null))!.matches : matches()
  return ranked.rowids.length > 0 ? pager.page(ranked) : []
}

/**
 * Reads what the cache lacks of the corrections' lists (`q`) and checks their stale lists in the same
 * round trip. Their bounds join the query's (`stale`) when taken at the same index; a stale list
 * they cannot bound is read again, like all of them when the index moved between the two checks.
 */
async function readCorrections(db: D1Database, read: Read, q: QueryPhrases, stale: StaleBounds | null, wideMin: number | null): Promise<StaleBounds | null> {
  const missing = missingLists(db, q, undefined, wideMin)
  const check = q.stale.size > 0 ? indexCheckQuery(db, oldestIndex(q.stale), [...q.stale.keys()]) : null
  if (!missing && !check) return stale
  const results = await read([missing?.query.statement, check?.statement].filter((st) => st !== undefined))
  if (missing) absorb(q, missing, await completeLists(db, read, missing, missing.query.read(results[0])))
  const found = check ? staleBounds(q, check.read(results[results.length - 1])) : null
  const bounds = found && (!stale || found.index === stale.index) ? found : null
  await readUnbounded(db, read, q, bounds, wideMin)
  if (!bounds || q.stale.size === 0) return stale
  if (!stale) return bounds
  return { index: stale.index, changed: [...new Set([...stale.changed, ...bounds.changed])], growth: new Map([...stale.growth, ...bounds.growth]) }
}

/**
 * Reads again, as any list is read, the stale lists of `q` that `bounds` does not bound (or whose
 * word matches nothing now, so the last word's prefix may count); true when there were any.
 */
async function readUnbounded(db: D1Database, read: Read, q: QueryPhrases, bounds: StaleBounds | null, wideMin: number | null): Promise<boolean> {
  const unbounded = [...q.stale.keys()].filter((expr) => !bounds?.growth.has(expr))
  if (unbounded.length === 0) return false
  for (const expr of unbounded) q.stale.delete(expr)
  await readLists(db, read, q, wideMin)
  return true
}

/** What search needs to use stale lists (stale-lists.ts), from the index as it is now. */
interface StaleBounds {
  /** `<epoch>:<index version>` the bounds hold at. */
  index: string
  /** Agents whose text changed since the oldest stale list was read. */
  changed: number[]
  /** Per stale phrase, the factor bounding how far any other agent's value grew. */
  growth: Map<string, number>
}

/** The oldest index version (its number) any of the stale lists was read at. */
const oldestIndex = (stale: Map<string, CachedList>) => Math.min(...[...stale.values()].map((held) => indexParts(held.index).n))

/**
 * Bounds for the query's stale lists from the check read with them (`c`, whose counts follow the
 * stale phrases in order): null when the change log does not reach back or too many agents changed.
 */
function staleBounds(q: QueryPhrases, c: IndexCheck): StaleBounds | null {
  if (!c.totals || !c.changed || c.changed.length > MAX_STALE_CHANGES) return null
  const growth = new Map<string, number>()
  const epoch = indexParts(c.index).epoch
  ;[...q.stale].forEach(([expr, held], i) => {
    if (!held.totals || indexParts(held.index).epoch !== epoch || !(c.counts[i] > 0)) return
    const bound = growthBound({ ...held.totals, hits: held.list.rowids.length }, { ...c.totals!, hits: c.counts[i] })
    if (bound === null) return
    growth.set(expr, bound)
  })
  return { index: c.index, changed: c.changed, growth }
}

/** Every match, when there are few enough to read phrases for: no agent left out matches anything. */
function everyMatch(m: Matches): Partial | null {
  return m.rowids.length <= MAX_PARTIAL ? { rowids: [...m.rowids], above: -Infinity } : null
}

/** What a hybrid search ranks with: the query's vector, the agents' vectors, the query's nearest agents. */
interface Hybrid {
  q: Float32Array
  source: VectorSource
  near: { rowid: number; cos: number }[]
  /** A pager of the caller's FEEDBACK_AGENTS best candidates. */
  first: () => Pager
}

/**
 * The hybrid candidates of `m` (fuse), scored with the query's vector moved toward the caller's
 * FEEDBACK_AGENTS best of them whose part clears feedbackLeast (hybrid.ts). The first ranking is
 * paged like any other, under the caller's visibility filter, so only agents the caller may see
 * move the query; the candidates stay those of the query's own vector.
 * With `partial` (`m` lacks the wide phrases for agents whose first score is at most `above`): null
 * when that first ranking might differ with the whole lists, else the matches with the best score an
 * agent left out can have under the moved vector (its wide phrases add less than `bound`, and it is
 * no nearer the moved vector than the nearest agent outside the candidates).
 */
async function refined(m: Matches, h: Hybrid, partial: { above: number; bound: number } | null): Promise<{ matches: Matches; above: number } | null> {
  const fused = fuse(m, h.q, h.source, h.near)
  if (fused.rowids.length === 0) return { matches: fused, above: partial?.above ?? -Infinity }
  const top = await h.first().page(fused)
  const last = top[top.length - 1]
  // Scores are rounded to 1e-6: the last one's raw score is above its score less that.
  if (partial && !(top.length === FEEDBACK_AGENTS && last.score - 1e-6 > partial.above)) return null
  const partOf = new Map(top.map((hit) => [hit.rowid, 0]))
  for (let i = 0; i < fused.rowids.length; i++) if (partOf.has(fused.rowids[i])) partOf.set(fused.rowids[i], fused.rels[i])
  const least = feedbackLeast([...partOf.values()])
  const vectors: Float32Array[] = []
  for (const hit of top) {
    const v = partOf.get(hit.rowid)! >= least ? h.source.vectorOf(hit.rowid) : null
    if (v) vectors.push(v)
  }
  const moved = feedbackQuery(h.q, vectors)
  const matches = moved === h.q ? fused : fuse(m, moved, h.source, h.near)
  if (!partial) return { matches, above: -Infinity }
  const outside = h.source.bestOutside(moved, new Set(matches.rowids))
  return { matches, above: calibratedPart(partial.bound, outside) + POPULARITY_WEIGHT }
}

/** Most agents a wide phrase is read for before its whole list is read instead. */
const MAX_PARTIAL = 20_000

/** Lifted by far more than rounding in the sums can move a relevance, so no ceiling falls below a score. */
const WIDE_SLACK = 1e-9

/** Agents to read wide phrases for, and the best score any agent left out can have. */
interface Partial {
  rowids: number[]
  above: number
}

/**
 * The agents whose relevance without the wide phrases (`m`) is within `bound` of what the best
 * `2k + 20` need to reach the page: any other stays below them with the wide phrases. Going past the
 * k-th best leaves room for popularity, so the page's last score usually clears the ceiling.
 */
function nearMatches(m: Matches, k: number, bound: number): Partial | null {
  if (m.rowids.length < k) return null
  const floor = relevanceFloor(relevancePart(kthLargest(m.rels, Math.min(m.rowids.length, 2 * k + 20)))) - bound
  if (!(floor > 0)) return null
  const rowids: number[] = []
  for (let i = 0; i < m.rowids.length && rowids.length <= MAX_PARTIAL; i++) if (m.rels[i] >= floor) rowids.push(m.rowids[i])
  return rowids.length <= MAX_PARTIAL ? { rowids, above: relevancePart(floor + bound) + POPULARITY_WEIGHT } : null
}

/**
 * For public searches: the matches whose score can be highest, each at most its score with `bound`
 * more relevance and its own executions (where nearMatches must allow any agent the most popularity
 * adds, so it reads every match within POPULARITY_WEIGHT of the best), the best `2k + 20` of them
 * (and any tied with the last). With `wide` phrases an agent matching nothing else has relevance
 * below `bound`: null when that could reach the chosen.
 */
export function ownPopularityMatches(m: Matches, executions: Float64Array, k: number, bound: number, wide: boolean): Partial | null {
  const want = 2 * k + 20
  if (m.rowids.length <= want) return null
  // Only agents that the most popularity adds could lift to the want-th best relevance are looked up.
  const floor = relevanceFloor(relevancePart(kthLargest(m.rels, want) + bound)) - bound
  const at: number[] = []
  let rest = -Infinity
  for (let i = 0; i < m.rels.length; i++) {
    if (m.rels[i] >= floor) at.push(i)
    else if (m.rels[i] > rest) rest = m.rels[i]
  }
  const upper = new Float64Array(at.length)
  for (let j = 0; j < at.length; j++) {
    const r = m.rowids[at[j]]
    const e = r < executions.length ? executions[r] : -1
    upper[j] = e < 0 ? -Infinity : blendedScore(m.rels[at[j]] + bound, e)
  }
  const least = kthLargest(upper, want)
  let above = Math.max(wide ? relevancePart(bound) + POPULARITY_WEIGHT : -Infinity, rest === -Infinity ? -Infinity : relevancePart(rest + bound) + POPULARITY_WEIGHT)
  if (!(least > above)) return null
  const rowids: number[] = []
  for (let j = 0; j < at.length; j++) {
    if (upper[j] >= least) rowids.push(m.rowids[at[j]])
    else if (upper[j] > above) above = upper[j]
  }
  return rowids.length <= MAX_PARTIAL ? { rowids, above } : null
}

/**
 * For public searches where few agents match anything but the wide phrases (which most agents
 * match, and which add almost nothing, so popularity orders the page): the public agents whose score
 * can be highest, each at most its score with `bound` more relevance, the best `2k + 20` of them (and
 * any tied with the last), from every public agent's executions.
 */
function popularMatches(m: Matches, executions: Float64Array | null, k: number, bound: number): Partial | null {
  const want = 2 * k + 20
  if (!executions || want > 1000 || m.rowids.length > MAX_PARTIAL) return null
  const upper = new Float64Array(executions.length).fill(-Infinity)
  let visible = 0
  for (let r = 0; r < executions.length; r++) {
    if (executions[r] < 0) continue
    upper[r] = blendedScore(bound, executions[r])
    visible++
  }
  for (let i = 0; i < m.rowids.length; i++) {
    const r = m.rowids[i]
    if (executions[r] >= 0) upper[r] = blendedScore(m.rels[i] + bound, executions[r])
  }
  if (visible <= want) return null
  const least = kthLargest(upper, want)
  const rowids: number[] = []
  let above = -Infinity
  for (let r = 0; r < upper.length; r++) {
    if (upper[r] >= least) rowids.push(r)
    else if (upper[r] > above) above = upper[r]
  }
  return rowids.length <= MAX_PARTIAL ? { rowids, above } : null
}

/**
 * For hybrid searches: every agent matching anything but the wide phrases, and the semantic
 * candidates `near` (the SEMANTIC_CANDIDATES nearest, nearest first). Any other agent matches only
 * wide phrases (relevance below `bound`) and is no nearer than the last of `near` (or has no vector
 * here, cosine 0), so its fused part is at most the part of that relevance and cosine.
 */
function semanticMatches(m: Matches, near: { rowid: number; cos: number }[], bound: number): Partial | null {
  const rowids = new Set<number>()
  for (let i = 0; i < m.rowids.length && rowids.size <= MAX_PARTIAL; i++) rowids.add(m.rowids[i])
  for (const n of near) rowids.add(n.rowid)
  if (rowids.size > MAX_PARTIAL) return null
  const farthest = near.length === SEMANTIC_CANDIDATES ? near[near.length - 1].cos : 0
  return { rowids: [...rowids], above: calibratedPart(bound, farthest) + POPULARITY_WEIGHT }
}

/**
 * The page of a query with wide phrases (relevance.ts's wideLists, in the query's words or their
 * typo corrections: `sets`), exact without their whole
 * lists when it can be. Each adds less than WIDE_BOUND to any agent's relevance, so every agent's
 * score has a known ceiling before they are read: they are read for the agents whose ceiling is
 * highest (`choose`: nearMatches, else popularMatches; semanticMatches for a hybrid search, whose
 * page `rank` fuses), the page ranked from that, and it stands when it is
 * full and its last score is above every ceiling left out (every hit then has its exact relevance,
 * summed in phrase order as FTS5 sums it). Else the wide lists are read whole, as any list is.
 */
async function widePage(
  db: D1Database,
  read: Read,
  sets: QueryPhrases[],
  lexical: (partial?: Map<string, PhraseList>) => Matches,
  pager: Pager,
  limit: number,
  offset: number,
  choose: (m: Matches) => Partial | null,
  rank: (m: Matches, above: number | null) => Promise<{ matches: Matches; above: number } | null> = async (matches, above) => ({ matches, above: above ?? -Infinity }),
  stale: StaleBounds | null = null,
  guess: ((m: Matches) => Query<unknown>) | null = null,
): Promise<ScoredAgent[]> {
  // Agents are chosen by their ceiling: a stale list's values raised by its growth bound.
  const staleLists = new Map(sets.flatMap((q) => [...q.stale].map(([expr, held]) => [expr, held.list] as const)))
  const raised = stale ? new Map([...stale.growth].map(([expr, growth]) => [expr, scaled(staleLists.get(expr)!, growth)])) : undefined
  const ceilings = lexical(raised)
  const chosen = choose(ceilings)
  // Agents whose text changed since a stale list was read are scored again whatever their old value.
  const partial = chosen && stale ? { rowids: [...new Set([...chosen.rowids, ...stale.changed])], above: chosen.above } : chosen
  if (partial && partial.rowids.length <= MAX_PARTIAL + MAX_STALE_CHANGES) {
    const exprs = [...sets.flatMap((q) => [...q.wide]), ...(stale?.growth.keys() ?? [])]
    const queries = exprs.map((expr) => restrictedListQuery(db, expr, partial.rowids))
    // The bounds hold for the index they were taken at: read at another, the page is made from whole lists.
    const point = stale ? indexPointQuery(db) : null
    // A guess only reads rows ahead: the ceilings (stale values raised by a hair) rank them as well.
    const guessed = guess?.(ceilings)
    const results = await read([...queries.map((q) => q.statement), ...(guessed ? [guessed.statement] : []), ...(point ? [point.statement] : [])])
    if (guessed) guessed.read(results[queries.length])
    const ranked = point && point.read(results[results.length - 1]) !== stale!.index ? null : await rank(lexical(new Map(exprs.map((expr, i) => [expr, queries[i].read(results[i])]))), partial.above)
    if (ranked) {
      const rows = await pager.page(ranked.matches)
      const last = rows[rows.length - 1]
      // Every agent that can match read (above -Infinity), or the page full and above every ceiling
      // left out (scores are rounded to 1e-6: the last one's raw score is above its score less that).
      if (ranked.above === -Infinity || (rows.length === limit && last && last.score - 1e-6 > ranked.above)) return rows
    }
  }
  for (const q of sets) if (q.wide.size > 0 || q.stale.size > 0) await readLists(db, read, { ...q, wide: new Set<string>(), stale: new Map() })
  const all = (await rank(lexical(), null))!.matches
  return all.rowids.length > 0 ? pager.page(all) : []
}
