import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonPrefix, jsonSize } from '../src/lib/json-size'
import { cutChars, duplicateKey, squash } from '../src/lib/text'

describe('cuts between code points', () => {
  it('keeps the longest prefix within the byte limit, never half a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', '語', '😀', '\u0001', '"', '\n'), maxLength: 60 }), fc.integer({ min: 0, max: 200 }), (text, max) => {
        const kept = jsonPrefix(text, max)
        expect(text.startsWith(kept)).toBe(true)
        expect(kept.isWellFormed()).toBe(true)
        expect(jsonSize(kept) - 2).toBeLessThanOrEqual(max)
        // Maximal: the next code point would not fit.
        if (kept !== text) expect(jsonSize(text.slice(0, kept.length + (text.codePointAt(kept.length)! > 0xffff ? 2 : 1))) - 2).toBeGreaterThan(max)
      }),
      { numRuns: 2000 },
    )
    expect(jsonPrefix('ab😀c', 5)).toBe('ab')
    expect(jsonPrefix('ab😀c', 6)).toBe('ab😀')
  })

  it('cuts a character count one short rather than inside a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '😀'), maxLength: 40 }), fc.integer({ min: 1, max: 50 }), (text, n) => {
        const kept = cutChars(text, n)
        expect(text.startsWith(kept)).toBe(true)
        expect(kept.isWellFormed()).toBe(true)
        expect(kept.length).toBeGreaterThanOrEqual(Math.min(text.length, n) - 1)
        expect(kept.length).toBeLessThanOrEqual(n)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('duplicate keys', () => {
  it('match exactly when the squashed lower-case texts do, short or long', () => {
    const word = fc.constantFrom('Tent', 'tent', 'TENT', ' ', '  ', 'x', 'é', '😀')
    const text = fc.oneof(
      fc.array(word, { maxLength: 8 }).map((w) => w.join('')),
      // Past the literal key's length: keyed by a hash of the whole text.
      fc.tuple(fc.array(word, { maxLength: 4 }), fc.integer({ min: 200, max: 600 })).map(([w, n]) => 'a'.repeat(n) + w.join('')),
    )
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(duplicateKey(a) === duplicateKey(b)).toBe(squash(a).toLowerCase() === squash(b).toLowerCase())
        expect(duplicateKey(a) === '').toBe(squash(a) === '')
      }),
      { numRuns: 3000 },
    )
  })
})
