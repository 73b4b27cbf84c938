/**
 * Relevance of the agents a word query matches, from per-phrase lists that FTS5 scores once and the
 * Worker keeps until agent text changes.
 */
import { joinLists, LIST_CHUNK, listChunkQuery, phraseListsQuery, type Candidates, type FetchedLists, type PhraseList, type Query, type Read } from '../db/agents'
import type { GramProbe } from '../db/search-words'
import { phrase } from './query'
import { cached, indexParts, phraseStats, scratch, vocabularyKey, vocabularyKeyOf, type CachedList } from './search-state'

/**
 * Relevance lists are cached per phrase under the index version (see search-state.ts): a list
 * depends on agent text alone, so executions and reviews leave it valid. A list pushed out has to be
 * scored again by FTS5, which costs far more than reading a new one.
 * A word (or prefix) that matched nothing still matches nothing at a later index version as long as
 * no word has entered the index since: whether it matches depends only on which tokens the index
 * holds, and the vocabulary version moves whenever any word enters or leaves it (migrations 0016 and
 * 0018, words of every length). So its empty list is used while the vocabulary key it was read with
 * is the one the search read with its token (search.ts). Only for phrases of one ASCII token: a
 * phrase of several tokens (which the tokenizer may make of other characters) matches by position,
 * which text changes move without moving the vocabulary.
 */
function cachedList(indexVersion: string | null, expr: string): PhraseList | undefined {
  if (!indexVersion) return undefined
  const hit = cached.list(indexVersion, expr)
  if (hit) return hit
  const held = cached.latestList(expr)
  const stillEmpty = held !== undefined && held.list.rowids.length === 0 && held.vocabulary !== null && held.vocabulary === vocabularyKey(indexVersion)
  return stillEmpty && ONE_TOKEN.test(expr) ? held.list : undefined
}

/** A quoted word (query.ts's phrase), or a prefix of one, of ASCII letters and digits only: one token. */
const ONE_TOKEN = /^"[A-Za-z0-9]+"\*?$/

/** Keeps a list under the index version it was read at (the search's, when the read did not say). */
function rememberList(indexVersion: string | null, expr: string, list: PhraseList, fetched: FetchedLists): void {
  const at = fetched.read?.index ?? indexVersion
  if (at) cached.setList(at, expr, list, fetched.read?.totals ?? null, vocabularyKeyOf(fetched.vocabulary))
}

/**
 * The phrases of a word query and what the cache knows of them: every term, and the last term as a
 * prefix when the index does not know it as a word (so "transcri" finds "transcript" while the caller
 * is still typing; a known word is not also matched as a prefix, which bm25 would count twice).
 */
export interface QueryPhrases {
  exprs: string[]
  prefix: string | null
  lists: Map<string, PhraseList>
  /** Set only once the last term is known to match nothing as a word. */
  prefixList: PhraseList | undefined
  /** Phrases known to be wide (in half the agents or more, see wideLists) whose full list is not read. */
  wide: Set<string>
  /**
   * Phrases whose list this isolate read at an older index version (stale-lists.ts), not read
   * again: search bounds how far their values moved and scores the agents that can matter again.
   */
  stale: Map<string, CachedList>
  indexVersion: string | null
}

/**
 * Phrases in at least `min` agents and in half of them or more are wide: FTS5 gives them next to no
 * relevance (db/agents.ts's WIDE_BOUND) yet scoring their lists costs the most. Lexical search reads
 * them only for the agents that can reach the page (search.ts), their full list only when it has to.
 */
export const wideLists = { min: 20_000 }

/**
 * With `useStale`, a phrase with no list at `indexVersion` but a non-empty one of an older index
 * version of the same epoch (with FTS5's totals then) is taken as stale rather than read again.
 */
export function lookupPhrases(indexVersion: string | null, terms: string[], useStale = false): QueryPhrases {
  const exprs = terms.map((t) => phrase(t))
  const last = terms[terms.length - 1]
  const lists = new Map<string, PhraseList>()
  const wide = new Set<string>()
  const stale = new Map<string, CachedList>()
  for (const expr of exprs) {
    const hit = cachedList(indexVersion, expr)
    if (hit) lists.set(expr, hit)
    else if (indexVersion && cached.wide(indexVersion, expr)) wide.add(expr)
    else if (indexVersion && useStale) {
      const held = cached.latestList(expr)
      const n = held?.list.rowids.length ?? 0
      // A list as wide as wideLists' is left to them: read only for the agents that can reach the page.
      const wideThen = held?.totals ? n >= wideLists.min && 2 * n >= held.totals.rows : true
      if (held && !wideThen && n > 0 && indexParts(held.index).epoch === indexParts(indexVersion).epoch) stale.set(expr, held)
    }
  }
  const prefix = last.length >= 2 ? phrase(last, true) : null
  const prefixList = prefix && lists.get(exprs[exprs.length - 1])?.rowids.length === 0 ? cachedList(indexVersion, prefix) : undefined
  return { exprs, prefix, lists, prefixList, wide, stale, indexVersion }
}

