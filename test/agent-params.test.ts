import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { validateAgentParams } from '../src/agents/invoke'
import { convertParam, type Parameters } from '../src/agents/schema'

/** JSON's number grammar, written out again so the property does not read the code's own pattern. */
const isJsonNumber = (text: string) => {
  try {
    return typeof JSON.parse(text) === 'number' && /^[-0-9]/.test(text) && !/\s/.test(text)
  } catch {
    return false
  }
}

const params = (type: 'number' | 'integer'): Parameters => ({ type: 'object', properties: { n: { type, description: '' } }, required: ['n'], additionalProperties: false })

describe('number and integer agent parameters', () => {
  it('take text only when it is a JSON number, and integers only when exact', () => {
    const numberish = fc.oneof(
      fc.double().map(String),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      fc.constantFrom(
        '0x1F',
        '0b101',
        '0o17',
        'Infinity',
        '-Infinity',
        'NaN',
        '1e2',
        '1E+2',
        '-0',
        '00',
        '01',
        '.5',
        '5.',
        '+5',
        '1_000',
        ' 12 ',
        '\t7\n',
        '',
        ' ',
        '9007199254740993',
        '1e400',
        '-1e-400',
      ),
      fc.string(),
    )
    fc.assert(
      fc.property(numberish, fc.constantFrom('number' as const, 'integer' as const), (text, type) => {
        const got = convertParam(type, text)
        const trimmed = text.trim()
        const want = isJsonNumber(trimmed) && Number.isFinite(Number(trimmed)) && (type === 'number' || Number.isSafeInteger(Number(trimmed))) ? Number(trimmed) : undefined
        expect(got).toBe(want)
        if (got === undefined) expect(() => validateAgentParams(params(type), { n: text }, 'input')).toThrow(/Expected an? (number|integer)/)
      }),
      { numRuns: 2000 },
    )
  })

  it('take JSON numbers as they are, integers only when exact in a double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (n) => {
        expect(convertParam('number', n)).toBe(Number.isFinite(n) ? n : undefined)
        expect(convertParam('integer', n)).toBe(Number.isSafeInteger(n) ? n : undefined)
      }),
      { numRuns: 2000 },
    )
    expect(convertParam('integer', 2 ** 53)).toBeUndefined()
    expect(convertParam('integer', 1e300)).toBeUndefined()
    expect(convertParam('integer', '0x1F')).toBeUndefined()
    expect(convertParam('number', ' 1.5e3 ')).toBe(1500)
  })
})
