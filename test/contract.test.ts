import { Validator } from '@cfworker/json-schema'
import { SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { arbitraryOf, dereference, invalidBodyArbitrary, type Schema } from './contract/schema-arbitrary'
import { ADMIN, BASE, createAccount, createTeam, createToken, newCaller, request, type Json } from './helpers'

/**
 * The OpenAPI document as a contract, checked from the document alone: for every operation, requests
 * generated from its own schemas (valid ones, and ones broken in the ways its schemas forbid) go
 * through the Worker, and every answer must have a documented status, a body its documented schema
 * accepts, and no 5xx but the documented 502/503/504 of offline upstreams. A request the document
 * refuses must not succeed.
 */

const SEED = 20_261_123
const VALID_PER_OPERATION = 5
const INVALID_PER_OPERATION = 5

interface Operation {
  method: string
  template: string
  op: Json
  security: 'bearer' | 'admin' | 'none'
}

interface Case {
  kind: 'valid' | 'invalid'
  how: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  body?: string
  /** The document's own schemas refuse this request, so the server must not answer 2xx. */
  refused: boolean
}

let doc: Json
let token: string
const pools: Record<string, string[]> = {}
const validators = new Map<unknown, Validator>()

function validate(schema: Schema, value: unknown): { valid: boolean; errors: string[] } {
  let v = validators.get(schema)
  if (!v) validators.set(schema, (v = new Validator(schema as never, '2020-12', false)))
  const r = v.validate(value)
  return { valid: r.valid, errors: r.errors.slice(0, 3).map((e) => `${e.instanceLocation} ${e.error}`) }
}

function operations(): Operation[] {
  const out: Operation[] = []
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const security = op.security === undefined ? 'bearer' : op.security.length === 0 ? 'none' : 'admin'
      out.push({ method: method.toUpperCase(), template, op, security })
    }
  }
  // Deletes last, so what they remove stays there for the rest.
  return out.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))
}

/** Values for a path parameter: generated from its schema, or an object the test made (so some requests find one). */
function paramArbitrary(template: string, p: Json): fc.Arbitrary<string> {
  const generated = arbitraryOf(p.schema).map((v) => encodeURIComponent(String(v)).slice(0, 80) || 'x')
  const pool = pools[`${template}#${p.name}`] ?? []
  return pool.length ? fc.oneof(generated, fc.constantFrom(...pool)) : generated
}

function authHeaders(o: Operation): Record<string, string> {
  if (o.security === 'bearer') return { authorization: `Bearer ${token}` }
  if (o.security === 'admin') return { authorization: ADMIN }
  return {}
}

/** A valid request of an operation, as its document describes one. */
function validCase(o: Operation): fc.Arbitrary<Case> {
  const params: Json[] = o.op.parameters ?? []
  const pathArb = fc.tuple(...params.filter((p) => p.in === 'path').map((p) => paramArbitrary(o.template, p).map((v) => [p.name, v] as const)))
  const queryArb = fc.tuple(
    ...params
      .filter((p) => p.in === 'query')
      .map((p) =>
        fc.option(
          arbitraryOf(p.schema).map((v) => [p.name, String(v)] as const),
          { nil: undefined },
        ),
      ),
  )
  const headerParams = params.filter((p) => p.in === 'header')
  const headerArb = fc.tuple(
    ...headerParams.map((p) => {
      // Queued actions would hold the request for the default wait; every call says how long to wait instead.
      const value = p.name === 'Prefer' ? fc.constantFrom('wait=0', 'respond-async') : arbitraryOf(p.schema).map(String)
      return p.required || p.name === 'Prefer'
        ? value.map((v) => [p.name, v] as const)
        : fc.option(
            value.map((v) => [p.name, v] as const),
            { nil: undefined },
          )
    }),
  )
  const media = o.op.requestBody?.content?.['application/json']
  const examples = Object.values(media?.examples ?? {}).map((e: Json) => e.value)
  const bodyArb: fc.Arbitrary<unknown> = media ? (examples.length ? fc.oneof(fc.constantFrom(...examples), arbitraryOf(media.schema)) : arbitraryOf(media.schema)) : fc.constant(undefined)
  return fc.tuple(pathArb, queryArb, headerArb, bodyArb).map(([path, query, headers, body]) => {
    const h: Record<string, string> = { ...authHeaders(o) }
    for (const e of headers) if (e) h[e[0]] = e[1]
    if (body !== undefined) h['content-type'] = 'application/json'
    const refused = media && body !== undefined ? !validate(media.schema, body).valid : false
    return {
      kind: 'valid',
      how: refused ? 'generated (the schema refuses it)' : 'generated',
      path: path.reduce((p, [name, v]) => p.replace(`{${name}}`, v), o.template),
      query: Object.fromEntries(query.filter((q): q is readonly [string, string] => q !== undefined)),
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      refused,
    } satisfies Case
  })
}

