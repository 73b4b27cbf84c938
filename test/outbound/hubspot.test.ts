import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OBJECT_TYPES } from '../../src/crm/types'
import { action, json, mockFetch, newCaller, request, type SeenRequest } from '../helpers'
import { expectFieldEnvelope } from './envelope'

const TOKEN = 'pat-na1-00000000-outbound-shape'
const TYPES: readonly string[] = OBJECT_TYPES

const NASTY = [
  '../contacts/1',
  '1/../../v4',
  '1%2F..%2F2',
  '1?archived=true',
  '1#x',
  '1&idProperty=email',
  'ada@example.com/../1',
  'ada@example.com?x=1',
  'ada%40example.com',
  'a\\b@example.com',
  'example.com/..%2Fx',
  'user@evil.example',
  'ｅｘａｍｐｌｅ．ｃｏｍ',
  'example.com\r\nx-injected: 1',
  '１２３',
  'contacts',
  '\u0000',
]

const cursorOf = (id: string) => `${id}&limit=1#x/../y é`

/** A portal whose objects all carry the id `remoteId`, which the client then puts into association paths. */
function portal(remoteId: string) {
  const object = { id: remoteId, properties: { email: 'ada@example.com', domain: 'example.com' }, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', archived: false }
  return (req: Request): Response => {
    const path = new URL(req.url).pathname
    if (path.endsWith('/search')) return json({ total: 1, results: [object] })
    if (path.endsWith('/batch/upsert')) return json({ status: 'COMPLETE', results: [{ ...object, new: false }] })
    // One further page, behind a cursor the portal chooses.
    if (path.includes('/associations/') && req.method === 'GET')
      return json({ results: [{ toObjectId: 7 }], ...(new URL(req.url).searchParams.has('after') ? {} : { paging: { next: { after: cursorOf(remoteId) } } }) })
    if (path.includes('/associations/')) return json({ status: 'COMPLETE' })
    return json(object)
  }
}

/** Every request must be one of the endpoints the CRM actions use, each caller or portal value as one segment of its own. */
function checkShape(r: SeenRequest, remoteId: string, callerId: string): void {
  const url = new URL(r.url)
  expect(url.origin).toBe('https://api.hubapi.com')
  expect(url.hash).toBe('')
  expect(r.headers.get('authorization')).toBe(`Bearer ${TOKEN}`)
  expect(r.headers.get('x-injected')).toBeNull()
  const s = url.pathname.split('/').slice(1)
  const query = [...url.searchParams.keys()]
  const id = (i: number) => decodeURIComponent(s[i])
  if (s[0] !== 'crm') throw new Error(`unexpected path ${url.pathname}`)
  if (s[1] === 'v3') {
    expect(s[2]).toBe('objects')
    expect(TYPES).toContain(s[3])
    if (r.method === 'POST' && s.length === 5) expect(s[4]).toBe('search')
    else if (r.method === 'POST') expect(s.slice(3)).toEqual(['contacts', 'batch', 'upsert'])
    else {
      expect(s).toHaveLength(5)
      expect(['GET', 'PATCH']).toContain(r.method)
      // An id is digits, or (looked up by email) an address; neither may carry a "/", "?" or "#" through.
      // A GET names the caller's object: its id, or its address (lower-cased), exactly, as one segment.
      if (r.method === 'GET') expect([callerId.trim(), callerId.trim().toLowerCase()]).toContain(id(4))
      if (r.method === 'PATCH' && !/^\d{1,20}$/.test(id(4))) expect(id(4)).toBe(remoteId)
    }
    for (const k of query) expect(['properties', 'archived', 'idProperty']).toContain(k)
  } else {
    expect(s[1]).toBe('v4')
    expect(s[2]).toBe('objects')
    expect(TYPES).toContain(s[3])
    expect(s[5]).toBe('associations')
    if (r.method === 'GET') {
      expect(s).toHaveLength(7)
      expect(TYPES).toContain(s[6])
      for (const k of query) expect(['limit', 'after']).toContain(k)
      if (url.searchParams.has('after')) expect(url.searchParams.getAll('after')).toEqual([cursorOf(remoteId)])
    } else {
      expect(r.method).toBe('PUT')
      const rest = s[6] === 'default' ? s.slice(7) : s.slice(6)
      expect(rest).toHaveLength(2)
      expect(TYPES).toContain(rest[0])
      expect(decodeURIComponent(rest[1])).toMatch(/^\d{1,20}$/)
      expect(query).toEqual([])
    }
    if (r.method === 'PUT') expect(id(4)).toBe(remoteId)
  }
}

async function connect(): Promise<string> {
  const { token } = await newCaller()
  mockFetch(() => json({ results: [] }))
  const res = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: TOKEN, verify: false } })
  expect(res.status).toBe(200)
  return token
}

