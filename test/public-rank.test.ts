import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blendedScore, partScore, POPULARITY_WEIGHT, relevancePart } from '../src/agents/ranking'
import { ownPopularityMatches } from '../src/agents/search'
import { catalogPoint, rankPublic } from '../src/agents/public-rank'
import { seededRandom } from './seeded'

const rand = seededRandom(3)

/** Matches over rowids 1..n with few distinct relevances and execution counts, so ties abound. */
function catalog(n: number, scale: 'bm25' | 'part' = 'bm25') {
  const rowids = new Float64Array(n).map((_, i) => i + 1)
  const values = scale === 'bm25' ? [2.5, 4, 4, 7.25] : [0.31, 0.4, 0.4, 0.415]
  const rels = new Float64Array(n).map(() => values[Math.floor(rand() * 4)])
  const executions = new Float64Array(n + 1).map(() => (rand() < 0.2 ? -1 : [0, 3, 3, 900][Math.floor(rand() * 4)]))
  return { m: { rowids, rels, match: '', scale }, executions }
}

/** Every visible match scored and sorted: what the SQL ranking returns. */
function sorted(m: { rowids: Float64Array; rels: Float64Array; scale: 'bm25' | 'part' }, executions: Float64Array) {
  const score = m.scale === 'part' ? partScore : blendedScore
  return Array.from(m.rowids, (rowid, i) => ({ rowid, raw: score(m.rels[i], executions[rowid]), executions: executions[rowid] }))
    .filter((r) => r.executions >= 0)
    .sort((a, b) => b.raw - a.raw || b.executions - a.executions || a.rowid - b.rowid)
}

describe('public ranking in the Worker', () => {
  it('gives the best k of a full sort, ties broken by executions then rowid, for small and large k', () => {
    const { m, executions } = catalog(3000)
    const all = sorted(m, executions)
    for (const k of [1, 10, 64, 100, 1000, 1001, 5000]) expect(rankPublic(m, executions, k)).toEqual(all.slice(0, k))
    expect(rankPublic(m, executions, 0)).toEqual([])
  })

  it('gives the best k of a full sort for fused relevance parts, whose popularity lifts past near ties', () => {
    const { m, executions } = catalog(3000, 'part')
    const all = sorted(m, executions)
    for (const k of [1, 10, 64, 100, 1000, 1001, 5000]) expect(rankPublic(m, executions, k)).toEqual(all.slice(0, k))
  })

  it('leaves out agents that are not public, including rowids past the state', () => {
    const m = { rowids: Float64Array.from([1, 2, 9]), rels: Float64Array.from([5, 6, 7]), match: '', scale: 'bm25' as const }
    expect(rankPublic(m, Float64Array.from([-1, 0, -1]), 10).map((r) => r.rowid)).toEqual([1])
  })

  it('reads the catalog point of a token read', () => {
    expect(catalogPoint('ab12:41:7')).toEqual({ index: 'ab12:7', version: 41 })
    expect(catalogPoint('ab12:41')).toBeNull()
  })

  it('reads wide or stale words for a set of agents outside which no visible agent can score above the bound it reports', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 2, noNaN: true }), fc.boolean(), fc.integer(), (n, k, bound, wide, seed) => {
        const r = seededRandom(seed)
        const rowids = new Float64Array(n).map((_, i) => 1 + i * 2)
        const rels = new Float64Array(n).map(() => [0.001, 0.5, 3, 9.75, r() * 12][Math.floor(r() * 5)])
        const executions = new Float64Array(2 * n + 2).map(() => (r() < 0.15 ? -1 : [0, 2, 40, 2000, Math.floor(r() * 5000)][Math.floor(r() * 5)]))
        const chosen = ownPopularityMatches({ rowids, rels, match: '', scale: 'bm25' }, executions, k, bound, wide)
        if (!chosen) return
        const picked = new Set(chosen.rowids)
        const upper = Array.from(rowids, (rowid, i) => (executions[rowid] < 0 ? -Infinity : blendedScore(rels[i] + bound, executions[rowid])))
        upper.forEach((u, i) => {
          if (!picked.has(rowids[i])) expect(u).toBeLessThanOrEqual(chosen.above)
        })
        // An agent matching only the wide words has relevance below the bound.
        if (wide) expect(chosen.above).toBeGreaterThanOrEqual(relevancePart(bound) + POPULARITY_WEIGHT)
        // At least the 2k + 20 best, and every pick above what is left out.
        expect(chosen.rowids.length).toBeGreaterThanOrEqual(2 * k + 20)
        for (const rowid of chosen.rowids) expect(upper[(rowid - 1) / 2]).toBeGreaterThan(chosen.above)
      }),
      { numRuns: 300 },
    )
  })
})
