/**
 * Search's per-isolate state, all of it, and its one policy.
 *
 * What is held. Everything here is derived from D1 and can be dropped at any time (a search then
 * reads D1 again):
 *   - caches, in ONE least-recently-used store bounded by CACHE_BUDGET bytes together: relevance
 *     lists per phrase (relevance.ts) and which phrases are too wide to read whole, typo
 *     corrections per word, pages of public searches
 *     (search.ts) and query vectors per embedder and text (hybrid.ts);
 *   - the public ranking state: every public agent's executions by rowid (public-rank.ts), 8 bytes
 *     a rowid;
 *   - the vector index of one embedder (vector-index.ts): CODE_BITS bits a dimension, at most
 *     MAX_VECTORS agents (about 14 MB at 100,000 agents of 512 dimensions); past that bound the
 *     agents it cannot hold rank lexically, and Vectorize is the path;
 *   - the scratch arrays relevance.ts adds lists up in, 9 bytes a rowid.
 * At 100,000 agents that is at most about 28 MB (README, "Search memory"), within a Worker
 * isolate's 128 MB.
 *
 * When it is valid. Every entry is keyed by the version of what it was derived from, so a stale one
 * is never served as current: the index version (`<epoch>:<index>`, moved by every change to agent
 * text) for lists and corrections, the vocabulary version (`<epoch>:w<version>`, moved when a word
 * enters or leaves the search vocabulary) for corrections of none or one word, the catalog version
 * (`<epoch>:<version>:<index>`, moved by every agent write) for pages, the embedder for query
 * vectors (a query's vector never changes). A phrase's newest list is kept with the index version
 * and FTS5 totals it was read at across later versions, for lexical search to bound
 * (stale-lists.ts). The public state and the vector index follow their change logs instead (they
 * are too large to rebuild on each write). The one rule that frees memory: when a search sees a
 * newer catalog than the last one this isolate saw, every cached entry derived from an older one
 * (pages of another catalog version, corrections of another index version, lists of another epoch)
 * is dropped at once rather than left to age out; likewise corrections of an older vocabulary
 * version when a search reads a newer one.
 */
import type { PhraseList, ScoredAgent } from '../db/agents'
import type { CatalogPoint } from '../db/public-agents'
import type { FtsTotals } from '../db/index-changes'
import { vectorChanges } from '../db/vectors'
import { ByteLru } from '../lib/lru'
import { CODE_BITS, MAX_VECTORS, VectorIndex } from './vector-index'

/** Bytes all caches share. */
export const CACHE_BUDGET = 12 * 2 ** 20

/**
 * A phrase's relevance list, the index version it was read at and FTS5's totals then, and the
 * vocabulary key (`<epoch>:w<version>`, see sawVocabulary) read with it, when the read said.
 */
export interface CachedList {
  index: string
  totals: FtsTotals | null
  list: PhraseList
  vocabulary: string | null
}

type Entry = { kind: 'list'; value: CachedList } | { kind: 'wide'; value: true } | { kind: 'typo'; value: string[] } | { kind: 'page'; value: ScoredAgent[] } | { kind: 'vector'; value: Float32Array }
type Kind = Entry['kind']

const cache = new ByteLru<Entry>(CACHE_BUDGET)
const byKind: Record<Kind, number> = { list: 0, wide: 0, typo: 0, page: 0, vector: 0 }

/** Keys: `<kind>|<version>|<what>`, the version being what the entry was derived from. */
const keyOf = (kind: Kind, version: string, what: string) => `${kind}|${version}|${what}`

function get<K extends Kind>(kind: K, version: string, what: string): Extract<Entry, { kind: K }>['value'] | undefined {
  const e = cache.get(keyOf(kind, version, what))
  return e?.kind === kind ? (e.value as never) : undefined
}

/**
 * Entries are grouped by what they were derived from, `<kind>|<version>` (lists: `list|<epoch>`), so
 * the invalidation rule below walks only the entries it drops.
 */
function set(entry: Entry, version: string, what: string, bytes: number): void {
  const from = entry.kind === 'list' ? indexParts(entry.value.index).epoch : version
  cache.set(keyOf(entry.kind, version, what), entry, bytes, `${entry.kind}|${from}`)
}

/** A group's kind and the version its entries were derived from. */
function groupParts(group: string): { kind: string; version: string } {
  const bar = group.indexOf('|')
  return { kind: group.slice(0, bar), version: group.slice(bar + 1) }
}

/** An index version (`<epoch>:<n>`) as its parts. */
export function indexParts(index: string): { epoch: string; n: number } {
  const [epoch, n] = index.split(':')
  return { epoch, n: Number(n) }
}

