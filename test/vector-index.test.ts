import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { cached, sawCatalog, sawVocabulary, searchMemory } from '../src/agents/search-state'
import { CODE_BITS, compact, cosine, decodeUnit, indexCosine, levelsOf, lookupTable, MAX_VECTORS, quantize, VectorIndex } from '../src/agents/vector-index'

const unit = (xs: number[]) => {
  const n = Math.hypot(...xs) || 1
  return Float32Array.from(xs, (x) => x / n)
}
/** Embedding-like vectors: every coordinate spread (the codes' levels assume it; a spike is clipped). */
const spreadOf = (d: number) => fc.integer({ min: 1, max: 2 ** 30 }).map((seed) => unit(Array.from({ length: d }, (_, i) => (Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453) % 1)))
const vectorOf = (d: number) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: d, maxLength: d }).map(unit)

describe('the compact vector index', () => {
  it('answers any stored bytes with a finite cosine in [-1, 1], at every code width', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }).chain((d) => fc.tuple(vectorOf(d), fc.int8Array({ minLength: d, maxLength: d }))),
        fc.constantFrom(1, 2, 4, 8),
        ([q, v], bits) => {
          const cos = indexCosine(q, v, bits)
          expect(Number.isFinite(cos)).toBe(true)
          expect(cos >= -1 && cos <= 1).toBe(true)
        },
      ),
      {
        numRuns: 400,
        examples: [
          [[new Float32Array([1, 0]), new Int8Array([-128, -128])], 2],
          [[new Float32Array([0, 0, 0]), new Int8Array(3)], 2],
        ],
      },
    )
  })

  it("builds the query's lookup table to the bit as summing each byte's dimensions in turn would, at every code width", () => {
    // The definition: entry b of position p adds, lowest bits first, the query's product with each dimension's level.
    const plain = (q: Float32Array, bits: number) => {
      const perByte = 8 / bits
      const table = new Float64Array(Math.ceil(q.length / perByte) * 256)
      for (let p = 0; p < table.length / 256; p++) {
        for (let b = 0; b < 256; b++) {
          let dot = 0
          for (let j = 0; j < perByte && p * perByte + j < q.length; j++) {
            const code = (b >> (j * bits)) & ((1 << bits) - 1)
            dot += q[p * perByte + j] * (bits === 8 ? (code << 24) >> 24 : levelsOf(bits).levels[code])
          }
          table[p * 256 + b] = dot
        }
      }
      return table
    }
    const coordinate = fc.oneof(fc.float({ noNaN: true, noDefaultInfinity: true }), fc.float({ min: -1, max: 1, noNaN: true }), fc.constantFrom(0, -0, 1e-40, -1e-40))
    fc.assert(
      fc.property(fc.array(coordinate, { minLength: 1, maxLength: 70 }), fc.constantFrom(1, 2, 4, 8), (xs, bits) => {
        const q = Float32Array.from(xs)
        const want = plain(q, bits)
        const got = lookupTable(q, bits)
        expect(got.length).toBe(want.length)
        for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) expect([i, got[i]]).toEqual([i, want[i]])
      }),
      { numRuns: 300 },
    )
  })

  it('is exact for a query along the stored vector and near the int8 cosine otherwise', () => {
    fc.assert(
      fc.property(spreadOf(512), spreadOf(512), (a, b) => {
        const stored = quantize(a)
        expect(indexCosine(a, stored)).toBeCloseTo(cosine(a, stored), 2)
        // The mixed query has a known cosine with the stored vector; 2-bit codes keep it within a few hundredths.
        const mixed = unit(Array.from(a, (x, i) => x + b[i]))
        expect(Math.abs(indexCosine(mixed, stored) - cosine(mixed, stored))).toBeLessThan(CODE_BITS >= 2 ? 0.08 : 0.15)
      }),
      { numRuns: 60 },
    )
  })

  it('is the plain int8 cosine at 8 bits', () => {
    fc.assert(
      fc.property(vectorOf(48), vectorOf(48), (q, v) => {
        expect(indexCosine(q, quantize(v), 8)).toBeCloseTo(cosine(q, quantize(v)), 6)
      }),
    )
  })

  it('holds a 512-d agent in under 150 bytes and stops growing at MAX_VECTORS', () => {
    const index = new VectorIndex('e')
    const vec = quantize(unit(Array.from({ length: 512 }, (_, i) => Math.sin(i))))
    expect(compact(vec).packed.length).toBe((512 * CODE_BITS) / 8)
    const n = MAX_VECTORS + 500
    index.apply(Array.from({ length: n }, (_, i) => ({ rowid: i + 1, embedder: 'e', vec, seq: i + 1 })))
    expect(index.count).toBe(MAX_VECTORS)
    expect(index.bytes / MAX_VECTORS).toBeLessThan(150)
    // A removed agent frees its slot for the next one, and the moved agent keeps its cosine.
    const q = unit(Array.from({ length: 512 }, (_, i) => Math.cos(i)))
    const before = index.cosineOf(q, MAX_VECTORS)
    index.apply([{ rowid: 1, embedder: 'e', vec: null, seq: n + 1 }])
    expect(index.cosineOf(q, 1)).toBeNull()
    expect(index.cosineOf(q, MAX_VECTORS)).toBe(before)
    index.apply([{ rowid: n + 7, embedder: 'e', vec, seq: n + 2 }])
    expect(index.cosineOf(q, n + 7)).toBe(before)
  })

  it('gives the very cosine of scoring each agent alone, reading its codes a word at a time or byte by byte', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }).chain((d) => fc.tuple(vectorOf(d), fc.array(vectorOf(d), { minLength: 1, maxLength: 12 }))),
        ([q, stored]) => {
          const index = new VectorIndex('e')
          const codes = stored.map(quantize)
          index.apply(codes.map((vec, i) => ({ rowid: 1 + i, embedder: 'e', vec, seq: i + 1 })))
          codes.forEach((v, i) => expect(index.cosineOf(q, 1 + i)).toBe(indexCosine(q, v)))
        },
      ),
    )
  })

  it('finds the same nearest agents as scoring each one alone', () => {
    const index = new VectorIndex('e')
    const vectors = Array.from({ length: 300 }, (_, i) => quantize(unit(Array.from({ length: 64 }, (_, d) => Math.sin(i * 7.1 + d * (1 + (i % 5)))))))
    index.apply(vectors.map((vec, i) => ({ rowid: 10 + i, embedder: 'e', vec, seq: i + 1 })))
    const q = unit(Array.from({ length: 64 }, (_, d) => Math.cos(d / 3)))
    const expected = vectors
      .map((v, i) => ({ rowid: 10 + i, cos: indexCosine(q, v) }))
      .sort((a, b) => b.cos - a.cos || a.rowid - b.rowid)
      .slice(0, 20)
    expect(index.nearest(q, 20)).toEqual(expected)
  })
})

