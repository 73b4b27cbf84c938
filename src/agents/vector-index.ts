/**
 * The per-isolate index of agent vectors for one embedder, brought up to date from the change
 * sequence of migration 0015. D1 keeps each vector as int8 codes (v stored as round(127 · v), v of
 * unit length); the index keeps CODE_BITS bits a dimension (2: a quarter of int8's bytes), which is
 * what lets a 100,000-agent catalog stay within the search memory budget (search-state.ts).
 *
 * The cosine search uses, for query q and an agent's stored codes v, is
 *
 *   cos(q, v) = clamp(<q, Q(v)> · |v| / <Q(v), v>, -1, 1)
 *
 * where Q(v) maps each dimension of v/|v| (in units of 1/sqrt(d), the spread of a unit vector's
 * coordinates) to the nearest of 2^CODE_BITS levels (Lloyd-Max for a normal spread). The factor
 * |v| / <Q(v), v> makes the estimate exact for q along v and unbiased around it; with CODE_BITS = 8,
 * Q(v) = v and this is the plain cosine of the int8 codes. Bounded: past MAX_VECTORS agents the index
 * stops growing and search stays lexical for the agents it cannot hold (a catalog that large belongs
 * in Vectorize). The index this isolate holds lives in search-state.ts.
 */
import type { VectorChange } from '../db/vectors'

/** Bits a dimension in the index: 1, 2, 4 or 8 (chosen by recall and memory, see the README). */
export const CODE_BITS = 2
export const MAX_VECTORS = 120_000
/** Slots added at a time as the index grows. */
const GROW_STEP = 8192
/** Agents whose rowid runs past this are found through a map instead of a dense array. */
const DENSE_SLOTS = 4_000_000

/** Quantizes a unit vector to the stored int8 codes. */
export function quantize(v: Float32Array): Int8Array {
  const out = new Int8Array(v.length)
  for (let i = 0; i < v.length; i++) out[i] = Math.max(-127, Math.min(127, Math.round(v[i] * 127)))
  return out
}

/**
 * Cosine of a unit query vector and stored int8 codes, in [-1, 1]: codes are not exactly unit
 * length, so their norm is divided out (0 for a zero vector).
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

/** A quantizer: levels (in units of 1/sqrt(d)) and the thresholds between them, ascending. */
interface Levels {
  bits: number
  levels: number[]
  thresholds: number[]
}

export function levelsOf(bits: number): Levels {
  const gaussian: Record<number, number[]> = {
    1: [-0.7979, 0.7979],
    2: [-1.51, -0.4528, 0.4528, 1.51],
    // Uniform steps of 0.3352 come within a few percent of Lloyd-Max's error at 16 levels.
    4: Array.from({ length: 16 }, (_, k) => (k - 7.5) * 0.3352),
  }
  const levels = gaussian[bits]
  if (!levels) throw new Error(`unsupported code width ${bits}`)
  return { bits, levels, thresholds: levels.slice(1).map((l, i) => (l + levels[i]) / 2) }
}

/** An agent's vector as the index holds it: packed codes and the factor |v| / <Q(v), v>. */
export interface Compact {
  packed: Uint8Array
  scale: number
}

/** Packs int8 codes at `bits` a dimension (little end first within a byte). */
export function compact(v: Int8Array, bits = CODE_BITS): Compact {
  const d = v.length
  const perByte = 8 / bits
  const packed = new Uint8Array(Math.ceil(d / perByte))
  let norm = 0
  for (let i = 0; i < d; i++) norm += v[i] * v[i]
  norm = Math.sqrt(norm)
  if (norm === 0) return { packed, scale: 0 }
  if (bits === 8) {
    for (let i = 0; i < d; i++) packed[i] = v[i] & 0xff
    return { packed, scale: Math.fround(1 / norm) }
  }
  const { levels, thresholds } = levelsOf(bits)
  const unit = Math.sqrt(d) / norm
  let along = 0
  for (let i = 0; i < d; i++) {
    const x = v[i] * unit
    let code = 0
    while (code < thresholds.length && x > thresholds[code]) code++
    packed[(i / perByte) | 0] |= code << ((i % perByte) * bits)
    along += levels[code] * v[i]
  }
  // Held as a float32, as the index holds it, so every caller computes the same cosine.
  return { packed, scale: along > 0 ? Math.fround(norm / along) : 0 }
}

/**
 * The query's lookup table: for each byte position of the packed codes and each byte value, the
 * query's dot product with the levels that byte encodes. A dot product is then one lookup a byte.
 * Each entry is the sum, dimension by dimension from the byte's lowest bits, of the query's
 * products with the levels: built up a dimension at a time, so that the entries sharing their lower
 * dimensions share those sums (at 2 bits, 340 additions and 16 products a byte instead of 1,024
 * of each), added in that same order.
 */