/** What the cache lacks: the phrases to read and the query reading them, or null when it has everything. */
export interface MissingLists {
  phrases: string[]
  /** The prefix phrase read in case the last word matches nothing, or null. */
  fallback: string | null
  query: Query<FetchedLists>
}

/**
 * `probeOf` gives the typo probe to send with a phrase's list read, if any (see phraseListsQuery);
 * with `wideMin`, a phrase that turns out wide (wideLists) comes back as such instead of its list.
 */
export function missingLists(db: D1Database, q: QueryPhrases, probeOf: (expr: string) => GramProbe | null = () => null, wideMin: number | null = null): MissingLists | null {
  const phrases = q.exprs.filter((e) => !q.lists.has(e) && !q.wide.has(e) && !q.stale.has(e))
  const lastExpr = q.exprs[q.exprs.length - 1]
  // The prefix is needed unless the last term is known to match as a word (a stale one is checked before use).
  const wantPrefix = q.prefix !== null && q.prefixList === undefined && !q.lists.get(lastExpr)?.rowids.length && !q.wide.has(lastExpr) && !q.stale.has(lastExpr)
  if (phrases.length === 0 && !wantPrefix) return null
  const fallback = wantPrefix ? q.prefix! : null
  return { phrases, fallback, query: phraseListsQuery(db, phrases, fallback ? { phrase: fallback, unless: lastExpr } : null, LIST_CHUNK, phrases.map(probeOf), wideMin) }
}

/**
 * The fetched lists made whole: a list that filled its first chunk (a word in more agents than a
 * chunk holds) is read on, the next chunk of every such list in one round trip, until each ends.
 */
export async function completeLists(db: D1Database, read: Read, missing: MissingLists, fetched: FetchedLists, chunk = LIST_CHUNK): Promise<FetchedLists> {
  const entries = missing.phrases.map((phrase, i) => ({ phrase, parts: [fetched.lists[i]] }))
  if (missing.fallback && fetched.fallback) entries.push({ phrase: missing.fallback, parts: [fetched.fallback] })
  const full = (parts: PhraseList[]) => parts[parts.length - 1].rowids.length === chunk
  let open = entries.filter((e) => full(e.parts))
  if (open.length === 0) return fetched
  while (open.length > 0) {
    const queries = open.map((e) => {
      const last = e.parts[e.parts.length - 1]
      return listChunkQuery(db, e.phrase, last.rowids[last.rowids.length - 1], chunk)
    })
    const results = await read(queries.map((q) => q.statement))
    open.forEach((e, i) => e.parts.push(queries[i].read(results[i])))
    open = open.filter((e) => full(e.parts))
  }
  const lists = entries.map((e) => joinLists(e.parts))
  return {
    lists: lists.slice(0, missing.phrases.length),
    fallback: missing.fallback && fetched.fallback ? lists[missing.phrases.length] : fetched.fallback,
    wide: fetched.wide,
    near: fetched.near,
    vocabulary: fetched.vocabulary,
  }
}

/**
 * How often a phrase the cache lacked turned out to match nothing (search-state.ts's phraseStats).
 * Guessing that all missing phrases match nothing lets search rank in the same round trip
 * as it reads them; a right guess saves a round trip, a wrong one wastes a ranking, so search
 * guesses when the guess is more likely right than wrong.
 */
export function likelyEmpty(missing: MissingLists): boolean {
  return phraseStats.emptyRate ** Math.max(1, missing.phrases.length) >= 0.5
}

/** Stores fetched lists in the query and the cache; true when any of them matches something. */
export function absorb(q: QueryPhrases, missing: MissingLists, fetched: FetchedLists): boolean {
  const lastExpr = q.exprs[q.exprs.length - 1]
  missing.phrases.forEach((expr, i) => {
    if (fetched.wide?.[i]) {
      q.wide.add(expr)
      if (q.indexVersion) cached.setWide(q.indexVersion, expr)
      return
    }
    q.lists.set(expr, fetched.lists[i])
    rememberList(q.indexVersion, expr, fetched.lists[i], fetched)
    const empty = fetched.lists[i].rowids.length === 0 && (expr !== lastExpr || !fetched.fallback?.rowids.length)
    phraseStats.emptyRate += 0.05 * (Number(empty) - phraseStats.emptyRate)
  })
  if (fetched.fallback) {
    q.prefixList = fetched.fallback
    rememberList(q.indexVersion, q.prefix!, fetched.fallback, fetched)
  }
  return fetched.lists.some((l) => l.rowids.length > 0) || (fetched.fallback?.rowids.length ?? 0) > 0 || (fetched.wide?.some(Boolean) ?? false)
}

/**
 * The query's phrases in order with their relevance lists, phrases not known (yet) or matching
 * nothing left out; a wide phrase counts with its list in `partial` (some of its agents) if given.
 */
export function knownLists(q: QueryPhrases, partial?: Map<string, PhraseList>): { expr: string; list: PhraseList }[] {
  const ordered = q.exprs.map((expr) => ({ expr, list: q.lists.get(expr) ?? partial?.get(expr) }))
  if (q.prefix && q.prefixList) ordered.push({ expr: q.prefix, list: q.prefixList })
  return ordered.filter((p): p is { expr: string; list: PhraseList } => p.list !== undefined && p.list.rowids.length > 0)
}