describe("what the index knows of an agent's direction", () => {
  it('decodes any stored bytes to a unit vector or nothing, at every code width', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }).chain((d) => fc.int8Array({ minLength: d, maxLength: d })),
        fc.constantFrom(1, 2, 4, 8),
        (v, bits) => {
          const c = compact(v, bits)
          const u = decodeUnit(c.packed, 0, v.length, c.scale, bits)
          if (v.every((x) => x === 0)) {
            expect(u).toBeNull()
            return
          }
          expect(u!.length).toBe(v.length)
          expect(Math.hypot(...u!)).toBeCloseTo(1, 5)
          // Along its own codes the index's cosine is 1 (the estimate is exact there, then clamped).
          expect(indexCosine(u!, v, bits)).toBeGreaterThan(0.999)
        },
      ),
      {
        numRuns: 300,
        examples: [
          [new Int8Array([-128, -128]), 2],
          [new Int8Array(3), 2],
          [new Int8Array([0, 0, 5]), 8],
        ],
      },
    )
  })

  it('decodes 8-bit codes to the stored vector itself', () => {
    fc.assert(
      fc.property(vectorOf(40), (v) => {
        const codes = quantize(v)
        const c = compact(codes, 8)
        const norm = Math.hypot(...codes)
        decodeUnit(c.packed, 0, 40, c.scale, 8)!.forEach((x, i) => expect(x).toBeCloseTo(codes[i] / norm, 6))
      }),
    )
  })

  it("gives an agent's decoded vector by rowid, and the best cosine outside any set of agents", () => {
    fc.assert(
      fc.property(fc.array(spreadOf(32), { minLength: 1, maxLength: 40 }), spreadOf(32), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (vs, q, inside) => {
        const index = new VectorIndex('e')
        const codes = vs.map(quantize)
        index.apply(codes.map((vec, i) => ({ rowid: 3 + i, embedder: 'e', vec, seq: i + 1 })))
        codes.forEach((v, i) => {
          const c = compact(v)
          expect(index.vectorOf(3 + i)).toEqual(decodeUnit(c.packed, 0, 32, c.scale))
        })
        expect(index.vectorOf(2)).toBeNull()
        const set = new Set(codes.map((_, i) => 3 + i).filter((_, i) => inside[i]))
        const outside = codes.filter((_, i) => !inside[i]).map((v) => indexCosine(q, v))
        expect(index.bestOutside(q, set)).toBe(Math.max(0, ...outside))
      }),
      { numRuns: 100 },
    )
  })
})

