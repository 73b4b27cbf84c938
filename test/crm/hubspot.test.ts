import { env } from 'cloudflare:test'
import { afterEach, describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request } from '../helpers'
import { FakeHubSpot } from './fake-hubspot'

const update = (token: string, body: Record<string, unknown>) => action('crm.v2.update_object', body, token)
const lookup = (token: string, body: Record<string, unknown>) => action('crm.v2.lookup_object', body, token)

let fake: FakeHubSpot

/** A caller with HubSpot connected to a fresh fake portal. */
async function connected(opts: { verify?: boolean } = {}) {
  fake = new FakeHubSpot()
  mockFetch(fake.handler)
  const caller = await newCaller()
  const res = await request('PUT', '/v1/integrations/crm', { token: caller.token, body: { provider: 'hubspot', access_token: fake.token, verify: opts.verify ?? true } })
  expect(res.status).toBe(200)
  fake.requests.length = 0
  return caller
}

afterEach(() => {
  // Every request the client sent must be one the reference allows, with its exact shape.
  if (fake) expect(fake.violations).toEqual([])
})

describe('CRM connection', () => {
  it('connects HubSpot after checking the token, shows it without the token, and disconnects', async () => {
    fake = new FakeHubSpot()
    mockFetch(fake.handler)
    const { token, accountId } = await newCaller()
    const before = await request('GET', '/v1/integrations/crm', { token })
    expect(before.body.response).toMatchObject({ provider: 'builtin', connected: false })

    const put = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: fake.token } })
    expect(put.status).toBe(200)
    expect(put.body.response).toMatchObject({ provider: 'hubspot', connected: true, token_type: 'private_app', scopes: null })
    expect(Date.parse(put.body.response.verified_at)).toBeGreaterThan(0)
    expect(fake.requests).toEqual([{ method: 'GET', path: '/crm/v3/objects/contacts', query: { limit: ['1'], archived: ['false'] }, body: undefined, authorization: `Bearer ${fake.token}` }])

    const got = await request('GET', '/v1/integrations/crm', { token })
    expect(got.body.response).toMatchObject({ provider: 'hubspot', connected: true })
    expect(JSON.stringify(got.body)).not.toContain(fake.token)
    expect(JSON.stringify(put.body)).not.toContain(fake.token)
    const row = await env.DB.prepare('SELECT sealed, meta FROM account_secrets WHERE account_id = ? AND kind = ?').bind(accountId, 'crm').first<{ sealed: string; meta: string }>()
    expect(row!.sealed).not.toContain(fake.token)
    expect(row!.meta).not.toContain(fake.token)

    const del = await request('DELETE', '/v1/integrations/crm', { token })
    expect(del.body.response).toMatchObject({ provider: 'builtin', connected: false, disconnected: true })
    const res = await lookup(token, { object_type: 'contacts', object_id: '1' })
    expect(res.body.error).toMatch(/^Object not found/)
  })

  it('refuses a token HubSpot rejects and keeps the account on the built-in CRM', async () => {
    fake = new FakeHubSpot()
    mockFetch(fake.handler)
    const { token } = await newCaller()
    const res = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: 'pat-na1-wrong-token-0000' } })
    expect(res.status).toBe(422)
    expect(res.body.error).toMatch(/^Invalid credentials/)
    expect((await request('GET', '/v1/integrations/crm', { token })).body.response.provider).toBe('builtin')
  })

  it('keeps a token that cannot read contacts, with a warning naming the scope', async () => {
    fake = new FakeHubSpot()
    fake.scopes = new Set(['crm.objects.deals.read'])
    mockFetch(fake.handler)
    const { token } = await newCaller()
    const res = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: fake.token, token_type: 'oauth' } })
    expect(res.status).toBe(200)
    expect(res.body.response.token_type).toBe('oauth')
    expect(res.body.response.warnings[0]).toContain('Missing scope: the HubSpot token needs crm.objects.contacts.read')
  })

  it('validates the connection body and requires a token', async () => {
    const { token } = await newCaller()
    const noAuth = await request('GET', '/v1/integrations/crm')
    expect(noAuth.status).toBe(401)
    for (const body of [
      { provider: 'salesforce', access_token: 'x'.repeat(20) },
      { provider: 'hubspot' },
      { provider: 'hubspot', access_token: 'has spaces in it' },
      { provider: 'hubspot', access_token: 'pat-abcdefgh', extra: 1 },
    ]) {
      const res = await request('PUT', '/v1/integrations/crm', { token, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
    }
  })

  it('uses each account’s own connection: another account stays on its built-in CRM', async () => {
    const alice = await connected()
    const contact = fake.seed('contacts', { email: 'ada@example.com', firstname: 'Ada' })
    const bob = await newCaller('Bob')
    const a = await lookup(alice.token, { object_type: 'contacts', object_id: contact, properties: 'firstname' })
    expect(a.body.response).toMatchObject({ provider: 'hubspot', properties: { firstname: 'Ada' } })
    const before = fake.requests.length
    const b = await lookup(bob.token, { object_type: 'contacts', object_id: contact })
    expect(b.status).toBe(404)
    expect(b.body.error).toMatch(/^Object not found/)
    const bu = await update(bob.token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'ada@example.com', properties: 'firstname=Mallory' })
    expect(bu.body.response.provider).toBe('builtin')
    expect(fake.requests.length).toBe(before)
    expect(fake.get('contacts', contact)!.firstname).toBe('Ada')
  })
})

