import { APICallError } from 'ai'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isTransient } from '../../src/http/map-error'
import { toModelError, vendorMessage } from '../../src/providers/llm/errors'

/**
 * A model API's error body as the AI SDK hands it over: typed as text, but not always text (an
 * answer it could not read as JSON of the expected shape gave a TypeError, a 500, before).
 */
describe('the vendor message of an error body', () => {
  it('is a short text or nothing for any value, any JSON text and any JSON nested past the limit (3,000 runs)', () => {
    const body = fc.oneof(
      fc.anything(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 2000 }),
      fc.record({ error: fc.oneof(fc.string({ maxLength: 1000 }), fc.record({ message: fc.anything() })), message: fc.anything() }).map((v) => JSON.stringify(v) ?? ''),
      fc.integer({ min: 129, max: 20_000 }).map((n) => `{"error":${'['.repeat(n)}${']'.repeat(n)}}`),
    )
    fc.assert(
      fc.property(body, (b) => {
        const m = vendorMessage(b)
        if (m === undefined) return
        expect(typeof m).toBe('string')
        expect(m.length).toBeLessThanOrEqual(300)
      }),
      { numRuns: 3000, seed: 20261129 },
    )
  })

  it("reads OpenAI's and Anthropic's {error:{message}} and a bare message", () => {
    expect(vendorMessage('{"error":{"message":"Incorrect API key"}}')).toBe('Incorrect API key')
    expect(vendorMessage('{"error":"overloaded"}')).toBe('overloaded')
    expect(vendorMessage('{"message":"slow down"}')).toBe('slow down')
    expect(vendorMessage({ error: { message: 'an object' } })).toBeUndefined()
  })
})

describe('a model answer of success status the SDK cannot read', () => {
  it.each([
    ['Invalid JSON response', '{"id":"resp_1","object":"response","output":"not a list"}'],
    ['Invalid JSON response', ''],
    ['Type validation failed: Value: {"id":"resp_1","output":"not a list"}.', '{"id":"resp_1","output":"not a list"}'],
  ])('is an invalid answer naming the vendor, not "answered 200" with the raw body, and is not retried (%s %s)', (message, responseBody) => {
    const err = toModelError(new APICallError({ message, url: 'https://api.openai.com/v1/responses', requestBodyValues: {}, statusCode: 200, responseBody }), 'OpenAI', 'OPENAI_API_KEY')
    expect(err).toMatchObject({ name: 'UpstreamError', kind: 'invalid', message: 'OpenAI answered with a response of an unexpected shape (HTTP 200)' })
    expect(isTransient(err)).toBe(false)
  })
})
