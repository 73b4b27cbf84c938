import { SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { inspectRoutes } from 'hono/dev'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { ADMIN, BASE, newCaller, request, type Json } from '../helpers'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

let token: string
let paths: Record<string, Record<string, unknown>>

/** A document path template as a regex over concrete paths: `{id}` is one segment. */
const templateRegex = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`)
/** A Hono route path (`/v1/agents/:id`) as a regex over concrete paths. */
const honoRegex = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`)
const concrete = (template: string, fill: string) => template.replace(/\{[^}]+\}/g, fill)

/** Methods the document promises for a concrete path, over every template it matches; HEAD goes with GET. */
function documentedMethods(path: string): Set<string> {
  const out = new Set<string>()
  for (const [template, item] of Object.entries(paths)) {
    if (!templateRegex(template).test(path)) continue
    for (const m of Object.keys(item)) if (['get', 'post', 'put', 'patch', 'delete'].includes(m)) out.add(m.toUpperCase())
  }
  if (out.has('GET')) out.add('HEAD')
  return out
}

beforeAll(async () => {
  token = (await newCaller('methods')).token
  paths = (await request('GET', '/v1/openapi.json')).body.paths
})

describe('wrong methods', () => {
  it('answer 405 with Allow on the routes the issue names, and TRACE anywhere', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/v1/me', 'GET, HEAD'],
      ['PUT', '/v1/tokens', 'GET, HEAD, POST'],
      ['DELETE', '/v1/agents', 'GET, HEAD, POST'],
      ['POST', '/v1/runs', 'GET, HEAD'],
      ['TRACE', '/v1/agents/abc', 'GET, HEAD, PATCH, DELETE'],
      ['TRACE', '/healthz', 'GET, HEAD'],
      ['GET', '/mcp', 'POST'],
      ['GET', '/v1/action/search', 'POST'],
    ] as const) {
      const res = await request(method, path, { token })
      expect(res.status, `${method} ${path}`).toBe(405)
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow)
      expect(res.body.code).toBe('METHOD_NOT_ALLOWED')
      expect(res.body.error).toContain(method)
    }
  })

  it('answer 405 before auth: a wrong method is wrong whoever asks', async () => {
    const res = await request('PUT', '/v1/me')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD')
  })

  it('every documented path answers every method it does not serve with 405 and the Allow the document implies', async () => {
    const templates = Object.keys(paths)
    expect(templates.length).toBeGreaterThan(40)
    const segment = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...templates), fc.constantFrom(...METHODS), segment, async (template, method, fill) => {
        const path = concrete(template, fill)
        const allowed = documentedMethods(path)
        const res = await SELF.fetch(`${BASE}${path}`, { method, headers: { authorization: `Bearer ${token}` } })
        await res.arrayBuffer()
        if (allowed.has(method)) {
          expect(res.status, `${method} ${path}`).not.toBe(405)
          return
        }
        expect(res.status, `${method} ${path}`).toBe(405)
        const allow = [...allowed].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)).join(', ')
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow)
      }),
      { numRuns: 300 },
    )
  })

  it('unknown paths stay 404 for every method', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v2', '/v1/nothing', '/v1/agents/a/b/c', '/v1/me/x', '/docs/x', '/v1/openapi'), fc.constantFrom(...METHODS), async (path, method) => {
        const res = await SELF.fetch(`${BASE}${path}`, { method, headers: { authorization: `Bearer ${token}` } })
        await res.arrayBuffer()
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.headers.get('allow')).toBeNull()
      }),
      { numRuns: 60 },
    )
  })
})

describe('the route table and the document', () => {
  it('every route mounted on the app has an operation in the document, and every operation a route', async () => {
    const routes = inspectRoutes(createApp()).filter((r) => !r.isMiddleware && r.method !== 'ALL')
    expect(routes.length).toBeGreaterThan(40)
    const ops = Object.entries(paths).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((m) => m !== 'parameters')
        .map((m) => ({ method: m.toUpperCase(), template })),
    )
    const undocumented = routes.filter((r) => !ops.some((o) => o.method === r.method && honoRegex(r.path).test(concrete(o.template, 'x1'))))
    expect(undocumented.map((r) => `${r.method} ${r.path}`)).toEqual([])
    const unserved = ops.filter((o) => !routes.some((r) => r.method === o.method && honoRegex(r.path).test(concrete(o.template, 'x1'))))
    expect(unserved.map((o) => `${o.method} ${o.template}`)).toEqual([])
  })

  it('documents GET /v1/artifacts/{id}, the token update and the list routes with their query parameters', async () => {
    expect(paths['/v1/artifacts/{id}']?.get).toBeDefined()
    expect(paths['/v1/tokens/{id}']?.patch).toBeDefined()
    const names = (p: string) => ((paths[p].get as Json).parameters as Json[]).filter((x) => x.in === 'query').map((x) => x.name)
    expect(names('/v1/agents')).toEqual(['limit', 'cursor'])
    expect(names('/v1/runs')).toEqual(['action', 'state', 'limit', 'cursor'])
    expect(names('/v1/admin/accounts')).toEqual(['limit', 'after'])
    expect(names('/v1/integrations/crm/builtin/objects/{type}')).toEqual(['limit', 'after'])
    expect(names('/v1/runs/{id}')).toEqual(['wait'])
  })
})

describe('unknown query parameters', () => {
  it('are refused with a 400 naming the parameter on every kind of route', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/agents?limt=5', undefined],
      ['GET', '/v1/runs?foo=1', undefined],
      ['GET', '/v1/me?foo=1', undefined],
      ['POST', '/v1/action/search?foo=1', { query: 'x' }],
      ['GET', '/healthz?foo=1', undefined],
    ] as const) {
      const res = await request(method, path, { token, body })
      expect(res.status, path).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
      expect(
        res.body.details.map((d: Json) => d.path),
        path,
      ).toEqual([expect.stringMatching(/^query:(limt|foo)$/)])
      expect(res.body.error).toMatch(/Unknown query parameter "(limt|foo)"/)
    }
  })

  it('any undeclared name is refused with a 400 naming it, on any documented operation', async () => {
    const ops = Object.entries(paths).flatMap(([template, item]) => Object.entries(item as Record<string, Json>).map(([method, op]) => ({ method: method.toUpperCase(), template, op })))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ops), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,20}$/), async ({ method, template, op }, name) => {
        const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name)
        fc.pre(!declared.includes(name))
        const auth: Record<string, string> = op.security?.length === 0 ? {} : { authorization: op.security?.[0]?.adminBearer ? ADMIN : `Bearer ${token}` }
        const res = await SELF.fetch(`${BASE}${concrete(template, 'x1')}?${new URLSearchParams({ [name]: '1' })}`, {
          method,
          headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
        })
        const body = (await res.json()) as Json
        expect(res.status, `${method} ${template}?${name}`).toBe(400)
        expect(body.details, `${method} ${template}?${name}`).toContainEqual({ path: `query:${name}`, message: `Unknown query parameter "${name}"` })
      }),
      { numRuns: 120 },
    )
  })

  it('declared ones are checked against their documented schema', async () => {
    expect((await request('GET', '/v1/agents?limit=0', { token })).status).toBe(400)
    expect((await request('GET', '/v1/agents?limit=5', { token })).status).toBe(200)
    expect((await request('GET', '/v1/runs/run_x?wait=-1', { token })).status).toBe(400)
  })
})