export function lookupTable(q: Float32Array, bits = CODE_BITS): Float64Array {
  const perByte = 8 / bits
  const positions = Math.ceil(q.length / perByte)
  const table = new Float64Array(positions * 256)
  const levels = bits === 8 ? null : levelsOf(bits).levels
  const codes = 1 << bits
  let sums = new Float64Array(256)
  let next = new Float64Array(256)
  for (let p = 0; p < positions; p++) {
    // sums[low]: the sum over the byte's first j dimensions, for the codes `low` holds of them.
    sums[0] = 0
    let width = 1
    for (let j = 0; j < perByte && p * perByte + j < q.length; j++) {
      const x = q[p * perByte + j]
      for (let c = 0; c < codes; c++) {
        const term = x * (levels ? levels[c] : (c << 24) >> 24)
        for (let low = 0; low < width; low++) next[c * width + low] = sums[low] + term
      }
      const done = next
      next = sums
      sums = done
      width *= codes
    }
    // A last byte with fewer dimensions than it has room for ignores its higher bits.
    if (width === 256) table.set(sums, p * 256)
    else for (let b = 0; b < 256; b++) table[p * 256 + b] = sums[b & (width - 1)]
  }
  return table
}

/** True where a Uint32Array reads bytes low first (every platform Workers run on). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * The index's cosine of a query (by its lookup table) and packed codes at `offset`. The table's
 * values are summed four positions at a time, in one fixed order, so that reading the codes a word
 * at a time (`words`, the same bytes as 32-bit words: 1.6x faster over a large index) gives the very
 * same cosine as reading them byte by byte.
 */
export function tableCosine(table: Float64Array, packed: Uint8Array, offset: number, positions: number, scale: number, words?: Uint32Array | null): number {
  let dot = 0
  const whole = positions & ~3
  if (words && (offset & 3) === 0) {
    const first = offset >> 2
    for (let w = 0; w < whole >> 2; w++) {
      const x = words[first + w]
      const b = w << 10
      dot += table[b | (x & 255)] + table[b | 256 | ((x >>> 8) & 255)] + table[b | 512 | ((x >>> 16) & 255)] + table[b | 768 | (x >>> 24)]
    }
  } else {
    for (let p = 0; p < whole; p += 4) {
      const o = offset + p
      dot += table[(p << 8) | packed[o]] + table[((p + 1) << 8) | packed[o + 1]] + table[((p + 2) << 8) | packed[o + 2]] + table[((p + 3) << 8) | packed[o + 3]]
    }
  }
  for (let p = whole; p < positions; p++) dot += table[(p << 8) | packed[offset + p]]
  const cos = dot * scale
  return cos > 1 ? 1 : cos < -1 ? -1 : cos
}

/**
 * The unit vector packed codes stand for: Q(v) / |Q(v)| (for CODE_BITS = 8, v / |v|), or null for
 * the zero vector (`scale` 0). What the index knows of an agent's direction, and so what a search
 * can move its query toward (hybrid.ts feedbackQuery).
 */
export function decodeUnit(packed: Uint8Array, offset: number, dims: number, scale: number, bits = CODE_BITS): Float32Array | null {
  if (scale === 0) return null
  const perByte = 8 / bits
  const mask = (1 << bits) - 1
  const levels = bits === 8 ? null : levelsOf(bits).levels
  const out = new Float32Array(dims)
  let norm = 0
  for (let i = 0; i < dims; i++) {
    const code = (packed[offset + ((i / perByte) | 0)] >> ((i % perByte) * bits)) & mask
    const x = levels ? levels[code] : (code << 24) >> 24
    out[i] = x
    norm += x * x
  }
  if (norm === 0) return null
  const unit = 1 / Math.sqrt(norm)
  for (let i = 0; i < dims; i++) out[i] *= unit
  return out
}

/** The cosine search uses for query `q` and an agent's stored int8 codes (see the top of this file). */
export function indexCosine(q: Float32Array, v: Int8Array, bits = CODE_BITS): number {
  const c = compact(v, bits)
  return tableCosine(lookupTable(q, bits), c.packed, 0, c.packed.length, c.scale)
}

export class VectorIndex {
  /** Slot by rowid (-1: none) for rowids below DENSE_SLOTS; `far` holds the others. */
  private slotOf = new Int32Array(0)
  private readonly far = new Map<number, number>()
  rowids = new Uint32Array(0)
  packed = new Uint8Array(0)
  /** `packed` read as 32-bit words, when every agent's codes start on a word (else null). */
  private words: Uint32Array | null = null
  scales = new Float32Array(0)
  seq = 0
  dims = 0
  /** Bytes of packed codes per agent. */
  positions = 0
  count = 0
  /** The lookup table of the last query, so scoring many agents for one query builds it once. */
  private last: { q: Float32Array; table: Float64Array } | null = null

  constructor(
    readonly embedder: string,
    readonly bits = CODE_BITS,
  ) {}

  /** Bytes the index holds. */
  get bytes(): number {
    return this.packed.byteLength + this.scales.byteLength + this.rowids.byteLength + this.slotOf.byteLength + this.far.size * 40 + (this.last?.table.byteLength ?? 0)
  }

