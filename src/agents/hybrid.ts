/**
 * Hybrid relevance: the lexical part (bm25 of the query's words) and the semantic part (the query's
 * and the agent's embeddings) fused into one calibrated relevance part in [0, 1 - POPULARITY_WEIGHT]
 * (the formula and how it was fitted: ./calibration). Score fusion beat rank fusion (RRF) on the
 * MetaTool dev half: a score keeps how sure each side is, which a `min_score` threshold needs.
 */
import { calibratedPart } from './calibration'
import type { Embedder } from './embedder'
import type { Matches } from './relevance'
import { cached } from './search-state'

/** Agents nearest the query by cosine that join the lexical matches as candidates. */
export const SEMANTIC_CANDIDATES = 100

/**
 * Pseudo-relevance feedback: the query's vector is moved toward the vectors of the caller's
 * FEEDBACK_AGENTS best hits of a first ranking (FEEDBACK_FLOOR below), by FEEDBACK_WEIGHT of their mean, and the candidates
 * are ranked again with that vector's cosines. The encoder then also compares agents with what the
 * query's clear matches say of themselves, which a short or oddly worded query does not. Chosen on
 * the MetaTool dev half (`npm run eval:search -- --tune-feedback`): nDCG@10 / top-1 0.6982 / 0.5468
 * without it, 0.7024 / 0.5522 with it, within 0.001 of that for 8-24 agents at weights 0.5-1.
 */
export const FEEDBACK_AGENTS = 8
export const FEEDBACK_WEIGHT = 0.75
/**
 * Of those hits, only the ones whose relevance part is at least FEEDBACK_FLOOR (the calibrated part
 * reads as the chance the hit is right) and at least FEEDBACK_SHARE of the best one's move the query:
 * where nothing matches clearly (a small catalog, a query no agent answers), the best hits are mostly
 * unrelated, and their mean would pull the query toward the catalog's centre. On the MetaTool dev
 * half (199 agents, where they rarely bind) these cost 0.0002-0.0006; a floor of 0.05 would cost 0.002.
 */
export const FEEDBACK_FLOOR = 0.03
export const FEEDBACK_SHARE = 0.25

/** The least part a feedback hit needs, given the parts of the caller's best hits. */
export function feedbackLeast(parts: number[]): number {
  return Math.max(FEEDBACK_FLOOR, FEEDBACK_SHARE * Math.max(...parts))
}

/**
 * The query's vector moved toward `vectors` (unit vectors of the feedback agents that have one):
 * normalize(q + weight · mean(vectors)); `q` itself when there are none.
 */
export function feedbackQuery(q: Float32Array, vectors: Float32Array[], weight = FEEDBACK_WEIGHT): Float32Array {
  if (vectors.length === 0) return q
  const sum = Float64Array.from(q)
  const w = weight / vectors.length
  for (const v of vectors) for (let d = 0; d < sum.length; d++) sum[d] += w * (v[d] ?? 0)
  let norm = 0
  for (const x of sum) norm += x * x
  if (!(norm > 0)) return q
  const unit = 1 / Math.sqrt(norm)
  return Float32Array.from(sum, (x) => x * unit)
}

/**
 * The candidates of a hybrid search, every lexical match and the SEMANTIC_CANDIDATES agents nearest
 * the query (`near`, when the caller has them already), each with its calibrated part.
 */
export function fuse(lexical: Matches, query: Float32Array, index: VectorSource, near = index.nearest(query, SEMANTIC_CANDIDATES)): Matches {
  const rels = new Map<number, number>()
  for (let i = 0; i < lexical.rowids.length; i++) rels.set(lexical.rowids[i], lexical.rels[i])
  for (const n of near) if (!rels.has(n.rowid)) rels.set(n.rowid, 0)
  const rowids = new Float64Array(rels.size)
  const parts = new Float64Array(rels.size)
  let i = 0
  for (const [rowid, rel] of rels) {
    rowids[i] = rowid
    parts[i++] = calibratedPart(rel, index.cosineOf(query, rowid) ?? 0)
  }
  return { rowids, rels: parts, match: '', scale: 'part' }
}

/**
 * Agent vectors as a search reads them: this isolate's index (vector-index.ts) or, with a VECTORIZE
 * binding, the candidates' vectors read for one search (vectorize.ts). Both score with the index's cosine.
 */
export interface VectorSource {
  /** The `k` agents nearest the query, nearest first, with their cosines. */
  nearest(q: Float32Array, k: number): { rowid: number; cos: number }[]
  /** The cosine of the query and an agent's vector, or null when the agent has none here. */
  cosineOf(q: Float32Array, rowid: number): number | null
  /** The unit vector the source's codes of an agent stand for, or null when it has none here. */
  vectorOf(rowid: number): Float32Array | null
  /**
   * At least the cosine of the query and any agent not in `inside` (0 for an agent without a
   * vector): what an agent left out of a search's candidates can reach.
   */
  bestOutside(q: Float32Array, inside: Set<number>): number
}

/** What a search needs for its semantic part: the query's vector, computed once, and the agents' vectors. */
export interface Semantic {
  /**
   * The state of the vectors a page depends on (embedder and change sequence), for the page cache;
   * null when it cannot be named cheaply (Vectorize), and such pages are not cached.
   */
  version: string | null
  /** The query's vector, or null when the embedder failed (the search is then lexical). */
  vector(): Promise<Float32Array | null>
  /** The vectors of the candidates of these lexical matches. */
  source(lexical: Matches, query: Float32Array): Promise<VectorSource>
}

/** The text of a query that is embedded (and the key its vector is cached under). */
export function queryText(query: string): string {
  return query.trim().replace(/\s+/g, ' ').slice(0, 1000)
}

/**
 * The query's vector from the cache (search-state.ts: embedding dominates a hybrid search's time and
 * callers repeat queries) or the embedder; null (and the failure reported) when it fails.
 */
export async function queryVector(embedder: Embedder, query: string, onError: (err: unknown) => void): Promise<Float32Array | null> {
  const text = queryText(query)
  const hit = cached.vector(embedder.id, text)
  if (hit) return hit
  try {
    const [v] = await embedder.embed([text])
    cached.setVector(embedder.id, text, v)
    return v
  } catch (err) {
    onError(err)
    return null
  }
}
