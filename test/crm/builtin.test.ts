import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request } from '../helpers'

const update = (token: string, body: Record<string, unknown>) => action('crm.v2.update_object', body, token)
const lookup = (token: string, body: Record<string, unknown>) => action('crm.v2.lookup_object', body, token)

async function createObject(token: string, type: string, properties: Record<string, string>, associations?: unknown[]) {
  const res = await request('POST', `/v1/integrations/crm/builtin/objects/${type}`, { token, body: associations ? { properties, associations } : { properties } })
  expect(res.status).toBe(201)
  return res.body.response.id as string
}

describe('built-in CRM', () => {
  it('creates a contact on a fresh install when updating by email, and says the built-in CRM answered', async () => {
    const { token } = await newCaller()
    const seen = mockFetch()
    const res = await update(token, {
      object_type: 'contacts',
      identification_method: 'Email Address (Contacts only)',
      identifier_value: ' Ada@Example.com ',
      properties: '{"firstname":"Ada","lastname":"Lovelace"}',
    })
    expect(res.status).toBe(200)
    const r = res.body.response
    expect(r).toMatchObject({ provider: 'builtin', object_type: 'contacts', created: true })
    expect(r.id).toMatch(/^\d+$/)
    expect(r.properties).toMatchObject({ firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', hs_object_id: r.id })
    expect(Date.parse(r.createdAt)).toBeGreaterThan(0)
    expect(Date.parse(r.updatedAt)).toBeGreaterThan(0)
    expect(seen).toHaveLength(0)

    const again = await update(token, { object_type: 'contact', identification_method: 'Email Address (Contacts only)', identifier_value: 'ada@example.com', properties: 'phone=+44 20 7946 0000' })
    expect(again.body.response).toMatchObject({ provider: 'builtin', id: r.id, created: false, properties: { phone: '+44 20 7946 0000' } })

    const got = await lookup(token, { object_type: 'contacts', object_id: r.id })
    expect(got.status).toBe(200)
    expect(got.body.response).toMatchObject({
      provider: 'builtin',
      id: r.id,
      properties: { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace', phone: '+44 20 7946 0000', jobtitle: null, hs_object_id: r.id },
      archived: false,
    })
  })

  it('looks up a contact by email and a company by a normalized domain, returning only the asked properties', async () => {
    const { token } = await newCaller()
    await update(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'https://www.Acme.example/about', properties: '{"name":"Acme"}' })
    const byDomain = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'ACME.example', properties: 'name, domain' })
    expect(byDomain.status).toBe(200)
    expect(byDomain.body.response.properties).toEqual({ name: 'Acme', domain: 'acme.example' })

    await update(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'grace@acme.example', properties: '{"firstname":"Grace"}' })
    const byEmail = await lookup(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'GRACE@acme.example', properties: '["firstname","email"]' })
    expect(byEmail.body.response.properties).toEqual({ firstname: 'Grace', email: 'grace@acme.example' })
  })

  it('answers a spec-shaped lookup (no identification_method) by email or domain, and says how it read object_id', async () => {
    const { token } = await newCaller()
    const contact = await createObject(token, 'contacts', { email: 'ana@example.com', firstname: 'Ana' })
    const company = await createObject(token, 'companies', { name: 'Globex', domain: 'globex.example' })
    const byEmail = await lookup(token, { object_type: 'contacts', object_id: 'ana@example.com', properties: 'firstname' })
    expect(byEmail.status).toBe(200)
    expect(byEmail.body.response).toMatchObject({ provider: 'builtin', identified_by: 'email', id: contact, properties: { firstname: 'Ana' } })
    const byDomain = await lookup(token, { object_type: 'companies', object_id: 'https://Globex.example/', properties: 'name' })
    expect(byDomain.body.response).toMatchObject({ provider: 'builtin', identified_by: 'domain', id: company, properties: { name: 'Globex' } })
    expect((await lookup(token, { object_type: 'contacts', object_id: contact })).body.response).toMatchObject({ identified_by: 'id', id: contact })
    const missing = await lookup(token, { object_type: 'contacts', object_id: 'nobody@example.com' })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toBe('Contact not found with email nobody@example.com')
  })

  it('answers 400 naming object_id when its shape fits no lookup of that object type', async () => {
    const { token } = await newCaller()
    for (const [object_type, object_id, hint] of [
      ['contacts', 'globex.example', 'or an email address'],
      ['companies', 'ana@example.com', 'or a company domain'],
      ['deals', 'ana@example.com', 'must be a numeric CRM ID (got'],
    ]) {
      const res = await lookup(token, { object_type, object_id })
      expect(res.status, object_id).toBe(400)
      expect(res.body.details).toEqual([{ path: '/object_id', message: expect.stringContaining(hint) }])
    }
    // A method said out loud is still obeyed: an email is not a CRM ID.
    const said = await lookup(token, { object_type: 'contacts', identification_method: 'CRM ID', object_id: 'ana@example.com' })
    expect(said.status).toBe(400)
  })

  it('answers 404 "Object not found" for an unknown id, and not-found messages for email and domain lookups', async () => {
    const { token } = await newCaller()
    const byId = await update(token, { object_type: 'deals', identifier_value: '999999', properties: '{"dealname":"X"}' })
    expect(byId.status).toBe(404)
    expect(byId.body).toMatchObject({ status: 404, response: null, code: 'NOT_FOUND' })
    expect(byId.body.error).toMatch(/^Object not found/)
    const email = await lookup(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'nobody@example.com' })
    expect(email.status).toBe(404)
    expect(email.body.error).toBe('Contact not found with email nobody@example.com')
    const domain = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'nothing.example' })
    expect(domain.body.error).toBe('Company not found with domain nothing.example')
  })

  it('reports more than one company with the same domain instead of guessing', async () => {
    const { token } = await newCaller()
    const a = await createObject(token, 'companies', { name: 'A', domain: 'shared.example' })
    const b = await createObject(token, 'companies', { name: 'B', domain: 'www.shared.example' })
    const res = await lookup(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', object_id: 'shared.example' })
    expect(res.status).toBe(409)
    expect(res.body.error).toContain(`ids ${a}, ${b}`)
    const up = await update(token, { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'shared.example', properties: 'name=C' })
    expect(up.status).toBe(409)
  })

  it('requires at least one property to update', async () => {
    const { token } = await newCaller()
    for (const properties of [undefined, '', '{}', '  \n# comment only\n']) {
      const body: Record<string, unknown> = { object_type: 'contacts', identifier_value: '1' }
      if (properties !== undefined) body.properties = properties
      const res = await update(token, body)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('At least one property is required to update an object')
      expect(res.body.details[0].path).toBe('/properties')
    }
  })

  it('rejects bad identifiers, methods and property text with 400s naming the field', async () => {
    const { token } = await newCaller()
    const cases: [Record<string, unknown>, string][] = [
      [{ object_type: 'contacts', identifier_value: 'abc', properties: 'a=b' }, '/identifier_value'],
      [{ object_type: 'deals', identification_method: 'Email Address (Contacts only)', identifier_value: 'a@b.co', properties: 'a=b' }, '/identification_method'],
      [{ object_type: 'contacts', identification_method: 'Company Domain (Companies only)', identifier_value: 'b.co', properties: 'a=b' }, '/identification_method'],
      [{ object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'not-an-email', properties: 'a=b' }, '/identifier_value'],
      [{ object_type: 'widgets', identifier_value: '1', properties: 'a=b' }, '/object_type'],
      [{ object_type: 'contacts', identifier_value: '1', properties: 'no equals sign' }, '/properties'],
      [{ object_type: 'contacts', identifier_value: '1', properties: '{"a":{"nested":1}}' }, '/properties'],
      [{ object_type: 'contacts', identifier_value: '1', properties: '{broken' }, '/properties'],
      [{ object_type: 'contacts', identifier_value: '1', properties: '["a"]' }, '/properties'],
      [{ object_type: 'contacts', identifier_value: '1', properties: 'a=1', associations: '{"x":1}' }, '/associations'],
      [{ object_type: 'contacts', identifier_value: '1', properties: 'a=1', associations: '[{"to_object_type":"deals","to_object_id":"x"}]' }, '/associations'],
      [{ object_type: 'contacts', identifier_value: '1', properties: 'a=1', associations: '[{"to_object_type":"deals","to_object_id":"2","association_type":"weird"}]' }, '/associations'],
      [{ object_type: 'contacts', identifier_value: '1', properties: 'a=1', dry_run: 'yes' }, '/dry_run'],
    ]
    for (const [body, path] of cases) {
      const res = await update(token, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(
        res.body.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path)
    }
    const lk = await lookup(token, { object_type: 'contacts', object_id: '1', properties: 'bad name!' })
    expect(lk.status).toBe(400)
    expect(lk.body.details[0].path).toBe('/properties')
    const la = await lookup(token, { object_type: 'contacts', object_id: '1', associations: 'deals,planets' })
    expect(la.status).toBe(400)
    expect(la.body.details[0].path).toBe('/associations')
  })

  it('answers 400 for wrong JSON types of every field, never 500', async () => {
    const { token } = await newCaller()
    const good = { object_type: 'contacts', identification_method: 'CRM ID', identifier_value: '1', properties: 'a=b', associations: '[]', dry_run: false, output_variable_name: 'x' }
    for (const [field, wrong] of Object.entries({ object_type: 5, identification_method: 3, identifier_value: true, properties: 7, associations: 9, dry_run: [], output_variable_name: {} })) {
      const res = await update(token, { ...good, [field]: wrong })
      expect(res.status, field).toBe(400)
    }
    const lgood = { object_type: 'contacts', object_id: '1', identification_method: 'CRM ID', properties: 'a', associations: 'deals', output_variable_name: 'x' }
    for (const [field, wrong] of Object.entries({ object_type: [], object_id: false, identification_method: {}, properties: 1, associations: 2, output_variable_name: 3 })) {
      const res = await lookup(token, { ...lgood, [field]: wrong })
      expect(res.status, field).toBe(400)
    }
  })

  it('rejects read-only properties and invalid emails, listing them', async () => {
    const { token } = await newCaller()
    const id = await createObject(token, 'contacts', { email: 'x@example.com' })
    const res = await update(token, { object_type: 'contacts', identifier_value: id, properties: '{"hs_object_id":"5","createdate":"x","email":"nope"}' })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain('hs_object_id is read-only')
    expect(res.body.error).toContain('createdate is read-only')
    expect(res.body.error).toContain('email is not a valid email address')
  })

  it('refuses to give two contacts the same email', async () => {
    const { token } = await newCaller()
    await createObject(token, 'contacts', { email: 'taken@example.com' })
    const other = await createObject(token, 'contacts', { email: 'other@example.com' })
    const res = await update(token, { object_type: 'contacts', identifier_value: other, properties: '{"email":"TAKEN@example.com"}' })
    expect(res.status).toBe(409)
    expect(res.body.error).toContain('taken@example.com')
  })

  it('clears a value given "" or null and converts numbers and booleans to text', async () => {
    const { token } = await newCaller()
    const id = await createObject(token, 'deals', { dealname: 'Big', amount: '100', pipeline: 'default' })
    const res = await update(token, { object_type: 'deals', identifier_value: id, properties: JSON.stringify({ amount: 250, closed: true, pipeline: null }) })
    expect(res.status).toBe(200)
    expect(res.body.response.properties).toMatchObject({ amount: '250', closed: 'true', pipeline: '' })
    const got = await lookup(token, { object_type: 'deals', object_id: id, properties: 'dealname,amount,pipeline' })
    expect(got.body.response.properties).toEqual({ dealname: 'Big', amount: '250', pipeline: '' })
  })

  it('adds associations both ways and returns associated ids when asked', async () => {
    const { token } = await newCaller()
    const company = await createObject(token, 'companies', { name: 'Acme', domain: 'acme.example' })
    const deal1 = await createObject(token, 'deals', { dealname: 'One' })
    const deal2 = await createObject(token, 'deals', { dealname: 'Two' })
    const res = await update(token, {
      object_type: 'contacts',
      identification_method: 'Email Address (Contacts only)',
      identifier_value: 'buyer@acme.example',
      properties: 'firstname=Bo',
      associations: JSON.stringify([
        { to_object_type: 'companies', to_object_id: company },
        { to_object_type: 'deals', to_object_id: Number(deal2), association_type: 4 },
        { to_object_type: 'deal', to_object_id: deal1 },
      ]),
    })
    expect(res.status).toBe(200)
    expect(res.body.response.associations).toEqual([
      { to_object_type: 'companies', to_object_id: company, association_type: null },
      { to_object_type: 'deals', to_object_id: deal2, association_type: 'HUBSPOT_DEFINED:4' },
      { to_object_type: 'deals', to_object_id: deal1, association_type: null },
    ])
    const contactId = res.body.response.id
    const got = await lookup(token, { object_type: 'contacts', object_id: contactId, properties: 'firstname', associations: 'deals, companies, tickets' })
    expect(got.body.response.associations).toEqual({ deals: [deal1, deal2], companies: [company], tickets: [] })
    const back = await lookup(token, { object_type: 'companies', object_id: company, associations: '["contacts"]' })
    expect(back.body.response.associations).toEqual({ contacts: [contactId] })

    const missing = await update(token, { object_type: 'contacts', identifier_value: contactId, properties: 'firstname=B', associations: '[{"to_object_type":"tickets","to_object_id":"424242"}]' })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toContain('no tickets with id 424242')
  })

  it('returns the planned writes on a dry run and writes nothing', async () => {
    const { token } = await newCaller()
    const dry = await update(token, {
      object_type: 'contacts',
      identification_method: 'Email Address (Contacts only)',
      identifier_value: 'dry@example.com',
      properties: 'firstname=Dry',
      dry_run: true,
    })
    expect(dry.status).toBe(200)
    expect(dry.body.response).toEqual({
      provider: 'builtin',
      object_type: 'contacts',
      dry_run: true,
      id: null,
      would_create: true,
      operations: [{ op: 'create', object_type: 'contacts', properties: { firstname: 'Dry', email: 'dry@example.com' } }],
    })
    const got = await lookup(token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'dry@example.com' })
    expect(got.status).toBe(404)
  })

  it('keeps every account’s CRM private: ids of another account read as not found', async () => {
    const alice = await newCaller('Alice')
    const bob = await newCaller('Bob')
    const made = await update(alice.token, {
      object_type: 'contacts',
      identification_method: 'Email Address (Contacts only)',
      identifier_value: 'secret@alice.example',
      properties: 'firstname=Secret',
    })
    const id = made.body.response.id
    const deal = await createObject(alice.token, 'deals', { dealname: 'Alice deal' })

    expect((await lookup(bob.token, { object_type: 'contacts', object_id: id })).status).toBe(404)
    expect((await lookup(bob.token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'secret@alice.example' })).status).toBe(404)
    expect((await update(bob.token, { object_type: 'contacts', identifier_value: id, properties: 'firstname=Mallory' })).status).toBe(404)
    const list = await request('GET', '/v1/integrations/crm/builtin/objects/contacts', { token: bob.token })
    expect(list.body.response.results).toEqual([])
    expect((await request('DELETE', `/v1/integrations/crm/builtin/objects/deals/${deal}`, { token: bob.token })).status).toBe(404)

    // Bob's upsert of the same email makes Bob's own contact; Alice's stays untouched.
    const bobs = await update(bob.token, { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'secret@alice.example', properties: 'firstname=Bob' })
    expect(bobs.body.response.created).toBe(true)
    const aliceTicket = await createObject(alice.token, 'tickets', { subject: 'Alice ticket' })
    const crossLink = await update(bob.token, {
      object_type: 'contacts',
      identifier_value: bobs.body.response.id,
      properties: 'firstname=Bob',
      associations: JSON.stringify([{ to_object_type: 'tickets', to_object_id: aliceTicket }]),
    })
    expect(crossLink.status).toBe(404)
    const still = await lookup(alice.token, { object_type: 'contacts', object_id: id, properties: 'firstname', associations: 'deals' })
    expect(still.body.response.properties).toEqual({ firstname: 'Secret' })
    expect(still.body.response.associations).toEqual({ deals: [] })
  })

  it('stores the result under output_variable_name in the workflow scope', async () => {
    const { token } = await newCaller()
    const headers = { 'workflow-id': 'wf-crm-1' }
    const made = await action(
      'crm.v2.update_object',
      { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'wf.example', properties: 'name=WF' },
      token,
      headers,
    )
    expect(made.status).toBe(200)
    const got = await action('crm.v2.lookup_object', { object_type: 'companies', object_id: '{{updated_object.id}}', properties: 'name' }, token, headers)
    expect(got.status).toBe(200)
    expect(got.body.response.properties).toEqual({ name: 'WF' })
  })

  it('lists, pages and deletes built-in records through the management routes', async () => {
    const { token } = await newCaller()
    const ids = [] as string[]
    for (const n of ['a', 'b', 'c']) ids.push(await createObject(token, 'tasks', { hs_task_subject: n }))
    const page1 = await request('GET', '/v1/integrations/crm/builtin/objects/tasks?limit=2', { token })
    expect(page1.body.response.results.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2))
    expect(page1.body.response.next_after).toBe(ids[1])
    const page2 = await request('GET', `/v1/integrations/crm/builtin/objects/tasks?limit=2&after=${ids[1]}`, { token })
    expect(page2.body.response).toMatchObject({ next_after: null })
    expect(page2.body.response.results[0].properties).toMatchObject({ hs_task_subject: 'c', hs_object_id: ids[2] })
    expect((await request('DELETE', `/v1/integrations/crm/builtin/objects/tasks/${ids[0]}`, { token })).status).toBe(200)
    expect((await lookup(token, { object_type: 'tasks', object_id: ids[0] })).status).toBe(404)
    expect((await request('GET', '/v1/integrations/crm/builtin/objects/planets', { token })).status).toBe(404)
    expect((await request('GET', '/v1/integrations/crm/builtin/objects/tasks?limit=0', { token })).status).toBe(400)
  })
})