describe('the search state', () => {
  it('drops what older catalogs left once a search sees a newer one, and keeps query vectors', () => {
    const list = { rowids: new Uint32Array([1, 2]), values: new Float64Array([0.5]), at: new Uint8Array([0, 0]) }
    const row = { name: 'n', description: 'd', parameters: '{}', workflow: '{}', param_text: '' } as never
    sawCatalog('e1:10:3')
    cached.setList('e1:3', '"word"', list)
    cached.setTypo('e1:3', 'wrod', ['word'])
    cached.setPage('e1:10:3', '10|0|word', [row])
    cached.setVector('emb', 'word', new Float32Array(4))
    // Popularity moved: the page is of an older catalog, the list and correction still hold.
    sawCatalog('e1:11:3')
    expect(cached.page('e1:10:3', '10|0|word')).toBeUndefined()
    expect(cached.list('e1:3', '"word"')).toBe(list)
    // An older version seen late changes nothing.
    sawCatalog('e1:9:2')
    expect(cached.list('e1:3', '"word"')).toBe(list)
    // Agent text moved: corrections go; the list is kept as read at its version, for search to bound (stale-lists.ts).
    sawCatalog('e1:12:4')
    expect(cached.list('e1:3', '"word"')).toBe(list)
    expect(cached.list('e1:4', '"word"')).toBeUndefined()
    expect(cached.latestList('"word"')?.index).toBe('e1:3')
    expect(cached.typo('e1:3', 'wrod')).toBeUndefined()
    expect(cached.vector('emb', 'word')).toBeInstanceOf(Float32Array)
    // An older read of the phrase does not replace a newer one.
    cached.setList('e1:2', '"word"', { ...list, rowids: new Uint32Array([1, 3]) })
    expect(cached.list('e1:3', '"word"')).toBe(list)
    // Another epoch (the catalog started over): lists of the old one go too.
    sawCatalog('e2:1:1')
    expect(cached.latestList('"word"')).toBeUndefined()
    const memory = searchMemory()
    expect(memory.relevance_lists).toBe(0)
    expect(memory.query_vectors).toBeGreaterThan(0)
  })

  it('drops exactly the entries the rule names, whatever the cache holds (property)', () => {
    const list = { rowids: new Uint32Array([1]), values: new Float64Array([0.5]), at: new Uint8Array([0]) }
    type Held = { kind: 'page' | 'list' | 'typo' | 'vocabularyTypo' | 'wide' | 'vector'; epoch: 'own' | 'other'; version: number; index: number; what: string }
    const held = fc.record({
      kind: fc.constantFrom('page' as const, 'list' as const, 'typo' as const, 'vocabularyTypo' as const, 'wide' as const, 'vector' as const),
      epoch: fc.constantFrom('own' as const, 'other' as const),
      version: fc.integer({ min: 1, max: 6 }),
      index: fc.integer({ min: 1, max: 3 }),
      what: fc.stringMatching(/^[a-z]{1,6}$/),
    })
    let run = 0
    fc.assert(
      fc.property(
        fc.uniqueArray(held, { selector: (h) => `${h.kind}|${h.what}`, maxLength: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 6 }),
        (entries: Held[], seenIndex, seenWords) => {
          const own = `own${++run}`
          const epochOf = (h: Held) => (h.epoch === 'own' ? own : `other${run}`)
          sawCatalog(`${own}:1:1`)
          sawVocabulary(`${own}:1:0`)
          const catalogOf = (h: Held) => `${epochOf(h)}:${h.version}:${h.index}`
          const indexOf = (h: Held) => `${epochOf(h)}:${h.index}`
          const put = (h: Held) =>
            ({
              page: () => cached.setPage(catalogOf(h), h.what, []),
              list: () => cached.setList(indexOf(h), h.what, list),
              typo: () => cached.setTypo(indexOf(h), h.what, ['x']),
              vocabularyTypo: () => cached.setTypo(`${epochOf(h)}:w${h.version}`, h.what, ['x']),
              wide: () => cached.setWide(indexOf(h), h.what),
              vector: () => cached.setVector(`emb${run}`, h.what, new Float32Array(1)),
            })[h.kind]()
          const there = (h: Held) =>
            ({
              page: () => cached.page(catalogOf(h), h.what) !== undefined,
              list: () => cached.latestList(h.what)?.index === indexOf(h),
              typo: () => cached.typo(indexOf(h), h.what) !== undefined,
              vocabularyTypo: () => cached.typo(`${epochOf(h)}:w${h.version}`, h.what) !== undefined,
              wide: () => cached.wide(indexOf(h), h.what) !== undefined,
              vector: () => cached.vector(`emb${run}`, h.what) !== undefined,
            })[h.kind]()
          entries.forEach(put)
          // A newer catalog of the own epoch; its index moved unless it is still 1.
          const seen = `${own}:6:${seenIndex}`
          sawCatalog(seen)
          const indexMoved = seenIndex !== 1
          for (const h of entries) {
            const kept = {
              page: catalogOf(h) === seen,
              list: h.epoch === 'own',
              typo: !indexMoved || indexOf(h) === `${own}:${seenIndex}`,
              vocabularyTypo: h.epoch === 'own' || !indexMoved,
              wide: !indexMoved || indexOf(h) === `${own}:${seenIndex}`,
              vector: true,
            }[h.kind]
            expect(there(h), `${h.kind} ${JSON.stringify(h)}`).toBe(kept)
          }
          // A newer vocabulary (unless still version 0) drops the corrections kept under any other one, nothing else.
          const before = entries.map(there)
          sawVocabulary(`${own}:${seenIndex}:${seenWords}`)
          entries.forEach((h, i) => {
            const dropped = h.kind === 'vocabularyTypo' && seenWords !== 0 && `${epochOf(h)}:w${h.version}` !== `${own}:w${seenWords}`
            expect(there(h), `after the vocabulary: ${h.kind} ${JSON.stringify(h)}`).toBe(before[i] && !dropped)
          })
        },
      ),
      { numRuns: 200 },
    )
  })
})
