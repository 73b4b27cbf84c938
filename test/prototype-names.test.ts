import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { headingKind } from '../src/audit/questions'
import { decodeEntities } from '../src/lib/text'
import { isNonDescriptive } from '../src/providers/web/link-text'
import { runAudit } from './audit/run-audit'
import { action, mockFetch, newCaller, request, type Json } from './helpers'

/**
 * Names that every plain object inherits from Object.prototype ("constructor", "__proto__",
 * "toString" ...). Wherever outside text is looked up in a table or an object (a body's field names,
 * a CRM object type, an agent's parameter names, a page's lang attribute or entity names), such a
 * name must read as any unknown name does: never as the inherited function, never a 500.
 */
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype)
const protoName = fc.constantFrom(...PROTO_NAMES)
/** The spellings a lower-casing or trimming lookup turns into an inherited name. */
const spelled = (name: string) => fc.constantFrom(name, name.toUpperCase(), ` ${name} `, name[0].toUpperCase() + name.slice(1))

let caller: { token: string; accountId: string }
const WF = { 'workflow-id': 'prototype-names' }

beforeAll(async () => {
  caller = await newCaller('prototype names')
  expect((await action('store_variable', { name: 'x', value: 'hello' }, caller.token, WF)).status).toBe(200)
})

/** POSTs raw JSON text, so a "__proto__" key reaches the Worker as an own key. */
const raw = (path: string, text: string, headers: Record<string, string> = {}) => request('POST', path, { token: caller.token, raw: text, headers: { 'content-type': 'application/json', ...headers } })

describe('a body field named like an Object.prototype member', () => {
  it('holding a reference is a 400 naming the field, not a 500 (the minimal case)', async () => {
    const res = await raw('/v1/action/search', '{"query":"a","constructor":"{{x}}"}', WF)
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.details).toContainEqual({ path: '/constructor', message: expect.any(String) })
  })

  it('holding a reference is a 400 naming the field for every such name and action (fast-check)', async () => {
    const bodies: Record<string, Json> = {
      search: { query: 'a' },
      meeting_prep_generate_subject_line: { meeting_title: 'Kickoff' },
      get_variable: { name: 'x' },
      'crm.v2.lookup_object': { object_type: 'contacts', object_id: '1' },
    }
    await fc.assert(
      fc.asyncProperty(protoName, fc.constantFrom(...Object.keys(bodies)), fc.constantFrom('{{x}}', ' {{ x }} ', 'a {{x}} b'), async (name, actionName, reference) => {
        const text = JSON.stringify(bodies[actionName]).slice(0, -1) + `,${JSON.stringify(name)}:${JSON.stringify(reference)}}`
        const res = await raw(`/v1/action/${actionName}`, text, WF)
        expect(res.status, `${actionName} ${name}: ${JSON.stringify(res.body)}`).toBe(400)
        expect(res.body.code).toBe('VALIDATION_FAILED')
        expect(res.body.details.map((d: Json) => d.path)).toContain(`/${name}`)
      }),
      { numRuns: 60, seed: 20261129 },
    )
  })

  it("in an agent's step input makes the step a 400 naming the field, not a 500 on every call", async () => {
    const created = await request('POST', '/v1/agents', {
      token: caller.token,
      body: {
        name: 'Prototype step',
        description: 'A step input field named constructor',
        parameters: { properties: { q: { type: 'string' } } },
        workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x', constructor: '{{input.q}}' } }] },
      },
    })
    expect(created.status).toBe(201)
    const res = await action('invoke_agent', { id: created.body.response.id, input: { q: 'z' } }, caller.token)
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.error).toContain('Workflow step "s"')
    expect(res.body.details.map((d: Json) => d.path)).toContain('/constructor')
  })
})

