import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonPrefix, jsonSize } from '../src/lib/json-size'
import { formatSubject } from '../src/actions/meeting_prep_subject/parse'
import { cutChars, decodeEntities, duplicateKey, encodeUri, encodeUriPart, encodeUriText, pathSegment, squash } from '../src/lib/text'
import { timelineSvg } from '../src/research/timeline'

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

describe('character references', () => {
  const fragment = fc.oneof(
    fc.constantFrom(
      '&#xD800;',
      '&#xdfff;',
      '&#55296;',
      '&#0;',
      '&#x0;',
      '&#x110000;',
      '&#1114112;',
      '&#99999999999999999999999;',
      '&#x10FFFF;',
      '&#128512;',
      '&#x1F600;',
      '&amp;',
      '&nbsp;',
      '&bogus;',
      '&',
      ';',
      '#',
      '\ud83d\ude00',
    ),
    fc.string({ maxLength: 3 }),
  )

  // Failed before: "&#xD800;" decoded to a lone surrogate, which encodeURIComponent and UTF-8 refuse
  // (a crawled page's title or link, a caption, a link card's text).
  it('decodes a reference to no character as U+FFFD, so well-formed text stays well-formed (2,000 runs)', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const text = parts.join('')
        fc.pre(text.isWellFormed())
        expect(decodeEntities(text).isWellFormed()).toBe(true)
      }),
      { numRuns: 2000 },
    )
    expect(decodeEntities('a&#xD800;b&#0;c&#x110000;d&#x1F600;e&#233;')).toBe('a\ufffdb\ufffdc\ufffdd😀eé')
    expect(decodeEntities('&amp;lt; &bogus; & ;')).toBe('&lt; &bogus; & ;')
  })
})

describe('display cuts', () => {
  const text = fc.string({ unit: fc.constantFrom('a', ' ', '😀', '語'), minLength: 50, maxLength: 130 })
  // Failed before: each cut at its length with slice, which can end inside an emoji (a lone surrogate
  // in the subject line and in the timeline's SVG).
  it('cut a subject line and a timeline label between characters (500 runs)', () => {
    fc.assert(
      fc.property(text, (title) => {
        fc.pre(title.trim() !== '')
        expect(formatSubject({ title, date: null, month: null, day: null, weekday: null, time: null, timezone: null, format: 'iso' }).isWellFormed()).toBe(true)
        expect(timelineSvg(title, [{ date: '2024-01-01', label: title, kind: 'news', source: 'https://example.com/' }]).isWellFormed()).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})

describe('URL parts from outside text', () => {
  const text = fc.string({ unit: fc.constantFrom('a', '.', '/', '?', '#', '%', ' ', 'é', '😀', '\ud800', '\udfff'), maxLength: 12 })
  it('make one path segment or none, and never throw (2,000 runs)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const segment = pathSegment(t)
        const part = encodeUriPart(t)
        expect(encodeUriText(t)).not.toContain('/')
        if (!t.isWellFormed()) expect([segment, part, encodeUri(t)]).toEqual([null, null, null])
        if (segment === null) {
          expect(t === '' || /^\.+$/.test(t) || !t.isWellFormed()).toBe(true)
          return
        }
        expect(segment).toBe(part)
        expect(segment).not.toMatch(/[/?#]/)
        expect(decodeURIComponent(segment)).toBe(t)
        expect(new URL(`https://h.example/a/${segment}`).pathname.split('/')).toHaveLength(3)
      }),
      { numRuns: 2000 },
    )
  })
})
