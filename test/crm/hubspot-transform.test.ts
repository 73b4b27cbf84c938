import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizeDomain, parseAssociations, parsePropertyNames, parsePropertyValues, plainNumber } from '../../src/crm/input'
import { ProviderError, UpstreamError } from '../../src/providers/errors'
import {
  associateRequest,
  describeRequest,
  getObjectRequest,
  invalidProperties,
  mapHubSpotError,
  parseAssociationPage,
  parseObject,
  parseSearch,
  parseUpsert,
  requestUrl,
  requiredScopes,
  searchByDomainRequest,
  toRecord,
  upsertContactByEmailRequest,
  type CallContext,
} from '../../src/providers/hubspot/transform'
import associationsPage from '../fixtures/hubspot/associations-page.json'
import contact from '../fixtures/hubspot/contact.json'
import expired from '../fixtures/hubspot/error-expired.json'
import missingScopes from '../fixtures/hubspot/error-missing-scopes.json'
import validation from '../fixtures/hubspot/error-validation.json'
import searchTwo from '../fixtures/hubspot/search-companies-two.json'
import upsertCreated from '../fixtures/hubspot/upsert-created.json'

const ctx: CallContext = { objectType: 'deals', operation: 'write', notFound: 'Object not found: no deals with id 5', field: 'properties' }

describe('HubSpot transform', () => {
  it('builds the object GET with comma-joined properties and idProperty for emails', () => {
    const req = getObjectRequest('contacts', 'ada@example.com', ['email', 'firstname'], 'email')
    expect(requestUrl('https://api.hubapi.com', req)).toBe('https://api.hubapi.com/crm/v3/objects/contacts/ada%40example.com?properties=email%2Cfirstname&archived=false&idProperty=email')
  })

  it('builds a domain search with every field the reference requires', () => {
    const req = searchByDomainRequest('acme.example', ['name'])
    expect(req.method).toBe('POST')
    expect(Object.keys(req.body as object).sort()).toEqual(['after', 'filterGroups', 'limit', 'properties', 'sorts'])
    expect((req.body as { filterGroups: unknown }).filterGroups).toEqual([{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 'acme.example' }] }])
  })

  it('builds default and labeled v4 association PUTs', () => {
    expect(associateRequest('contacts', '1', { toObjectType: 'deals', toObjectId: '2' })).toMatchObject({ method: 'PUT', path: '/crm/v4/objects/contacts/1/associations/default/deals/2' })
    const labeled = associateRequest('contacts', '1', { toObjectType: 'deals', toObjectId: '2', kind: { category: 'USER_DEFINED', typeId: 12 } })
    expect(labeled).toMatchObject({ path: '/crm/v4/objects/contacts/1/associations/deals/2', body: [{ associationCategory: 'USER_DEFINED', associationTypeId: 12 }] })
  })

  it('redacts the token in dry-run descriptions', () => {
    const d = describeRequest('https://api.hubapi.com/', upsertContactByEmailRequest('a@b.co', { firstname: 'A' }))
    expect(d).toEqual({
      method: 'POST',
      url: 'https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert',
      headers: { authorization: 'Bearer [redacted]', accept: 'application/json', 'content-type': 'application/json' },
      body: { inputs: [{ idProperty: 'email', id: 'a@b.co', properties: { firstname: 'A' } }] },
    })
  })

  it('reads a SimplePublicObject into flat asked properties with nulls for missing ones', () => {
    const rec = toRecord(parseObject(contact), ['email', 'lastname', 'phone'])
    expect(rec).toEqual({
      id: '51',
      properties: { email: 'ada@example.com', lastname: null, phone: null },
      createdAt: '2025-11-03T09:12:44.120Z',
      updatedAt: '2026-01-04T16:01:02.883Z',
      archived: false,
    })
    expect(() => parseObject({ nope: true })).toThrow(UpstreamError)
  })

  it('reads searches, upserts and association pages', () => {
    const s = parseSearch(searchTwo)
    expect(s.total).toBe(2)
    expect(s.results.map((r) => r.id)).toEqual(['7001', '7002'])
    const u = parseUpsert(upsertCreated)
    expect(u).toMatchObject({ created: true, object: { id: '88' } })
    expect(parseAssociationPage(associationsPage)).toEqual({ ids: ['9001', '9002'], after: 'MjAw' })
  })

  it('names the missing scope from a MISSING_SCOPES body', () => {
    expect(requiredScopes(missingScopes)).toEqual(['crm.objects.deals.write'])
    const err = mapHubSpotError(403, missingScopes, ctx) as ProviderError
    expect(err.kind).toBe('forbidden')
    expect(err.message).toMatch(/^Missing scope: the HubSpot token needs crm\.objects\.deals\.write/)
  })

  it('falls back to the documented scope when a 403 names none', () => {
    const err = mapHubSpotError(403, { category: 'MISSING_SCOPES', message: 'missing scopes' }, { ...ctx, objectType: 'contacts', operation: 'read' })
    expect(err.message).toContain('crm.objects.contacts.read')
  })

  it('lists the properties of a validation error', () => {
    expect(invalidProperties(validation).map((p) => p.name)).toEqual(['favourite_colour', 'email'])
    const err = mapHubSpotError(400, validation, ctx) as ProviderError
    expect(err).toMatchObject({ kind: 'invalid_input', field: 'properties' })
    expect(err.message).toContain('favourite_colour (Property "favourite_colour" does not exist)')
    expect(err.message).toContain('email (Email address ada@ is invalid)')
  })

  it('tells an expired token from an invalid one', () => {
    expect(mapHubSpotError(401, expired, ctx).message).toMatch(/^Token expired/)
    expect(mapHubSpotError(401, { category: 'INVALID_AUTHENTICATION', message: 'Authentication credentials not found.' }, ctx).message).toMatch(/^Invalid credentials/)
  })

  it('maps 404, 429 and 5xx to not found, rate limited and upstream failures', () => {
    expect(mapHubSpotError(404, {}, ctx)).toMatchObject({ kind: 'not_found', message: 'Object not found: no deals with id 5' })
    expect(mapHubSpotError(429, {}, ctx, 7)).toMatchObject({ name: 'UpstreamError', kind: 'rate_limited', retryAfterSeconds: 7 })
    expect(mapHubSpotError(503, { message: 'down', correlationId: 'x1' }, ctx)).toMatchObject({ name: 'UpstreamError', kind: 'status', status: 503 })
  })
})

