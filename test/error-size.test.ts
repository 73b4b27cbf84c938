import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_ERROR_DETAILS, shownError } from '../src/http/errors'
import { bodyOperations, bodyWith, sendBody, slots, type BodyOperation } from './contract/bodies'
import { mockFetch, newCaller, type Json } from './helpers'

/**
 * Error answers stay small whatever the body. Details and messages name the caller's own fields and
 * keys: a body of 80,000 unknown keys was answered with 5 MB of details (one per key), and a key of a
 * megabyte came back in the message, in the detail's path and in its message.
 */

let token: string
let operations: BodyOperation[] = []

beforeAll(async () => {
  token = (await newCaller('error size', { perMinute: 1_000_000, perDay: 10_000_000 })).token
  operations = await bodyOperations()
})

/** JSON text of values that make many or long error details, each within MAX_BODY_BYTES. */
const amplifier = fc.constantFrom(
  { name: '80,000 keys', text: `{${Array.from({ length: 80_000 }, (_, i) => `"k${i}":1`).join(',')}}` },
  { name: '200,000 elements', text: `[${Array(200_000).fill('{"k":1}').join(',')}]` },
  { name: 'a key of 900,000 characters', text: `{"${'k'.repeat(900_000)}":1}` },
  { name: 'a key of 150,000 control characters', text: `{"${'\\u0001'.repeat(150_000)}":1}` },
  { name: 'a string of 900,000 characters', text: `"${'s'.repeat(900_000)}"` },
)

describe('error answers', () => {
  it('show at most 100 details, each cut to 200 + 500 characters, and a message of at most 4,000, for any body (every operation, 8 runs each)', async () => {
    mockFetch(() => new Response('not here', { status: 404 }))
    let errors = 0
    let largest = 0
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...op.examples).chain((example) => fc.record({ example: fc.constant(example), slot: fc.constantFrom(...slots(example), []) })),
          amplifier,
          async ({ example, slot }, amp) => {
            // The empty slot stands for the whole body: the amplifier's own keys become the body's fields.
            const body = slot.length === 0 ? (amp.text.startsWith('{') ? amp.text : `{"zz":${amp.text}}`) : bodyWith(example, slot, amp.text)
            const r = await sendBody(op, body, token, 'error-size')
            const where = `${op.method} ${op.path} ${amp.name} at /${slot.join('/')}: ${r.status} ${r.text.slice(0, 200)}`
            expect(r.status, where).toBeLessThan(500)
            if (r.status < 400) return
            errors++
            largest = Math.max(largest, r.text.length)
            // POST /mcp answers its transport's errors as JSON-RPC.
            const message: string = typeof r.body.error === 'string' ? r.body.error : r.body.error.message
            expect(message.length, where).toBeLessThanOrEqual(4001)
            const details: Json[] = r.body.details ?? []
            expect(details.length, where).toBeLessThanOrEqual(MAX_ERROR_DETAILS)
            for (const d of details) {
              expect(d.path.length, where).toBeLessThanOrEqual(201)
              expect(d.message.length, where).toBeLessThanOrEqual(501)
            }
            if (!amp.name.includes('control')) expect(r.text.length, where).toBeLessThan(64 * 1024)
          },
        ),
        { numRuns: 8, seed: 20261129 },
      )
    }
    console.log(`error size: ${errors} error answers over ${operations.length} operations, the largest ${largest} characters`)
    expect(errors).toBeGreaterThan(operations.length)
  }, 600_000)

  it('keep any message and details within the bounds, as prefixes of the whole texts, cut between code points (2,000 runs)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 6000 }), fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.constantFrom('', '😀'.repeat(2500)))
    const lone = (t: string) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(t)
    const within = (whole: string, shown: string, max: number) => {
      if (whole.length <= max) return expect(shown).toBe(whole)
      expect(shown.endsWith('…')).toBe(true)
      const kept = shown.slice(0, -1)
      expect(kept.length).toBeLessThanOrEqual(max)
      expect(whole.startsWith(kept)).toBe(true)
      // A cut that splits no pair adds no lone surrogate.
      if (!lone(whole)) expect(lone(kept)).toBe(false)
    }
    fc.assert(
      fc.property(text, fc.array(fc.record({ path: text, message: text }), { maxLength: 150 }), (message, details) => {
        const shown = shownError(message, details)
        within(message, shown.message, 4000)
        expect(shown.details).toHaveLength(Math.min(details.length, MAX_ERROR_DETAILS))
        shown.details.forEach((d, i) => {
          within(details[i].path, d.path, 200)
          within(details[i].message, d.message, 500)
        })
      }),
      { numRuns: 2000, seed: 20261129 },
    )
  })

  it('still count every failing field in the message, and cut text between code points', () => {
    const details = Array.from({ length: 80_000 }, (_, i) => ({ path: `/k${i}`, message: `Unknown field "k${i}"` }))
    const shown = shownError('Invalid request: ... (and 79995 more)', details)
    expect(shown.details).toHaveLength(MAX_ERROR_DETAILS)
    expect(shown.details[99]).toEqual(details[99])
    expect(shown.message).toContain('79995 more')
    const emoji = shownError('😀'.repeat(3000), [{ path: `/${'😀'.repeat(150)}`, message: 'x' }])
    expect(emoji.message).toBe(`${'😀'.repeat(2000)}…`)
    expect(emoji.details[0].path).toBe(`/${'😀'.repeat(99)}…`)
    expect(shownError('short', [{ path: '/a', message: 'b' }])).toEqual({ message: 'short', details: [{ path: '/a', message: 'b' }] })
  })
})
