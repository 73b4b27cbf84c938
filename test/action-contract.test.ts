import { env, SELF } from 'cloudflare:test'
import type { z } from 'zod'
import { beforeAll, describe, expect, it } from 'vitest'
import { actions } from '../src/actions/registry'
import { createToken, newCaller, request, type Json } from './helpers'

/** The base zod type of a field, unwrapping optional/default/nullable. */
function baseType(schema: z.ZodType): string {
  let s = schema as unknown as { _zod: { def: { type: string; innerType?: unknown; in?: unknown } } }
  for (let i = 0; i < 8; i++) {
    const def = s._zod.def
    if (['optional', 'default', 'nullable', 'prefault'].includes(def.type) && def.innerType) s = def.innerType as typeof s
    else if (def.type === 'pipe' && def.in) s = def.in as typeof s
    else return def.type
  }
  return 'unknown'
}

/** A JSON value of the wrong type for a field, or undefined when any JSON is acceptable. */
function wrongValue(type: string): unknown {
  switch (type) {
    case 'string':
    case 'enum':
    case 'literal':
      return 12345
    case 'boolean':
      return 'not-a-boolean'
    case 'number':
    case 'int':
      return 'not-a-number'
    case 'array':
      return 'not-an-array'
    case 'object':
    case 'record':
      return 42
    case 'union':
      return [[1], [2]]
    default:
      return undefined
  }
}

let token: string
let accountId: string

beforeAll(async () => {
  ;({ token, accountId } = await newCaller('contract'))
})

describe.each(actions.map((a) => [a.name, a] as const))('action %s', (name, definition) => {
  const path = `/v1/action/${name}`

  it('answers 401 with WWW-Authenticate when there is no token', async () => {
    const res = await request('POST', path, { body: {} })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(res.body).toMatchObject({ status: 401, response: null, code: 'UNAUTHORIZED' })
  })

  it('answers 401 for a malformed Authorization header', async () => {
    for (const header of ['Token abc', 'Bearer', `Basic ${btoa('a:b')}`, 'Bearer a b']) {
      const res = await SELF.fetch(`https://api.test${path}`, { method: 'POST', headers: { authorization: header, 'content-type': 'application/json' }, body: '{}' })
      expect(res.status, header).toBe(401)
    }
  })

  it('answers 401 for an unknown token', async () => {
    const res = await request('POST', path, { token: `aak_${'x'.repeat(43)}`, body: {} })
    expect(res.status).toBe(401)
    expect(res.body.error).toBe('Invalid token')
  })

  it('answers 401 for a revoked token', async () => {
    const t = await createToken(accountId, { name: 'to revoke' })
    const list = await request('GET', '/v1/tokens', { token })
    const id = (list.body.response as Json[]).find((x) => x.name === 'to revoke' && !x.revoked_at).id
    expect((await request('DELETE', `/v1/tokens/${id}`, { token })).status).toBe(200)
    const res = await request('POST', path, { token: t, body: {} })
    expect(res.status).toBe(401)
    expect(res.body.error).toMatch(/revoked/)
  })

  it('answers 401 for an expired token', async () => {
    const t = await createToken(accountId, { name: 'to expire', expires_in_days: 1 })
    await env.DB.prepare("UPDATE api_tokens SET expires_at = ? WHERE name = 'to expire'")
      .bind(Date.now() - 1000)
      .run()
    const res = await request('POST', path, { token: t, body: {} })
    expect(res.status).toBe(401)
    expect(res.body.error).toMatch(/expired/)
  })

  it('answers 405 with Allow: POST to GET', async () => {
    const res = await request('GET', path, { token })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED')
  })

  it('answers 415 to a body that is not JSON', async () => {
    const res = await request('POST', path, { token, raw: 'query=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(415)
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('answers 400 to malformed JSON', async () => {
    const res = await request('POST', path, { token, raw: '{"query": ', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('INVALID_JSON')
  })

  it('answers 413 to a body over the limit', async () => {
    const res = await request('POST', path, { token, raw: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) }), headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(413)
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('rejects an unknown field, naming it', async () => {
    const res = await request('POST', path, { token, body: { surprise_field: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.details).toContainEqual(expect.objectContaining({ path: '/surprise_field' }))
    expect(res.body.error).toContain('surprise_field')
  })

  const shape = (definition.input as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {}
  const typed = Object.entries(shape)
    .map(([field, schema]) => [field, wrongValue(baseType(schema))] as const)
    .filter(([, v]) => v !== undefined)
  it.each(typed)('answers 400 naming "%s" when it has the wrong type', async (field, value) => {
    const res = await request('POST', path, { token, body: { [field]: value } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ status: 400, response: null })
    expect((res.body.details as Json[]).some((d) => d.path === `/${field}`)).toBe(true)
  })

  it('answers 429 with retry-after once the rate limit is used up', async () => {
    const limited = await newCaller('limited', { perMinute: 1, perDay: 1000 })
    await request('POST', path, { token: limited.token, body: { surprise_field: 1 } })
    const res = await request('POST', path, { token: limited.token, body: {} })
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(res.headers.get('ratelimit-limit')).toBe('1')
    expect(res.headers.get('ratelimit-remaining')).toBe('0')
    expect(res.body.code).toBe('RATE_LIMITED')
  })
})