/** Is index version `a` older than `b` of the same epoch. */
const olderIndex = (a: string, b: string) => {
  const [pa, pb] = [indexParts(a), indexParts(b)]
  return pa.epoch === pb.epoch && pa.n < pb.n
}

export const cached = {
  /** The phrase's list as read at index version `index`. */
  list: (index: string, phrase: string) => {
    const e = get('list', '', phrase)
    return e?.index === index ? e.list : undefined
  },
  /** The phrase's newest list this isolate holds, at whatever index version it was read. */
  latestList: (phrase: string) => get('list', '', phrase),
  setList: (index: string, phrase: string, list: PhraseList, totals: FtsTotals | null = null, vocabulary: string | null = null) => {
    const held = get('list', '', phrase)
    if (held && olderIndex(index, held.index)) return
    set({ kind: 'list', value: { index, totals, list, vocabulary } }, '', phrase, list.rowids.byteLength + list.values.byteLength + list.at.byteLength + 2 * phrase.length + 96)
  },
  /** A phrase is wide (relevance.ts's wideLists) at this index version: its list is not read whole. */
  wide: (index: string, phrase: string) => get('wide', index, phrase),
  setWide: (index: string, phrase: string) => set({ kind: 'wide', value: true }, index, phrase, 2 * phrase.length + 64),
  typo: (index: string, word: string) => get('typo', index, word),
  setTypo: (index: string, word: string, near: string[]) => set({ kind: 'typo', value: near }, index, word, 64 + 16 * near.length + 2 * word.length),
  page: (catalog: string, key: string) => get('page', catalog, key),
  setPage: (catalog: string, key: string, rows: ScoredAgent[]) => set({ kind: 'page', value: rows }, catalog, key, pageBytes(rows) + 2 * key.length),
  vector: (embedder: string, text: string) => get('vector', embedder, text),
  setVector: (embedder: string, text: string, v: Float32Array) => set({ kind: 'vector', value: v }, embedder, text, v.byteLength + 2 * text.length + 64),
}

/** Roughly what a page holds in memory: its text (two bytes a character) and a little per row. */
function pageBytes(rows: ScoredAgent[]): number {
  let chars = 0
  for (const r of rows) chars += r.name.length + r.description.length + r.parameters.length + r.workflow.length + r.param_text.length + 200
  return 2 * chars
}

/**
 * Page keys asked once, by hash (a collision only lets a page in early): a page is cached only when
 * its query comes a second time, so the long tail of queries asked once cannot push out the ones
 * callers repeat.
 */
const askedOnce = new Set<number>()
const ASKED_ONCE_LIMIT = 50_000

/** True when the page key was asked before (and should now be cached). */
export function askedBefore(key: string): boolean {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  h >>>= 0
  if (askedOnce.delete(h)) return true
  if (askedOnce.size >= ASKED_ONCE_LIMIT) askedOnce.clear()
  askedOnce.add(h)
  return false
}

/** The newest catalog version (`<epoch>:<version>:<index>`) a search of this isolate saw. */
let newest: { epoch: string; version: number; catalog: string; index: string } | null = null

/**
 * Applies the invalidation rule for a search that saw `catalogVersion`: when it is newer than any
 * seen before, entries derived from older catalogs are dropped.
 */
export function sawCatalog(catalogVersion: string): void {
  const [epoch, v, idx] = catalogVersion.split(':')
  const version = Number(v)
  if (!epoch || !idx || !Number.isFinite(version)) return
  if (newest && newest.epoch === epoch && version <= newest.version) return
  const index = `${epoch}:${idx}`
  const indexMoved = newest?.index !== index
  newest = { epoch, version, catalog: catalogVersion, index }
  cache.deleteGroups((group) => {
    const { kind, version } = groupParts(group)
    if (kind === 'page') return version !== catalogVersion
    // Corrections kept under a vocabulary version outlive index versions (see sawVocabulary).
    if (kind === 'typo' && version.startsWith(`${epoch}:w`)) return false
    // Lists outlive index versions: search uses an older one with bounds (stale-lists.ts).
    if (kind === 'list') return version !== epoch
    return indexMoved && kind !== 'vector' && version !== index
  })
}

/** The newest vocabulary point a search read: its index version (`<epoch>:<index>`) and its key. */
let vocabularyAt: { index: string; key: string; version: number } | null = null

/**
 * Records a vocabulary point (`<epoch>:<index version>:<vocabulary version>`, migrations 0016 and
 * 0018) a search read. Corrections that found no near word, or one, depend only on which words the
 * vocabulary holds, so they are kept under `<epoch>:w<vocabulary version>`; when the vocabulary
 * moves, those of older versions are dropped. (Lists of words that matched nothing are kept by the
 * same key, relevance.ts.)
 */
