/**
 * The per-isolate index of agent vectors for one embedder: int8 codes (a vector v stored as
 * round(127 · v), v of unit length) in one growing matrix, brought up to date from the change
 * sequence of migration 0015. Bounded: past MAX_VECTORS agents the index stops growing and search
 * stays lexical for the agents it cannot hold (a catalog that large belongs in Vectorize).
 */
import { vectorChanges, type VectorChange } from '../db/vectors'

export const MAX_VECTORS = 120_000
/** Changes read per round trip while catching up. */
const CHANGE_PAGE = 5000

/** Quantizes a unit vector to the stored int8 codes. */
export function quantize(v: Float32Array): Int8Array {
  const out = new Int8Array(v.length)
  for (let i = 0; i < v.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round(v[i] * 127)))
  return out
}

/**
 * Cosine of a unit query vector and stored codes, in [-1, 1]: codes are not exactly unit length, so
 * their norm is divided out (0 for a zero vector).
 */
export function cosine(q: Float32Array, codes: Int8Array, offset = 0): number {
  let dot = 0
  let norm = 0
  for (let i = 0; i < q.length; i++) {
    const c = codes[offset + i]
    dot += q[i] * c
    norm += c * c
  }
  return norm > 0 ? dot / Math.sqrt(norm) : 0
}

export class VectorIndex {
  readonly slots = new Map<number, number>()
  rowids = new Float64Array(0)
  codes = new Int8Array(0)
  seq = 0
  dims = 0
  count = 0

  constructor(readonly embedder: string) {}

  /** Bytes the index holds. */
  get bytes(): number {
    return this.codes.byteLength + this.rowids.byteLength + this.slots.size * 40
  }

  apply(changes: VectorChange[]): void {
    for (const c of changes) {
      this.seq = Math.max(this.seq, c.seq)
      const slot = this.slots.get(c.rowid)
      const vec = c.embedder === this.embedder ? c.vec : null
      if (vec && this.dims === 0) this.dims = vec.length
      if (!vec || vec.length !== this.dims) {
        if (slot !== undefined) this.remove(c.rowid, slot)
        continue
      }
      if (slot !== undefined) {
        this.codes.set(vec, slot * this.dims)
        continue
      }
      if (this.count >= MAX_VECTORS) continue
      this.grow(this.count + 1)
      this.codes.set(vec, this.count * this.dims)
      this.rowids[this.count] = c.rowid
      this.slots.set(c.rowid, this.count++)
    }
  }

  private remove(rowid: number, slot: number): void {
    const last = this.count - 1
    if (slot !== last) {
      this.codes.copyWithin(slot * this.dims, last * this.dims, (last + 1) * this.dims)
      this.rowids[slot] = this.rowids[last]
      this.slots.set(this.rowids[slot], slot)
    }
    this.slots.delete(rowid)
    this.count--
  }

  private grow(n: number): void {
    if (n <= this.rowids.length) return
    const size = Math.max(n, Math.ceil(this.rowids.length * 1.5), 256)
    const rowids = new Float64Array(size)
    rowids.set(this.rowids.subarray(0, this.count))
    const codes = new Int8Array(size * this.dims)
    codes.set(this.codes.subarray(0, this.count * this.dims))
    this.rowids = rowids
    this.codes = codes
  }

  /** The cosine of the query and an agent's vector, or null when the agent has none here. */
  cosineOf(q: Float32Array, rowid: number): number | null {
    const slot = this.slots.get(rowid)
    return slot === undefined || q.length !== this.dims ? null : cosine(q, this.codes, slot * this.dims)
  }

  /** The `k` agents nearest the query, nearest first (ties by rowid), with their cosines. */
  nearest(q: Float32Array, k: number): { rowid: number; cos: number }[] {
    const best: { rowid: number; cos: number }[] = []
    if (q.length !== this.dims || k <= 0) return best
    for (let s = 0; s < this.count; s++) {
      const cos = cosine(q, this.codes, s * this.dims)
      const rowid = this.rowids[s]
      if (best.length === k) {
        const last = best[k - 1]
        if (cos < last.cos || (cos === last.cos && rowid > last.rowid)) continue
      }
      let i = best.length === k ? k - 1 : best.length
      while (i > 0 && (best[i - 1].cos < cos || (best[i - 1].cos === cos && best[i - 1].rowid > rowid))) {
        best[i] = best[i - 1]
        i--
      }
      best[i] = { rowid, cos }
    }
    return best
  }
}

let index: VectorIndex | null = null
let checkedAt = 0
let refreshing: Promise<VectorIndex> | null = null

/**
 * This isolate's index for `embedder`, brought up to date when it was last checked more than
 * `maxAgeMs` ago (one refresh at a time; searches meanwhile wait for it).
 */
export async function vectorIndex(db: D1Database, embedder: string, maxAgeMs: number, now = Date.now()): Promise<VectorIndex> {
  if (index?.embedder === embedder && now - checkedAt <= maxAgeMs) return index
  refreshing ??= (async () => {
    try {
      const idx = index?.embedder === embedder ? index : new VectorIndex(embedder)
      for (;;) {
        const changes = await vectorChanges(db, idx.seq, CHANGE_PAGE)
        idx.apply(changes)
        if (changes.length < CHANGE_PAGE) break
      }
      index = idx
      checkedAt = now
      return idx
    } finally {
      refreshing = null
    }
  })()
  return refreshing
}

/** Bytes held by this isolate's vector index. */
export const vectorIndexBytes = () => index?.bytes ?? 0

/** Drops this isolate's index (tests). */
export function resetVectorIndex(): void {
  index = null
  checkedAt = 0
}
