/**
 * Agent vectors in a Vectorize index (the optional VECTORIZE binding): the path for catalogs past
 * what one isolate's index holds. Each agent's vector is upserted under its rowid, in a namespace
 * per embedder so vectors of different models are never compared. Vectorize only decides which
 * agents join a search as its nearest candidates; every candidate is then scored from the int8
 * codes stored in D1, with the same cosine as the isolate's index, so a stale or deleted vector in
 * Vectorize can cost a candidate slot but never changes a score. Deleting an agent deletes its vector
 * (`forgetAgentVector`), while its rowid still belongs to it.
 *
 * Limits followed (Vectorize docs, "Limits"): at most 1,000 vectors per upsert from a Worker, topK
 * at most 100 when neither values nor metadata are returned, ids and namespaces at most 64 bytes.
 */
import { clearVector, vectorCodes } from '../db/vectors'
import { kthLargest } from './relevance'
import { compact, decodeUnit, indexCosine } from './vector-index'

/** Vectors per upsert or delete call. */
export const VECTORIZE_BATCH = 1000
/** The most nearest agents one query may ask for without values or metadata. */
export const VECTORIZE_MAX_TOP_K = 100
/**
 * Lexical matches, best first, whose cosine is read from D1 for a search served by Vectorize: a
 * large catalog can match tens of thousands of agents on a common word, and reading every code
 * would cost more than the search. Matches past these keep their lexical part alone.
 */
export const REMOTE_LEXICAL_CANDIDATES = 500

const MAX_NAMESPACE_BYTES = 64

/** The namespace of an embedder's vectors: its id, or a stable digest of it when that is too long. */
export function vectorizeNamespace(embedderId: string): string {
  if (new TextEncoder().encode(embedderId).length <= MAX_NAMESPACE_BYTES) return embedderId
  // FNV-1a over the UTF-16 code units, twice with different offsets: 64 bits, stable across isolates.
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < embedderId.length; i++) {
    const c = embedderId.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193) >>> 0
    b = Math.imul(b ^ c, 0x01000193 + 2) >>> 0
  }
  const prefix = embedderId.replace(/[^\x20-\x7e]/g, '_').slice(0, 40)
  return `${prefix}#${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`
}

/** Writes agents' vectors, replacing what each had. */
export async function upsertAgentVectors(vz: Vectorize, embedderId: string, rows: { rowid: number; vec: Float32Array }[]): Promise<void> {
  const namespace = vectorizeNamespace(embedderId)
  for (let i = 0; i < rows.length; i += VECTORIZE_BATCH) {
    await vz.upsert(rows.slice(i, i + VECTORIZE_BATCH).map((r) => ({ id: String(r.rowid), values: Array.from(r.vec), namespace })))
  }
}

/** Removes agents' vectors (ids Vectorize no longer needs to return). */
export async function deleteAgentVectors(vz: Vectorize, rowids: number[]): Promise<void> {
  for (let i = 0; i < rowids.length; i += VECTORIZE_BATCH) await vz.deleteByIds(rowids.slice(i, i + VECTORIZE_BATCH).map(String))
}

/**
 * Before an agent is deleted from D1: its vector leaves D1 first, then Vectorize. In that order no
 * live agent ends without a vector in Vectorize: if the D1 delete then fails, the agent is waiting
 * for a vector and is embedded and upserted again; and the rowid, which SQLite may give to the next
 * agent once this row is gone, still names this agent when Vectorize is asked. If Vectorize fails,
 * the vector stays there (it never scores: D1 decides) and the error is the caller's to log.
 */
export async function forgetAgentVector(db: D1Database, vz: Vectorize, rowid: number): Promise<void> {
  await clearVector(db, rowid)
  await deleteAgentVectors(vz, [rowid])
}