describe('a CRM object type named like an Object.prototype member', () => {
  it('is an unknown type on the built-in CRM routes (404) and in the CRM actions (400 naming object_type), never a 500 (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        protoName.chain((n) => spelled(n)),
        async (type) => {
          const path = `/v1/integrations/crm/builtin/objects/${encodeURIComponent(type)}`
          for (const [method, body] of [
            ['GET', undefined],
            ['POST', { properties: { email: 'ada@example.com' } }],
          ] as const) {
            const res = await request(method, path, { token: caller.token, body })
            expect(res.status, `${method} ${type}: ${JSON.stringify(res.body)}`).toBe(404)
            expect(res.body.code).toBe('NOT_FOUND')
          }
          const removed = await request('DELETE', `${path}/1`, { token: caller.token })
          expect(removed.status, `DELETE ${type}`).toBe(404)
          for (const [name, body] of [
            ['crm.v2.lookup_object', { object_type: type, object_id: '1' }],
            ['crm.v2.update_object', { object_type: type, identifier_value: '1', properties: '{"a":"b"}' }],
          ] as const) {
            const res = await action(name, body, caller.token)
            expect(res.status, `${name} ${type}: ${JSON.stringify(res.body)}`).toBe(400)
            expect(res.body.details.map((d: Json) => d.path)).toContain('/object_type')
          }
        },
      ),
      { numRuns: 30, seed: 20261129 },
    )
  })

  it('"constructor" on the list route is a 404, not a 500 (the minimal case)', async () => {
    const res = await request('GET', '/v1/integrations/crm/builtin/objects/constructor', { token: caller.token })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
  })
})

describe("an agent's parameter names", () => {
  const agent = async (parameters: Json, query = 'x') =>
    request('POST', '/v1/agents', { token: caller.token, body: { name: 'Params', description: 'Parameter names', parameters, workflow: { steps: [{ id: 's', action: 'search', input: { query } }] } } })

  it('refuse a required name or a reference that names no declared parameter, whatever Object.prototype holds (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        protoName.filter((n) => /^[A-Za-z_]\w*$/.test(n)),
        async (name) => {
          const required = await agent({ properties: { q: { type: 'string' } }, required: [name] })
          expect(required.status, `required ${name}`).toBe(400)
          expect(required.body.details.map((d: Json) => d.path)).toContain('/parameters/required/0')
          const referenced = await agent({ properties: { q: { type: 'string' } } }, `{{input.${name}}}`)
          expect(referenced.status, `{{input.${name}}}`).toBe(400)
          expect(referenced.body.details.map((d: Json) => d.path)).toContain('/workflow/steps/0/input/query')
        },
      ),
      { numRuns: 20, seed: 20261129 },
    )
  })

  it('an unknown parameter named like an Object.prototype member is a 400 naming it; a declared one left out takes its default (fast-check)', async () => {
    const plain = await agent({ properties: { q: { type: 'string' } } })
    expect(plain.status).toBe(201)
    await fc.assert(
      fc.asyncProperty(
        protoName.filter((n) => n !== '__proto__'),
        async (name) => {
          const res = await request('POST', `/v1/action/invoke_agent_${plain.body.response.id}`, { token: caller.token, body: { q: 'x', [name]: 'y' } })
          expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400)
          expect(res.body.details).toContainEqual({ path: `/input/${name}`, message: `Unknown parameter "${name}"` })
        },
      ),
      { numRuns: 20, seed: 20261129 },
    )
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const declared = await agent({ properties: { [name]: { type: 'string', default: 'fallback' } } }, `{{input.${name}}}`)
      expect(declared.status, JSON.stringify(declared.body)).toBe(201)
      const res = await action('invoke_agent', { id: declared.body.response.id, input: {} }, caller.token)
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200)
    }
  })
})

describe("a page's lang attribute and entity names", () => {
  it('read as an unknown language or entity (fast-check)', () => {
    fc.assert(
      fc.property(
        protoName.chain((n) => spelled(n)),
        fc.constantFrom('How do I start?', 'How do I start', 'What we do', 'click here', 'Pricing'),
        (name, text) => {
          expect(isNonDescriptive(text, name)).toBe(isNonDescriptive(text, 'xx'))
          expect(headingKind(text, name)).toBe(headingKind(text, 'xx'))
          const entity = `&${name.trim()};`
          if (/^&[a-z]+;$/i.test(entity)) expect(decodeEntities(`a ${entity} b`)).toBe(`a ${entity} b`)
        },
      ),
      { numRuns: 300, seed: 20261129 },
    )
  })

  it('lang="constructor" and "&constructor;" leave a site auditable and its title as written', async () => {
    mockFetch((req) => {
      const url = new URL(req.url)
      if (url.hostname !== 'proto-site.test') return null
      if (url.pathname !== '/') return new Response('not found', { status: 404 })
      return new Response(
        '<!doctype html><html lang="constructor"><head><title>Tips &constructor; tricks</title><meta name="description" content="A page"></head><body><h1>How do I start?</h1><a href="/b">click here</a></body></html>',
        { headers: { 'content-type': 'text/html' } },
      )
    })
    const { run, response } = await runAudit(caller.token, { website_url: 'https://proto-site.test/' })
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    expect(response.inventory[0].title).toBe('Tips &constructor; tricks')
  })
})