export function sawVocabulary(point: string | null | undefined): void {
  const seen = vocabularyPoint(point)
  if (!seen) return
  if (vocabularyAt && vocabularyAt.key.startsWith(`${seen.epoch}:w`) && seen.version < vocabularyAt.version) return
  const moved = vocabularyAt !== null && vocabularyAt.key !== seen.key
  vocabularyAt = { index: seen.index, key: seen.key, version: seen.version }
  if (moved)
    cache.deleteGroups((group) => {
      const { kind, version } = groupParts(group)
      return kind === 'typo' && version.includes(':w') && version !== seen.key
    })
}

/** A vocabulary point's parts and key (`<epoch>:w<version>`), or null for anything else. */
function vocabularyPoint(point: string | null | undefined): { epoch: string; index: string; version: number; key: string } | null {
  const [epoch, idx, v] = (point ?? '').split(':')
  const version = Number(v)
  return epoch && idx && v && Number.isSafeInteger(version) ? { epoch, index: `${epoch}:${idx}`, version, key: `${epoch}:w${version}` } : null
}

/** The key (`<epoch>:w<version>`) of a vocabulary point, or null for anything else. */
export const vocabularyKeyOf = (point: string | null | undefined): string | null => vocabularyPoint(point)?.key ?? null

/** The vocabulary key of index version `index` (`<epoch>:<index>`), when a search read it there. */
export const vocabularyKey = (index: string | null): string | null => (index !== null && vocabularyAt?.index === index ? vocabularyAt.key : null)

/** A search's relevance lists are added up here, indexed by rowid, between queries. */
export const scratch = { acc: new Float64Array(0), seen: new Uint8Array(0) }

/**
 * How often a phrase the cache lacked turned out to match nothing, in this isolate (a moving
 * average; relevance.ts guesses from it).
 */
export const phraseStats = { emptyRate: 0.5 }

export interface PublicState extends CatalogPoint {
  /** Executions by rowid; -1 (or past the end) where the agent is not public. */
  executions: Float64Array
}

/** The public ranking state, and when a search started loading it (0: none is). */
export const publicRanking: { state: PublicState | null; loadingSince: number } = { state: null, loadingSince: 0 }

/** Changes read per round trip while the vector index catches up. */
const CHANGE_PAGE = 5000
const vectors: { index: VectorIndex | null; checkedAt: number; refreshing: Promise<VectorIndex> | null } = { index: null, checkedAt: 0, refreshing: null }

/**
 * This isolate's vector index for `embedder`, brought up to date when it was last checked more than
 * `maxAgeMs` ago (one refresh at a time; searches meanwhile wait for it).
 */
export async function vectorIndex(db: D1Database, embedder: string, maxAgeMs: number, now = Date.now()): Promise<VectorIndex> {
  if (vectors.index?.embedder === embedder && now - vectors.checkedAt <= maxAgeMs) return vectors.index
  vectors.refreshing ??= (async () => {
    try {
      const idx = vectors.index?.embedder === embedder ? vectors.index : new VectorIndex(embedder)
      for (;;) {
        const changes = await vectorChanges(db, idx.seq, CHANGE_PAGE)
        idx.apply(changes)
        if (changes.length < CHANGE_PAGE) break
      }
      vectors.index = idx
      vectors.checkedAt = now
      return idx
    } finally {
      vectors.refreshing = null
    }
  })()
  return vectors.refreshing
}

/** Drops this isolate's vector index (tests). */
export function resetVectorIndex(): void {
  vectors.index = null
  vectors.checkedAt = 0
}

/** Bytes held, per piece of search state and in total (GET /v1/admin/search-memory). */
export function searchMemory(): Record<string, number> {
  for (const k of Object.keys(byKind) as Kind[]) byKind[k] = 0
  cache.forEach((_, e, bytes) => (byKind[e.kind] += bytes))
  const parts = {
    relevance_lists: byKind.list + byKind.wide,
    typo_corrections: byKind.typo,
    page_cache: byKind.page + askedOnce.size * 48,
    query_vectors: byKind.vector,
    public_state: publicRanking.state?.executions.byteLength ?? 0,
    vector_index: vectors.index?.bytes ?? 0,
    scratch: scratch.acc.byteLength + scratch.seen.byteLength,
  }
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0), cache_budget: CACHE_BUDGET, vector_bits: CODE_BITS, max_vectors: MAX_VECTORS, vectors_held: vectors.index?.count ?? 0 }
}
