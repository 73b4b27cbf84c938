import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseList, type PhraseList } from '../src/db/agents'
import { sumLists } from '../src/agents/relevance'

/** A list as the SQL carries it: agents grouped by relevance, groups and agents in no particular order. */
function text(pairs: [number, number][]): string {
  const groups = new Map<number, number[]>()
  for (const [r, v] of [...pairs].reverse()) groups.set(v, [...(groups.get(v) ?? []), r])
  return [...groups].map(([v, ids]) => `${v.toPrecision(17)}:${ids.join(' ')}`).join(';')
}
const rels = (l: PhraseList) => Array.from(l.at, (k) => l.values[k])

describe('compact relevance lists', () => {
  it('keeps every rowid and relevance exactly, with one value per distinct relevance', () => {
    const pairs: [number, number][] = Array.from({ length: 1000 }, (_, i) => [3 * i + 1, [1.25, Math.PI, 1 / 3][i % 3]])
    const list = parseList(text(pairs))
    expect(Array.from(list.rowids)).toEqual(pairs.map((p) => p[0]))
    expect(rels(list)).toEqual(pairs.map((p) => p[1]))
    expect(list.values.length).toBe(3)
    expect(list.at).toBeInstanceOf(Uint8Array)
    expect(list.rowids).toBeInstanceOf(Uint32Array)
  })

  it('widens the index past 256 distinct values and the rowids past 32 bits', () => {
    const pairs: [number, number][] = Array.from({ length: 300 }, (_, i) => [2 ** 32 + i, 1 + i / 7])
    const list = parseList(text(pairs))
    expect(list.at).toBeInstanceOf(Uint16Array)
    expect(list.rowids).toBeInstanceOf(Float64Array)
    expect(Array.from(list.rowids)).toEqual(pairs.map((p) => p[0]))
    expect(rels(list)).toEqual(pairs.map((p) => p[1]))
  })

  it('orders rowids too large to key with their group', () => {
    const pairs: [number, number][] = Array.from({ length: 20 }, (_, i) => [2 ** 50 + 7 * i, [0.5, 2.5, 1 / 7][i % 3]])
    const list = parseList(text(pairs))
    expect(Array.from(list.rowids)).toEqual(pairs.map((p) => p[0]))
    expect(rels(list)).toEqual(pairs.map((p) => p[1]))
  })

  it('reads any list text, however its groups and rowids are ordered, as the rowid-sorted pairs', () => {
    const rowid = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 2 ** 32 + 5 }), fc.integer({ min: 2 ** 52, max: Number.MAX_SAFE_INTEGER - 1 }))
    const value = fc.oneof(fc.double({ min: 1e-9, max: 40, noNaN: true }), fc.constantFrom(0.5, 1 / 3, Math.PI, 2.2e-6))
    const list = fc.uniqueArray(rowid, { minLength: 1, maxLength: 300 }).chain((ids) =>
      fc.record({
        ids: fc.constant(ids),
        values: fc.uniqueArray(value, { minLength: 1, maxLength: 12 }),
        picks: fc.array(fc.nat(), { minLength: ids.length, maxLength: ids.length }),
        groupOrder: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        ascending: fc.boolean(),
      }),
    )
    fc.assert(
      fc.property(list, ({ ids, values, picks, groupOrder, ascending }) => {
        const pairs = ids.map((r, i): [number, number] => [r, values[picks[i] % values.length]])
        // As SQL groups them: each group's rowids ascending (or, to reach the sorting path, not), groups in any order.
        const groups = [...Map.groupBy(pairs, (p) => p[1])].map(([v, ps], j) => ({ v, rs: ps.map((p) => p[0]), key: groupOrder[j] }))
        const text = groups
          .sort((x, y) => x.key - y.key)
          .map(({ v, rs }) => `${v.toPrecision(17)}:${(ascending ? rs.sort((x, y) => x - y) : rs.sort((x, y) => y - x)).join(' ')}`)
          .join(';')
        const want = [...pairs].sort((x, y) => x[0] - y[0])
        const read = parseList(text)
        expect(Array.from(read.rowids)).toEqual(want.map((p) => p[0]))
        expect(rels(read)).toEqual(want.map((p) => Number(p[1].toPrecision(17))))
      }),
      { numRuns: 300 },
    )
  })

  it('reads an empty list', () => {
    for (const empty of [null, '']) expect(parseList(empty).rowids.length).toBe(0)
  })

  it('adds lists in phrase order, by the dense and the merging path alike', () => {
    const a = parseList(
      text([
        [1, 0.1],
        [5, 0.2],
        [9, 0.3],
      ]),
    )
    const b = parseList(
      text([
        [5, 0.7],
        [9, 0.1],
        [12, 0.6],
      ]),
    )
    const dense = sumLists([
      { expr: '"a"', list: a },
      { expr: '"b"', list: b },
    ])
    const order = Array.from(dense.rowids, (r, i) => [r, dense.rels[i]] as const).sort((x, y) => x[0] - y[0])
    expect(order).toEqual([
      [1, 0.1],
      [5, 0.2 + 0.7],
      [9, 0.3 + 0.1],
      [12, 0.6],
    ])
    const far = parseList(text([[5_000_000, 0.5]]))
    const merged = sumLists([
      { expr: '"a"', list: a },
      { expr: '"c"', list: far },
    ])
    expect(Array.from(merged.rowids)).toEqual([1, 5, 9, 5_000_000])
    expect(Array.from(merged.rels)).toEqual([0.1, 0.2, 0.3, 0.5])
    expect(merged.match).toBe('"a" OR "c"')
  })
})
