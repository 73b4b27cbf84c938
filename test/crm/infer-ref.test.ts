import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { identifierShape, inferRef, normalizeDomain, normalizeEmail } from '../../src/crm/input'
import { OBJECT_TYPES } from '../../src/crm/types'

const crmId = fc.stringMatching(/^\d{1,20}$/)
const objectType = fc.constantFrom(...OBJECT_TYPES)

/** What inferRef made of a value, or the 400's field when it refused. */
function outcome(type: (typeof OBJECT_TYPES)[number], value: string): string {
  try {
    return inferRef(type, value, 'object_id').by
  } catch (err) {
    return `error ${(err as { details?: { path: string }[] }).details?.[0]?.path}`
  }
}

describe('reading a lookup object_id by its shape', () => {
  it('reads digits as a CRM ID for every object type', () => {
    fc.assert(
      fc.property(objectType, crmId, (type, id) => {
        expect(inferRef(type, id, 'object_id')).toEqual({ by: 'id', value: id })
      }),
    )
  })

  it('reads an email as a contact email, and refuses it for every other type', () => {
    fc.assert(
      fc.property(objectType, fc.emailAddress(), (type, email) => {
        fc.pre(normalizeEmail(email) !== null)
        expect(outcome(type, email)).toBe(type === 'contacts' ? 'email' : 'error /object_id')
      }),
      { numRuns: 1000 },
    )
  })

  it('reads a domain as a company domain, and refuses it for every other type', () => {
    fc.assert(
      fc.property(objectType, fc.domain(), fc.constantFrom('', 'https://', 'http://www.'), (type, domain, prefix) => {
        fc.pre(normalizeDomain(domain) !== null)
        expect(outcome(type, prefix + domain)).toBe(type === 'companies' ? 'domain' : 'error /object_id')
      }),
      { numRuns: 1000 },
    )
  })

  it('never reads an email as a domain or a domain as an email, even emails whose local part looks like a URL path', () => {
    const trickyEmail = fc.tuple(fc.domain(), fc.constantFrom('/', '#', '?', ':'), fc.domain(), fc.domain()).map(([a, sep, b, host]) => `${a}${sep}${b}@${host}`)
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), trickyEmail), (email) => {
        const shape = identifierShape(email)
        expect(shape === null || shape.by === 'email').toBe(true)
        expect(outcome('companies', email)).toBe('error /object_id')
      }),
      { numRuns: 2000 },
    )
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        fc.pre(normalizeDomain(domain) !== null)
        expect(identifierShape(domain)?.by).toBe('domain')
        expect(outcome('contacts', domain)).toBe('error /object_id')
      }),
      { numRuns: 2000 },
    )
  })

  it('never throws anything but a 400 naming object_id, whatever the text', () => {
    fc.assert(
      fc.property(objectType, fc.string({ unit: 'binary', maxLength: 80 }), (type, v) => {
        expect(['id', 'email', 'domain', 'error /object_id']).toContain(outcome(type, v))
      }),
      { numRuns: 2000 },
    )
  })
})

describe('email addresses in linear time', () => {
  it('accepts the addresses the backtracking pattern accepted, and no others', () => {
    const before = (text: string) => {
      const e = text.trim().toLowerCase()
      return /^[^\s@"<>,;]{1,64}@[^\s@"<>,;]+\.[^\s@"<>,;]+$/.test(e) && e.length <= 254 ? e : null
    }
    const text = fc.oneof(fc.string({ unit: fc.constantFrom(...'ab@.-_ "<;'), maxLength: 20 }), fc.emailAddress(), fc.string({ maxLength: 20 }))
    fc.assert(
      fc.property(text, (t) => {
        expect(normalizeEmail(t)).toBe(before(t))
      }),
      { numRuns: 3000 },
    )
  })

  it('returns on a long hostile address', () => {
    expect(normalizeEmail(`a@${'.'.repeat(100_000)}"`)).toBeNull()
  })
})