const local = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
const text = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map(String),
  // Addresses the email check lets through may still hold "/", "?", "#", "%", "&" or "\\".
  local.map((l) => `${l}@example.com`),
  fc.tuple(local, local).map(([a, b]) => `${a}.${b}.com`),
)
const objectType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TYPES, 'contact', ' Company ') },
  { weight: 1, arbitrary: fc.constantFrom('contacts/../deals', 'contacts?x=1', 'ｃｏｎｔａｃｔｓ', 'contacts%2F..') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
)
const method = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('CRM ID', 'Email Address (Contacts only)', 'Company Domain (Companies only)') })
const optional = <T>(a: fc.Arbitrary<T>) => fc.oneof(fc.constant(undefined), a)
const associations = fc.oneof(
  optional(text),
  fc
    .array(fc.record({ to_object_type: objectType, to_object_id: fc.oneof(text, fc.integer({ min: 0 })), association_type: optional(fc.oneof(text, fc.integer())) }), { maxLength: 3 })
    .map((a) => JSON.stringify(a)),
)
const remoteId = fc.oneof(
  { weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 10n ** 12n }).map(String) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('1/../2', '1?x=1', '1#', '..', '.', '%2F', 'é', '1\r\n'), fc.string({ minLength: 1, maxLength: 12 })) },
)
/** Most draws name a real object the way its type allows, so requests go out; the rest are anything. */
const target = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...TYPES), fc.bigInt({ min: 0n, max: 10n ** 20n - 1n }).map(String)) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constant('contacts'),
      local.map((l) => `${l}@example.com`),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('companies'),
      fc.oneof(
        fc.tuple(local, local).map(([a, b]) => `${a}.${b}.com`),
        fc.constantFrom(...NASTY),
      ),
    ),
  },
  { weight: 2, arbitrary: fc.tuple(objectType, text) },
)

describe('HubSpot CRM actions: caller and portal values shape only their own segment', () => {
  it('lookup', async () => {
    const token = await connect()
    await fc.assert(
      fc.asyncProperty(
        target,
        method,
        optional(fc.constantFrom('email', 'firstname,domain', '["email"]', 'a/b', 'x&y=z')),
        optional(fc.constantFrom('deals', 'companies,contacts', 'deals/../x')),
        remoteId,
        async ([type, id], how, properties, assoc, rid) => {
          const seen = mockFetch(portal(rid))
          const res = await action('crm.v2.lookup_object', { object_type: type, object_id: id, identification_method: how, properties, associations: assoc }, token)
          expectFieldEnvelope(res, ['/object_type', '/object_id', '/identification_method', '/properties', '/associations'])
          for (const r of seen) checkShape(r, rid, id)
        },
      ),
      {
        numRuns: 80,
        // A portal id of ".." once turned the associations read into GET /crm/v4/objects/contacts/associations/deals.
        examples: [
          [['contacts', '51'], undefined, undefined, 'deals', '..'],
          [['contacts', '51'], undefined, undefined, 'deals', '.'],
        ],
      },
    )
  })

  it('update', async () => {
    const token = await connect()
    await fc.assert(
      fc.asyncProperty(
        target,
        method,
        text,
        associations,
        remoteId,
        fc.boolean(),
        fc.constantFrom('lastname', 'lastname', 'lastname', 'x&y=z', '../x'),
        async ([type, id], how, name, assoc, rid, dryRun, prop) => {
          const seen = mockFetch(portal(rid))
          const body = { object_type: type, identifier_value: id, identification_method: how, properties: JSON.stringify({ firstname: name, [prop]: 'x' }), associations: assoc, dry_run: dryRun }
          const res = await action('crm.v2.update_object', body, token)
          expectFieldEnvelope(res, ['/object_type', '/identifier_value', '/identification_method', '/properties', '/associations'])
          for (const r of seen) checkShape(r, rid, id)
        },
      ),
      {
        numRuns: 80,
        // A search answering id ".." once sent the PATCH to the companies collection itself.
        examples: [[['companies', 'example.com'], 'Company Domain (Companies only)', 'Ada', undefined, '..', false, 'lastname']],
      },
    )
  })
})