/** Every agent the OR query matches, with its bm25 relevance. */
export interface Matches {
  rowids: Uint32Array | Float64Array
  rels: Float64Array
  /** The FTS5 OR expression of the phrases, whose bm25 gives the same relevance ('' when none does). */
  match: string
  /**
   * 'bm25': `rels` are bm25 relevance, scored by relevancePart; 'part': `rels` are already relevance
   * parts in [0, 1 - POPULARITY_WEIGHT] (fused with semantic similarity or typo corrections).
   */
  scale: 'bm25' | 'part'
}

/**
 * Lists are added up in scratch space indexed by rowid (search-state.ts), kept between queries;
 * catalogs whose rowids run past DENSE_ROWIDS are merged by rowid instead (slower, no memory to
 * speak of).
 */
export const DENSE_ROWIDS = 4_000_000

/**
 * bm25 of the OR query for every matching agent: the sum of its phrases' relevance, added in phrase
 * order as FTS5 adds them, so the values are the ones FTS5 itself would give.
 */
export function sumLists(phrases: { expr: string; list: PhraseList }[]): Matches {
  const match = phrases.map((p) => p.expr).join(' OR ')
  const lists = phrases.map((p) => p.list)
  if (lists.length === 1) {
    const { rowids, values, at } = lists[0]
    const rels = new Float64Array(at.length)
    for (let i = 0; i < at.length; i++) rels[i] = values[at[i]]
    return { rowids, rels, match, scale: 'bm25' }
  }
  let max = 0
  let size = 0
  for (const l of lists) {
    size += l.rowids.length
    max = Math.max(max, l.rowids[l.rowids.length - 1] ?? 0)
  }
  if (max >= DENSE_ROWIDS) return { ...mergeLists(lists, size), match, scale: 'bm25' }
  if (scratch.acc.length <= max) {
    scratch.acc = new Float64Array(max + 1)
    scratch.seen = new Uint8Array(max + 1)
  }
  const { acc, seen } = scratch
  const rowids = new Float64Array(size)
  let n = 0
  for (const { rowids: ids, values, at } of lists) {
    for (let i = 0; i < ids.length; i++) {
      const r = ids[i]
      if (seen[r] === 0) {
        seen[r] = 1
        rowids[n++] = r
        acc[r] = values[at[i]]
      } else acc[r] += values[at[i]]
    }
  }
  const rels = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    rels[i] = acc[rowids[i]]
    seen[rowids[i]] = 0
  }
  return { rowids: rowids.subarray(0, n), rels, match, scale: 'bm25' }
}

/** The same sum by merging the rowid-sorted lists. */
function mergeLists(lists: PhraseList[], size: number): { rowids: Float64Array; rels: Float64Array } {
  const rowids = new Float64Array(size)
  const rels = new Float64Array(size)
  const pos = lists.map(() => 0)
  let n = 0
  for (;;) {
    let next = Infinity
    for (let j = 0; j < lists.length; j++) if (pos[j] < lists[j].rowids.length && lists[j].rowids[pos[j]] < next) next = lists[j].rowids[pos[j]]
    if (next === Infinity) break
    let sum = 0
    for (let j = 0; j < lists.length; j++) {
      if (pos[j] < lists[j].rowids.length && lists[j].rowids[pos[j]] === next) sum += lists[j].values[lists[j].at[pos[j]++]]
    }
    rowids[n] = next
    rels[n++] = sum
  }
  return { rowids: rowids.subarray(0, n), rels: rels.subarray(0, n) }
}

/** The k-th largest value (k >= 1, at most values.length). */
export function kthLargest(values: Float64Array, k: number): number {
  if (k > 64) return Float64Array.from(values).sort()[values.length - k]
  // A small sorted window of the best k beats sorting everything for the usual page sizes.
  const best: number[] = []
  for (let j = 0; j < values.length; j++) {
    const v = values[j]
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

/** Above this many, candidates are ranked from the FTS5 expression rather than sent (D1 caps a bound value at 2 MB). */
const MAX_SENT = 20_000

/** The matches with relevance at least `min`, as pairs when there are few enough to send. */
export function candidatesOf(m: Matches, min = -Infinity): Candidates {
  let count = 0
  for (let i = 0; i < m.rels.length; i++) if (m.rels[i] >= min) count++
  if (count > MAX_SENT && m.scale === 'bm25' && m.match) return { match: m.match, minRel: min === -Infinity ? 0 : min }
  let out: [number, number][] = []
  for (let i = 0; i < m.rowids.length; i++) if (m.rels[i] >= min) out.push([m.rowids[i], m.rels[i]])
  // No expression reproduces fused parts: the best MAX_SENT are sent (popularity cannot lift one
  // further down above them unless more than MAX_SENT agents tie within POPULARITY_WEIGHT).
  if (out.length > MAX_SENT) out = out.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_SENT)
  return { pairs: out, parts: m.scale === 'part' }
}