/** The rowids Vectorize finds nearest the query, nearest first; answers that are not agent rowids are skipped. */
export async function vectorizeNearest(vz: Vectorize, embedderId: string, query: Float32Array, k: number): Promise<number[]> {
  const topK = Math.max(1, Math.min(VECTORIZE_MAX_TOP_K, Math.floor(k)))
  const answer = await vz.query(Array.from(query), { topK, namespace: vectorizeNamespace(embedderId), returnValues: false, returnMetadata: 'none' })
  const out: number[] = []
  const seen = new Set<number>()
  for (const m of Array.isArray(answer?.matches) ? answer.matches : []) {
    const id = typeof m?.id === 'string' && /^[1-9][0-9]{0,15}$/.test(m.id) ? Number(m.id) : NaN
    if (!Number.isSafeInteger(id) || seen.has(id)) continue
    seen.add(id)
    out.push(id)
    if (out.length === topK) break
  }
  return out
}

/**
 * The vectors one search needs, read for its candidates: the agents Vectorize finds nearest and the
 * best lexical matches. The same two questions the isolate's index answers.
 */
export class RemoteVectors {
  constructor(
    readonly embedder: string,
    private readonly nearestIds: number[],
    private readonly codes: Map<number, Int8Array>,
  ) {}

  /** Agents Vectorize named whose current vector is not in D1 (deleted or changed since). */
  get stale(): number[] {
    return this.nearestIds.filter((id) => !this.codes.has(id))
  }

  cosineOf(q: Float32Array, rowid: number): number | null {
    const codes = this.codes.get(rowid)
    return codes && codes.length === q.length ? indexCosine(q, codes) : null
  }

  /** The unit vector an agent's D1 codes stand for at the index's code width (decodeUnit), or null. */
  vectorOf(rowid: number): Float32Array | null {
    const codes = this.codes.get(rowid)
    if (!codes) return null
    const c = compact(codes)
    return decodeUnit(c.packed, 0, codes.length, c.scale)
  }

  /** Agents past the ones read for this search are unknown here: any cosine may be theirs. */
  bestOutside(): number {
    return 1
  }

  /** The nearest agents that have a current vector, by their cosine from D1 (ties by rowid). */
  nearest(q: Float32Array, k: number): { rowid: number; cos: number }[] {
    const out: { rowid: number; cos: number }[] = []
    for (const rowid of this.nearestIds) {
      const cos = this.cosineOf(q, rowid)
      if (cos !== null) out.push({ rowid, cos })
    }
    return out.sort((a, b) => b.cos - a.cos || a.rowid - b.rowid).slice(0, k)
  }
}

/**
 * Reads what a search over Vectorize needs: the `k` nearest agents from Vectorize, then the D1
 * codes of those and of the REMOTE_LEXICAL_CANDIDATES best lexical matches, in one round trip.
 */
export async function remoteVectors(
  vz: Vectorize,
  db: D1Database,
  embedderId: string,
  query: Float32Array,
  lexical: { rowids: ArrayLike<number>; rels: Float64Array },
  k: number,
): Promise<RemoteVectors> {
  const nearest = await vectorizeNearest(vz, embedderId, query, k)
  const ids = new Set(nearest)
  for (const rowid of bestMatches(lexical, REMOTE_LEXICAL_CANDIDATES)) ids.add(rowid)
  return new RemoteVectors(embedderId, nearest, await vectorCodes(db, embedderId, [...ids]))
}

/** The rowids of the `n` most relevant matches (ties: the lower rowid). */
export function bestMatches(m: { rowids: ArrayLike<number>; rels: Float64Array }, n: number): number[] {
  if (m.rowids.length <= n) return Array.from(m.rowids)
  if (n <= 0) return []
  const kth = kthLargest(m.rels, n)
  const out: number[] = []
  const ties: number[] = []
  for (let i = 0; i < m.rowids.length; i++) {
    if (m.rels[i] > kth) out.push(m.rowids[i])
    else if (m.rels[i] === kth) ties.push(m.rowids[i])
  }
  return out.concat(ties.sort((a, b) => a - b).slice(0, n - out.length))
}
