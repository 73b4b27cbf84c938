import { describe, expect, it } from 'vitest'
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
})