  private slot(rowid: number): number | undefined {
    if (rowid < DENSE_SLOTS) {
      const s = rowid < this.slotOf.length ? this.slotOf[rowid] : -1
      return s < 0 ? undefined : s
    }
    return this.far.get(rowid)
  }

  private setSlot(rowid: number, slot: number): void {
    if (rowid >= DENSE_SLOTS) {
      if (slot < 0) this.far.delete(rowid)
      else this.far.set(rowid, slot)
      return
    }
    if (rowid >= this.slotOf.length) {
      const next = new Int32Array(Math.min(DENSE_SLOTS, Math.max(rowid + 1, 2 * this.slotOf.length, 1024))).fill(-1)
      next.set(this.slotOf)
      this.slotOf = next
    }
    this.slotOf[rowid] = slot
  }

  apply(changes: VectorChange[]): void {
    for (const c of changes) {
      this.seq = Math.max(this.seq, c.seq)
      const slot = this.slot(c.rowid)
      const vec = c.embedder === this.embedder ? c.vec : null
      if (vec && this.dims === 0) {
        this.dims = vec.length
        this.positions = Math.ceil(vec.length / (8 / this.bits))
      }
      // Rowids past 2^32 (D1 hands them out one by one, so never in practice) rank lexically.
      if (!vec || vec.length !== this.dims || c.rowid >= 2 ** 32) {
        if (slot !== undefined) this.remove(c.rowid, slot)
        continue
      }
      if (slot === undefined && this.count >= MAX_VECTORS) continue
      const code = compact(vec, this.bits)
      if (slot !== undefined) {
        this.packed.set(code.packed, slot * this.positions)
        this.scales[slot] = code.scale
        continue
      }
      this.grow(this.count + 1)
      this.packed.set(code.packed, this.count * this.positions)
      this.scales[this.count] = code.scale
      this.rowids[this.count] = c.rowid
      this.setSlot(c.rowid, this.count++)
    }
  }

  private remove(rowid: number, slot: number): void {
    const last = this.count - 1
    const p = this.positions
    if (slot !== last) {
      this.packed.copyWithin(slot * p, last * p, (last + 1) * p)
      this.scales[slot] = this.scales[last]
      this.rowids[slot] = this.rowids[last]
      this.setSlot(this.rowids[slot], slot)
    }
    this.setSlot(rowid, -1)
    this.count--
  }

  /** Grows in steps of GROW_STEP slots, so no more than a step is ever held unused. */
  private grow(n: number): void {
    if (n <= this.rowids.length) return
    const size = Math.min(MAX_VECTORS, Math.ceil(n / GROW_STEP) * GROW_STEP)
    const rowids = new Uint32Array(size)
    rowids.set(this.rowids.subarray(0, this.count))
    const packed = new Uint8Array(size * this.positions)
    packed.set(this.packed.subarray(0, this.count * this.positions))
    const scales = new Float32Array(size)
    scales.set(this.scales.subarray(0, this.count))
    this.rowids = rowids
    this.packed = packed
    this.words = LITTLE_ENDIAN && this.positions % 4 === 0 ? new Uint32Array(packed.buffer, 0, packed.byteLength >> 2) : null
    this.scales = scales
  }

  private table(q: Float32Array): Float64Array {
    if (this.last?.q !== q) this.last = { q, table: lookupTable(q, this.bits) }
    return this.last.table
  }

  /** The cosine of the query and an agent's vector, or null when the agent has none here. */
  cosineOf(q: Float32Array, rowid: number): number | null {
    const slot = this.slot(rowid)
    if (slot === undefined || q.length !== this.dims) return null
    return tableCosine(this.table(q), this.packed, slot * this.positions, this.positions, this.scales[slot], this.words)
  }

  /** The unit vector an agent's codes here stand for (decodeUnit), or null when it has none. */
  vectorOf(rowid: number): Float32Array | null {
    const slot = this.slot(rowid)
    return slot === undefined ? null : decodeUnit(this.packed, slot * this.positions, this.dims, this.scales[slot], this.bits)
  }

  /** The highest cosine of the query and an agent not in `inside` (0 when every agent here is). */
  bestOutside(q: Float32Array, inside: Set<number>): number {
    if (q.length !== this.dims) return 0
    const table = this.table(q)
    const p = this.positions
    let best = 0
    for (let s = 0; s < this.count; s++) {
      if (inside.has(this.rowids[s])) continue
      const cos = tableCosine(table, this.packed, s * p, p, this.scales[s], this.words)
      if (cos > best) best = cos
    }
    return best
  }

  /** The `k` agents nearest the query, nearest first (ties by rowid), with their cosines. */
  nearest(q: Float32Array, k: number): { rowid: number; cos: number }[] {
    const best: { rowid: number; cos: number }[] = []
    if (q.length !== this.dims || k <= 0) return best
    const table = this.table(q)
    const p = this.positions
    for (let s = 0; s < this.count; s++) {
      const cos = tableCosine(table, this.packed, s * p, p, this.scales[s], this.words)
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