describe('CRM actions on HubSpot', () => {
  it('looks up by CRM ID with the asked properties and HubSpot’s exact GET', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'ada@example.com', firstname: 'Ada' })
    const res = await lookup(token, { object_type: 'contacts', object_id: id, properties: 'email,firstname,phone' })
    expect(res.status).toBe(200)
    expect(res.body.response).toMatchObject({ provider: 'hubspot', object_type: 'contacts', id, properties: { email: 'ada@example.com', firstname: 'Ada', phone: null }, archived: false })
    expect(fake.requests).toEqual([
      { method: 'GET', path: `/crm/v3/objects/contacts/${id}`, query: { properties: ['email,firstname,phone'], archived: ['false'] }, body: undefined, authorization: `Bearer ${fake.token}` },
    ])
  })

  it('uses the default property set when none is asked', async () => {
    const { token } = await connected()
    const id = fake.seed('deals', { dealname: 'Big', amount: '10' })
    const res = await lookup(token, { object_type: 'deals', object_id: id })
    expect(Object.keys(res.body.response.properties)).toEqual(['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'])
    expect(res.body.response.properties).toMatchObject({ dealname: 'Big', amount: '10', dealstage: null, hs_object_id: id })
  })

  it('looks up a contact by email with idProperty=email, and reports a missing one in the original’s words', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'ada@example.com' })
    const res = await lookup(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'ADA@example.com', properties: 'email' })
    expect(res.body.response.id).toBe(id)
    expect(fake.requests[0]).toMatchObject({ path: '/crm/v3/objects/contacts/ada%40example.com', query: { idProperty: ['email'] } })
    const missing = await lookup(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'ghost@example.com' })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toBe('Contact not found with email ghost@example.com')
  })

  it('finds a company by domain with a search, and reports several matches instead of guessing', async () => {
    const { token } = await connected()
    const acme = fake.seed('companies', { name: 'Acme', domain: 'acme.example' })
    const res = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'https://www.acme.example/', properties: 'name' })
    expect(res.body.response).toMatchObject({ provider: 'hubspot', id: acme, properties: { name: 'Acme' } })
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/crm/v3/objects/companies/search',
      body: { filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 'acme.example' }] }], properties: ['name'], sorts: [], limit: 10, after: '0' },
    })
    const other = fake.seed('companies', { name: 'Acme 2', domain: 'acme.example' })
    const two = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'acme.example' })
    expect(two.status).toBe(409)
    expect(two.body.error).toContain(`ids ${acme}, ${other}`)
    const none = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'none.example' })
    expect(none.status).toBe(404)
    expect(none.body.error).toBe('Company not found with domain none.example')
  })

  it('answers a spec-shaped lookup (no identification_method) by email or domain, and says how it read object_id', async () => {
    const { token } = await connected()
    const ada = fake.seed('contacts', { email: 'ada@example.com', firstname: 'Ada' })
    const acme = fake.seed('companies', { name: 'Acme', domain: 'acme.example' })
    const byEmail = await lookup(token, { object_type: 'contacts', object_id: 'Ada@Example.com', properties: 'firstname' })
    expect(byEmail.status).toBe(200)
    expect(byEmail.body.response).toMatchObject({ provider: 'hubspot', identified_by: 'email', id: ada, properties: { firstname: 'Ada' } })
    expect(fake.requests[0]).toMatchObject({ path: '/crm/v3/objects/contacts/ada%40example.com', query: { idProperty: ['email'] } })
    const byDomain = await lookup(token, { object_type: 'companies', object_id: 'www.acme.example', properties: 'name' })
    expect(byDomain.body.response).toMatchObject({ provider: 'hubspot', identified_by: 'domain', id: acme })
    expect(fake.requests[1]).toMatchObject({ method: 'POST', path: '/crm/v3/objects/companies/search' })
    const byId = await lookup(token, { object_type: 'companies', object_id: acme, properties: 'name' })
    expect(byId.body.response).toMatchObject({ identified_by: 'id', id: acme })
  })

  it('returns associated ids per type, following v4 paging', async () => {
    const { token } = await connected()
    const contact = fake.seed('contacts', { email: 'big@example.com' })
    const deals: string[] = []
    for (let i = 0; i < 502; i++) {
      const d = fake.seed('deals', { dealname: `D${i}` })
      deals.push(d)
      fake.link('contacts', contact, 'deals', d)
    }
    const company = fake.seed('companies', { name: 'Acme' })
    fake.link('contacts', contact, 'companies', company)
    const res = await lookup(token, { object_type: 'contacts', object_id: contact, properties: 'email', associations: 'deals,companies,tickets' })
    expect(res.status).toBe(200)
    expect(res.body.response.associations.deals).toEqual(deals)
    expect(res.body.response.associations.companies).toEqual([company])
    expect(res.body.response.associations.tickets).toEqual([])
    const assocCalls = fake.requests.filter((r) => r.path.includes('/crm/v4/'))
    expect(assocCalls.map((r) => `${r.path}?${new URLSearchParams(Object.entries(r.query).map(([k, v]) => [k, v[0]]))}`)).toEqual([
      `/crm/v4/objects/contacts/${contact}/associations/deals?limit=500`,
      `/crm/v4/objects/contacts/${contact}/associations/deals?limit=500&after=500`,
      `/crm/v4/objects/contacts/${contact}/associations/companies?limit=500`,
      `/crm/v4/objects/contacts/${contact}/associations/tickets?limit=500`,
    ])
  })

  it('updates by CRM ID with a PATCH and adds default and labeled associations', async () => {
    const { token } = await connected()
    const deal = fake.seed('deals', { dealname: 'Big' })
    const company = fake.seed('companies', { name: 'Acme' })
    const contact = fake.seed('contacts', { email: 'ada@example.com' })
    const res = await update(token, {
      object_type: 'deals',
      identifier_value: deal,
      properties: 'dealstage=closedwon\namount=1200',
      associations: JSON.stringify([
        { to_object_type: 'companies', to_object_id: company },
        { to_object_type: 'contacts', to_object_id: contact, association_type: 'USER_DEFINED:12' },
      ]),
    })
    expect(res.status).toBe(200)
    expect(res.body.response).toMatchObject({ provider: 'hubspot', object_type: 'deals', id: deal, created: false, properties: { dealstage: 'closedwon', amount: '1200', hs_object_id: deal } })
    expect(Date.parse(res.body.response.updatedAt)).toBeGreaterThan(Date.parse(res.body.response.createdAt))
    expect(fake.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['PATCH', `/crm/v3/objects/deals/${deal}`, { properties: { dealstage: 'closedwon', amount: '1200' } }],
      ['PUT', `/crm/v4/objects/deals/${deal}/associations/default/companies/${company}`, undefined],
      ['PUT', `/crm/v4/objects/deals/${deal}/associations/contacts/${contact}`, [{ associationCategory: 'USER_DEFINED', associationTypeId: 12 }]],
    ])
    expect(fake.get('deals', deal)).toMatchObject({ dealstage: 'closedwon', amount: '1200' })
    expect(fake.linked('companies', company, 'deals', deal)).toBeTruthy()
  })

  it('upserts a contact by email with batch upsert: created first, updated after', async () => {
    const { token } = await connected()
    const body = { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'New@Example.com', properties: '{"firstname":"New"}' }
    const first = await update(token, body)
    expect(first.status).toBe(200)
    expect(first.body.response).toMatchObject({ provider: 'hubspot', created: true, properties: { firstname: 'New' } })
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/crm/v3/objects/contacts/batch/upsert',
      body: { inputs: [{ idProperty: 'email', id: 'new@example.com', properties: { firstname: 'New' } }] },
    })
    const second = await update(token, { ...body, properties: 'lastname=Person' })
    expect(second.body.response).toMatchObject({ id: first.body.response.id, created: false })
    expect(fake.get('contacts', first.body.response.id)).toMatchObject({ email: 'new@example.com', firstname: 'New', lastname: 'Person' })
  })

  it('updates a company by domain after a search, and answers 404 when no company has it (no upsert on HubSpot)', async () => {
    const { token } = await connected()
    const acme = fake.seed('companies', { name: 'Acme', domain: 'acme.example' })
    const res = await update(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'acme.example', properties: '{"industry":"Robotics"}' })
    expect(res.body.response).toMatchObject({ id: acme, properties: { industry: 'Robotics' } })
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /crm/v3/objects/companies/search', `PATCH /crm/v3/objects/companies/${acme}`])
    const none = await update(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'new.example', properties: 'name=New' })
    expect(none.status).toBe(404)
    expect(none.body.error).toBe('Company not found with domain new.example')
  })

  it('answers 404 "Object not found" for an unknown CRM ID', async () => {
    const { token } = await connected()
    const res = await update(token, { object_type: 'tickets', identifier_value: '777', properties: 'subject=x' })
    expect(res.status).toBe(404)
    expect(res.body.error).toBe('Object not found: no tickets with id 777')
  })

  it('returns the exact requests on a dry run and sends no write', async () => {
    const { token } = await connected()
    const deal = fake.seed('deals', { dealname: 'Big' })
    const res = await update(token, {
      object_type: 'deals',
      identifier_value: deal,
      properties: '{"amount":"5"}',
      associations: '[{"to_object_type":"companies","to_object_id":"31"}]',
      dry_run: true,
    })
    expect(res.status).toBe(200)
    expect(res.body.response).toEqual({
      provider: 'hubspot',
      object_type: 'deals',
      dry_run: true,
      id: deal,
      would_create: false,
      requests: [
        {
          method: 'PATCH',
          url: `https://api.hubapi.com/crm/v3/objects/deals/${deal}`,
          headers: { authorization: 'Bearer [redacted]', accept: 'application/json', 'content-type': 'application/json' },
          body: { properties: { amount: '5' } },
        },
        { method: 'PUT', url: `https://api.hubapi.com/crm/v4/objects/deals/${deal}/associations/default/companies/31`, headers: { authorization: 'Bearer [redacted]', accept: 'application/json' } },
      ],
    })
    expect(fake.requests).toHaveLength(0)
    expect(fake.get('deals', deal)!.amount).toBeUndefined()

    const byEmail = await update(token, {
      object_type: 'contacts',
      identification_method: 'Email Address (Contacts only)',
      identifier_value: 'x@example.com',
      properties: 'firstname=X',
      associations: '[{"to_object_type":"deals","to_object_id":"' + deal + '"}]',
      dry_run: true,
    })
    expect(byEmail.body.response).toMatchObject({ id: null, would_create: true })
    expect(byEmail.body.response.requests[1].url).toBe(`https://api.hubapi.com/crm/v4/objects/contacts/%7Bcreated_id%7D/associations/default/deals/${deal}`)
    expect(fake.requests.map((r) => r.method)).toEqual(['GET'])
  })

  it('lists the properties HubSpot rejects', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'ada@example.com' })
    const res = await update(token, { object_type: 'contacts', identifier_value: id, properties: '{"favourite_colour":"blue","email":"ada@","hs_object_id":"1"}' })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect(res.body.error).toContain('favourite_colour (Property "favourite_colour" does not exist)')
    expect(res.body.error).toContain('email (Email address is invalid)')
    expect(res.body.error).toContain('hs_object_id')
    expect(res.body.details[0].path).toBe('/properties')
  })

  it('maps an expired token, an invalid token and a missing scope', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'a@example.com' })
    fake.expired = true
    const expired = await lookup(token, { object_type: 'contacts', object_id: id })
    expect(expired.status).toBe(422)
    expect(expired.body.error).toMatch(/^Token expired/)
    fake.expired = false
    fake.token = 'pat-na1-rotated'
    const invalid = await lookup(token, { object_type: 'contacts', object_id: id })
    expect(invalid.status).toBe(422)
    expect(invalid.body.error).toMatch(/^Invalid credentials/)
    fake.token = 'pat-na1-11111111-2222-3333-4444-555555555555'
    fake.scopes = new Set(['crm.objects.contacts.read'])
    const scope = await update(token, { object_type: 'contacts', identifier_value: id, properties: 'firstname=A' })
    expect(scope.status).toBe(403)
    expect(scope.body.error).toMatch(/^Missing scope: the HubSpot token needs crm\.objects\.contacts\.write/)
  })

  it('retries 429 and 503 honouring Retry-After, then succeeds', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'a@example.com', firstname: 'A' })
    fake.failNext(1, { status: 429, headers: { 'retry-after': '0' }, body: { status: 'error', message: 'You have reached your secondly limit.', category: 'RATE_LIMITS', correlationId: 'r1' } })
    fake.failNext(1, { status: 503, headers: { 'retry-after': '0' } })
    const res = await update(token, { object_type: 'contacts', identifier_value: id, properties: 'firstname=B' })
    expect(res.status).toBe(200)
    expect(fake.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH', 'PATCH'])
    expect(fake.get('contacts', id)!.firstname).toBe('B')
  })

  it('answers 429 with Retry-After when HubSpot asks to wait longer than the retry budget', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'a@example.com' })
    fake.failNext(1, { status: 429, headers: { 'retry-after': '30' }, body: { status: 'error', message: 'You have reached your daily limit.', category: 'RATE_LIMITS', correlationId: 'r2' } })
    const res = await lookup(token, { object_type: 'contacts', object_id: id })
    expect(res.status).toBe(429)
    expect(res.body.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(res.headers.get('retry-after')).toBe('30')
    expect(fake.requests).toHaveLength(1)
  })

  it('never passes on a Retry-After that is not whole seconds up to a day, whatever HubSpot sends', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'a@example.com' })
    // A wait past the retry budget is answered at once; one not understood is retried with backoff (three attempts).
    for (const [sent, ours, attempts] of [
      ['99999999999', '86400', 1],
      ['1e21', null, 3],
      ['-5', null, 3],
    ] as const) {
      fake.failNext(attempts, { status: 429, headers: { 'retry-after': sent }, body: { status: 'error', message: 'Slow down.', category: 'RATE_LIMITS', correlationId: 'r3' } })
      const res = await lookup(token, { object_type: 'contacts', object_id: id })
      expect(res.status, sent).toBe(429)
      expect(res.headers.get('retry-after'), sent).toBe(ours)
    }
  })

  it('answers 502 when HubSpot keeps failing', async () => {
    const { token } = await connected()
    const id = fake.seed('contacts', { email: 'a@example.com' })
    fake.failNext(3, { status: 500, headers: { 'retry-after': '0' }, body: { status: 'error', message: 'internal error', category: 'INTERNAL_ERROR', correlationId: 'c-500' } })
    const res = await lookup(token, { object_type: 'contacts', object_id: id })
    expect(res.status).toBe(502)
    expect(res.body.code).toBe('UPSTREAM_FAILED')
    expect(res.body.error).toContain('HubSpot answered 500')
    expect(fake.requests).toHaveLength(3)
  })
})
