import { describe, expect, it } from 'vitest'
import { blendedScore, partScore } from '../src/agents/ranking'
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
})