/** A request broken in one of the ways the document forbids. */
function invalidCase(o: Operation): fc.Arbitrary<Case> {
  const base = validCase(o)
  const media = o.op.requestBody?.content?.['application/json']
  const options: fc.Arbitrary<Case>[] = [base.map((c) => ({ ...c, kind: 'invalid', how: 'unknown query parameter', query: { ...c.query, zz_unknown: '1' }, refused: true }))]
  if (o.security !== 'none') {
    options.push(base.map((c) => ({ ...c, kind: 'invalid', how: 'no token', headers: Object.fromEntries(Object.entries(c.headers).filter(([k]) => k !== 'authorization')), refused: true })))
  }
  if (media) {
    options.push(
      fc.tuple(base, invalidBodyArbitrary(media.schema, arbitraryOf(media.schema))).map(([c, bad]) => ({
        ...c,
        kind: 'invalid',
        how: bad.how,
        body: JSON.stringify(bad.body),
        refused: !validate(media.schema, bad.body).valid,
      })),
      base.map((c) => ({ ...c, kind: 'invalid', how: 'malformed JSON', body: '{"a":', refused: true })),
      base.map((c) => ({ ...c, kind: 'invalid', how: 'not JSON', headers: { ...c.headers, 'content-type': 'text/plain' }, body: 'a=1', refused: true })),
    )
  }
  return fc.oneof(...options)
}

/** What is wrong with an answer, or null. */
async function check(o: Operation, c: Case, res: Response): Promise<string | null> {
  const text = await res.text()
  const documented = o.op.responses[String(res.status)] ?? o.op.responses.default
  if (res.status === 500 || (res.status >= 500 && ![502, 503, 504].includes(res.status))) return `answered ${res.status}: ${text.slice(0, 200)}`
  if (!documented) return `status ${res.status} is not documented (${Object.keys(o.op.responses).join(', ')}): ${text.slice(0, 200)}`
  if (c.refused && res.status < 400) return `the document refuses this request but the server answered ${res.status}`
  if (!res.headers.get('x-request-id')) return 'no x-request-id'
  const content = documented.content as Record<string, Json> | undefined
  if (!content || text === '') return null
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim()
  const media = content[type]
  if (!media) return `content-type ${type} is not documented for ${res.status} (${Object.keys(content).join(', ')})`
  if (type !== 'application/json') return null
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return `not JSON: ${text.slice(0, 100)}`
  }
  const result = validate(media.schema, body)
  return result.valid ? null : `body does not match the documented schema: ${result.errors.join('; ')}; body ${text.slice(0, 300)}`
}

async function send(o: Operation, c: Case): Promise<Response> {
  const qs = new URLSearchParams(c.query).toString()
  return SELF.fetch(`${BASE}${c.path}${qs ? `?${qs}` : ''}`, { method: o.method, headers: c.headers, body: c.body })
}

beforeAll(async () => {
  const caller = await newCaller('contract caller')
  token = caller.token
  const raw = (await request('GET', '/v1/openapi.json')).body
  doc = dereference(raw)
  const agent = await request('POST', '/v1/agents', {
    token,
    body: {
      name: 'Contract agent',
      description: 'Made by the contract test',
      visibility: 'private',
      slug: 'contract-agent',
      workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] },
    },
  })
  const run = await request('POST', '/v1/action/search', { token, body: { query: 'contract' } })
  const target = await createAccount('contract target')
  await createToken(target)
  const targetToken = (await request('GET', `/v1/admin/accounts/${target}/tokens`, { token: ADMIN })).body.response[0].id
  const team = await createTeam('contract team', [target])
  Object.assign(pools, {
    '/v1/agents/{id}#id': [agent.body.response.id, 'contract-agent'],
    '/v1/agents/{id}/review#id': [agent.body.response.id],
    '/v1/runs/{id}#id': [run.headers.get('x-run-id')!],
    '/v1/admin/accounts/{id}#id': [target],
    '/v1/admin/accounts/{id}/tokens#id': [target],
    '/v1/admin/tokens/{id}#id': [targetToken],
    '/v1/admin/teams/{id}/members#id': [team],
    '/v1/admin/teams/{id}/members/{accountId}#id': [team],
    '/v1/admin/teams/{id}/members/{accountId}#accountId': [target],
  })
}, 60_000)

describe('the OpenAPI document as a contract', () => {
  it('every operation answers generated valid and invalid requests with a documented status and a body of the documented schema', async () => {
    const ops = operations()
    expect(ops.length).toBeGreaterThan(60)
    const failures: string[] = []
    let requests = 0
    const statuses: Record<string, number> = {}
    for (const [i, o] of ops.entries()) {
      const cases = [...fc.sample(validCase(o), { numRuns: VALID_PER_OPERATION, seed: SEED + i }), ...fc.sample(invalidCase(o), { numRuns: INVALID_PER_OPERATION, seed: SEED + 7919 * (i + 1) })]
      for (const c of cases) {
        requests++
        const res = await send(o, c)
        statuses[`${c.kind}:${res.status}`] = (statuses[`${c.kind}:${res.status}`] ?? 0) + 1
        const problem = await check(o, c, res)
        if (problem)
          failures.push(
            `${o.method} ${o.template} [${c.kind}: ${c.how}] ${o.method} ${c.path}${Object.keys(c.query).length ? `?${new URLSearchParams(c.query)}` : ''} ${c.body?.slice(0, 200) ?? ''} -> ${problem}`,
          )
      }
    }
    console.info(
      `contract statuses ${Object.entries(statuses)
        .sort()
        .map(([k, n]) => `${k}=${n}`)
        .join(' ')}`,
    )
    console.info(`contract operations=${ops.length} requests=${requests} failures=${failures.length}`)
    expect(failures.slice(0, 25)).toEqual([])
  }, 180_000)
})
