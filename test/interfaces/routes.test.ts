import { SELF } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { actions } from '../../src/actions/registry'
import { ERROR_STATUS } from '../../src/http/errors'
import { BASE, newCaller, request, type Json } from '../helpers'
import { seedDemoCatalog } from '../seed'

let token: string

beforeAll(async () => {
  await seedDemoCatalog()
  token = (await newCaller('mcp-worker')).token
})

function rpc(body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify(body),
  })
}

describe('GET /v1/openapi.json', () => {
  it('documents every registered action, every error code and bearer security without a token', async () => {
    const res = await request('GET', '/v1/openapi.json')
    expect(res.status).toBe(200)
    const doc = res.body as Json
    expect(doc.openapi).toMatch(/^3\.1\./)
    for (const a of actions) expect(doc.paths[`/v1/action/${a.name}`]?.post?.operationId).toBe(a.name)
    const described = Object.values(doc.components.responses)
      .map((r: Json) => r.description)
      .join(' ')
    for (const code of Object.keys(ERROR_STATUS)) expect(described).toContain(code)
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }))
    expect(doc.paths['/v1/action/search'].post.requestBody.content['application/json'].schema.properties.format.enum).toEqual(['openai', 'openai_responses', 'anthropic', 'mcp'])
  })
})

describe('GET /docs', () => {
  it('serves a self-contained HTML page that loads the OpenAPI document', async () => {
    const res = await SELF.fetch(`${BASE}/docs`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/html/)
    const html = await res.text()
    expect(html).toContain("fetch('/v1/openapi.json')")
    expect(html).not.toMatch(/<script[^>]+src=/)
  })
})

describe('POST /mcp over plain JSON-RPC', () => {
  it('initializes without a session id', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Json
    expect(body.result.serverInfo.name).toBe('agent-action-api')
    expect(body.result.capabilities.tools).toBeDefined()
    expect(res.headers.get('mcp-session-id')).toBeNull()
  })

  it('answers 401 without a token and 403 for a foreign Origin', async () => {
    const anon = await SELF.fetch(`${BASE}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
    expect(anon.status).toBe(401)
    const foreign = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' })
    expect(foreign.status).toBe(403)
    const same = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: BASE })
    expect(same.status).toBe(200)
  })

  it('reads its body as every route does: over MAX_BODY_BYTES a 413, broken or too deep JSON a 400, as JSON-RPC parse errors', async () => {
    const big = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(1_100_000) } } })
    expect(big.status).toBe(413)
    expect(((await big.json()) as Json).error).toMatchObject({ code: -32000, message: expect.stringContaining('1048576 bytes') })
    const deep = await SELF.fetch(`${BASE}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":${'['.repeat(5000)}${']'.repeat(5000)}}}}`,
    })
    expect(deep.status).toBe(400)
    expect(((await deep.json()) as Json).error).toMatchObject({ code: -32700, message: expect.stringContaining('/params/arguments/query/0/0/0/0/0/…') })
    const broken = await SELF.fetch(`${BASE}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":',
    })
    expect(broken.status).toBe(400)
    expect(((await broken.json()) as Json).error.code).toBe(-32700)
  })

  it('answers 405 with Allow: POST to GET', async () => {
    const res = await SELF.fetch(`${BASE}/mcp`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  it('lists actions and visible agents as tools, and calls search through the action pipeline', async () => {
    const list = (await (await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).json()) as Json
    const names = list.result.tools.map((t: Json) => t.name)
    expect(names).toContain('search')
    expect(names).toContain('crm_v2_lookup_object')
    expect(names.some((n: string) => n.startsWith('invoke_agent_'))).toBe(true)
    const call = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: 'youtube', limit: 2 } } })
    const body = (await call.json()) as Json
    expect(body.result.isError).toBeUndefined()
    expect(body.result.structuredContent.response).toHaveLength(2)
    expect(call.headers.get('ratelimit-limit')).not.toBeNull()
  })

  it('returns a tool error naming the field for bad arguments', async () => {
    const body = (await (await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'search', arguments: { limit: 'ten' } } })).json()) as Json
    expect(body.result.isError).toBe(true)
    expect(body.result.structuredContent.code).toBe('VALIDATION_FAILED')
    expect(body.result.content[0].text).toContain('/limit')
  })
})