describe('CRM input parsing', () => {
  it('normalizes domains to the bare host', () => {
    expect(normalizeDomain('https://www.Example.COM/path?q=1')).toBe('example.com')
    expect(normalizeDomain('sub.example.co.uk:8080')).toBe('sub.example.co.uk')
    expect(normalizeDomain('localhost')).toBeNull()
    expect(normalizeDomain('10.0.0.1')).toBeNull()
    expect(normalizeDomain('exa mple.com')).toBeNull()
  })

  it('reads property names from comma lists and JSON arrays', () => {
    expect(parsePropertyNames(' email, firstname ,,email')).toEqual(['email', 'firstname'])
    expect(parsePropertyNames('["email","hs_object_id"]')).toEqual(['email', 'hs_object_id'])
    expect(parsePropertyNames('')).toEqual([])
  })

  it('reads property values from JSON and key=value lines', () => {
    expect(parsePropertyValues('{"a":"1","b":2,"c":false,"d":null}')).toEqual({ a: '1', b: '2', c: 'false', d: '' })
    expect(parsePropertyValues('a = 1\r\n\n# note\nb=x=y\nc=')).toEqual({ a: '1', b: 'x=y', c: '' })
  })

  it('writes a number in JSON text with the digits the caller wrote, and any other number as plain decimal text of the same double', () => {
    expect(parsePropertyValues('{"amount": 12345678901234567891, "tiny": 1E-7, "n": -0.50}')).toEqual({ amount: '12345678901234567891', tiny: '1E-7', n: '-0.50' })
    expect([1e21, -2.5e22, 1.5e-7, 5e-324, 0.1, 123].map(plainNumber)).toEqual(['1000000000000000000000', '-25000000000000000000000', '0.00000015', `0.${'0'.repeat(323)}5`, '0.1', '123'])
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = plainNumber(n)
        expect(Number(text)).toBe(n === 0 ? 0 : n)
        expect(text).toMatch(/^-?\d+(\.\d+)?$/)
        // Digits exact to the caller's in JSON text too.
        expect(parsePropertyValues(`{"v": ${JSON.stringify(n)}}`).v).toBe(JSON.stringify(n))
        expect(parsePropertyValues({ v: n }).v).toBe(text)
      }),
      { numRuns: 2000 },
    )
  })

  it('reads associations with optional labeled types', () => {
    expect(parseAssociations('[{"to_object_type":"Deal","to_object_id":12,"association_type":"user_defined:7"}]')).toEqual([
      { toObjectType: 'deals', toObjectId: '12', kind: { category: 'USER_DEFINED', typeId: 7 } },
    ])
  })
})
