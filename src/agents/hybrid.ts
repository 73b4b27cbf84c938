/**
 * Hybrid relevance: the lexical part (bm25 of the query's words) and the semantic part (cosine of the
 * query's and the agent's embeddings) fused into one relevance part in [0, 1 - POPULARITY_WEIGHT]:
 *
 *   part = (1 - POPULARITY_WEIGHT) · (LEXICAL_WEIGHT · r / (r + LEXICAL_K) + (1 - LEXICAL_WEIGHT) · max(0, cos))
 *
 * r = -bm25 (0 when no word matches), cos = 0 for an agent without a vector yet. Score fusion beat
 * rank fusion (RRF) on the MetaTool dev half: a score keeps how sure each side is, so it means about
 * the same across queries and one `min_score` threshold can be documented. The weights were chosen
 * on that dev half only (scripts/eval-search.mjs).
 */
import { POPULARITY_WEIGHT } from '../db/agents'
import { ByteLru } from '../lib/lru'
import type { Embedder } from './embedder'
import type { Matches } from './relevance'
import type { VectorIndex } from './vector-index'

export const LEXICAL_WEIGHT = 0.45
export const LEXICAL_K = 64
/** Agents nearest the query by cosine that join the lexical matches as candidates. */
export const SEMANTIC_CANDIDATES = 100

/** The fused relevance part of bm25 relevance `rel` and cosine `cos`. */
export function fusedPart(rel: number, cos: number): number {
  const lexical = rel > 0 ? rel / (rel + LEXICAL_K) : 0
  return (1 - POPULARITY_WEIGHT) * (LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * Math.max(0, cos))
}

/**
 * The candidates of a hybrid search, every lexical match and the SEMANTIC_CANDIDATES agents nearest
 * the query, each with its fused part.
 */
export function fuse(lexical: Matches, query: Float32Array, index: VectorIndex): Matches {
  const rels = new Map<number, number>()
  for (let i = 0; i < lexical.rowids.length; i++) rels.set(lexical.rowids[i], lexical.rels[i])
  for (const n of index.nearest(query, SEMANTIC_CANDIDATES)) if (!rels.has(n.rowid)) rels.set(n.rowid, 0)
  const rowids = new Float64Array(rels.size)
  const parts = new Float64Array(rels.size)
  let i = 0
  for (const [rowid, rel] of rels) {
    rowids[i] = rowid
    parts[i++] = fusedPart(rel, index.cosineOf(query, rowid) ?? 0)
  }
  return { rowids, rels: parts, match: '', scale: 'part' }
}

/** What a search needs for its semantic part: this isolate's vectors and the query's, computed once. */
export interface Semantic {
  index: VectorIndex
  /** The query's vector, or null when the embedder failed (the search is then lexical). */
  vector(): Promise<Float32Array | null>
}

/**
 * Query vectors per embedder and query text, per isolate: embedding dominates a hybrid search's
 * time and callers repeat queries. 2 KB a 512-d vector; 4 MB keeps about 2,000.
 */
const queryVectors = new ByteLru<Float32Array>(4 * 2 ** 20)

/** The query's vector from the cache or the embedder; null (and the failure reported) when it fails. */
export async function queryVector(embedder: Embedder, query: string, onError: (err: unknown) => void): Promise<Float32Array | null> {
  const text = query.trim().replace(/\s+/g, ' ').slice(0, 1000)
  const key = `${embedder.id}|${text}`
  const hit = queryVectors.get(key)
  if (hit) return hit
  try {
    const [v] = await embedder.embed([text])
    queryVectors.set(key, v, v.byteLength + 2 * key.length)
    return v
  } catch (err) {
    onError(err)
    return null
  }
}

/** Bytes held by the query-vector cache. */
export const queryVectorBytes = () => queryVectors.bytes
