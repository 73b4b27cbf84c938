import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ByteLru } from '../src/lib/lru'

describe('ByteLru', () => {
  it('keeps within its budget, pushing out the least recently used first', () => {
    const lru = new ByteLru<string>(100)
    lru.set('a', 'A', 20)
    lru.set('b', 'B', 20)
    lru.set('c', 'C', 20)
    expect(lru.get('a')).toBe('A') // a is now the most recent
    lru.set('d', 'D', 20)
    lru.set('e', 'E', 15)
    expect(lru.bytes).toBe(95)
    expect(lru.get('b')).toBe('B')
    lru.set('f', 'F', 20) // over budget: c goes, the least recently used
    expect(lru.get('c')).toBeUndefined()
    expect([lru.get('a'), lru.get('b'), lru.get('d'), lru.get('e'), lru.get('f')]).toEqual(['A', 'B', 'D', 'E', 'F'])
    expect(lru.bytes).toBe(95)
  })

  it('counts a value set twice once, and keeps nothing larger than a quarter of the budget', () => {
    const lru = new ByteLru<number>(100)
    lru.set('x', 1, 10)
    lru.set('x', 2, 15)
    expect(lru.bytes).toBe(15)
    expect(lru.get('x')).toBe(2)
    lru.set('big', 3, 26)
    expect(lru.get('big')).toBeUndefined()
    expect(lru.bytes).toBe(15)
  })

  it('behaves as a list in recency order, whatever sets, reads and group drops come (model check)', () => {
    type Op = { op: 'set'; key: string; bytes: number; group: string } | { op: 'get'; key: string } | { op: 'drop'; groups: string[] }
    const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g')
    const group = fc.constantFrom('g1', 'g2', 'g3')
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key, bytes: fc.integer({ min: 0, max: 30 }), group }),
      fc.record({ op: fc.constant('get' as const), key }),
      fc.record({ op: fc.constant('drop' as const), groups: fc.subarray(['g1', 'g2', 'g3']) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const lru = new ByteLru<number>(100)
        // The model: entries oldest first.
        let model: { key: string; value: number; bytes: number; group: string }[] = []
        ops.forEach((o, step) => {
          if (o.op === 'set') {
            if (o.bytes > 25) return lru.set(o.key, step, o.bytes, o.group)
            lru.set(o.key, step, o.bytes, o.group)
            model = [...model.filter((e) => e.key !== o.key), { key: o.key, value: step, bytes: o.bytes, group: o.group }]
            while (model.reduce((t, e) => t + e.bytes, 0) > 100) model.shift()
          } else if (o.op === 'get') {
            const hit = model.find((e) => e.key === o.key)
            expect(lru.get(o.key)).toBe(hit?.value)
            if (hit) model = [...model.filter((e) => e !== hit), hit]
          } else {
            lru.deleteGroups((g) => o.groups.includes(g))
            model = model.filter((e) => !o.groups.includes(e.group))
          }
          expect(lru.bytes).toBe(model.reduce((t, e) => t + e.bytes, 0))
          const held: string[] = []
          lru.forEach((k) => held.push(k))
          expect(held).toEqual(model.map((e) => e.key))
        })
      }),
      { numRuns: 300 },
    )
  })
})
