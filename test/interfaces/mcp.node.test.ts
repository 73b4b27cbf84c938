import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

const { url, token } = inject('devServer')
let client: Client

beforeAll(async () => {
  client = new Client({ name: 'mcp-node-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
})

afterAll(async () => {
  await client?.close()
})

describe('the MCP server, through the official SDK client', () => {
  it('lists the actions and the visible agents as tools with schemas and annotations', async () => {
    const { tools } = await client.listTools()
    const search = tools.find((t) => t.name === 'search')
    expect(search?.inputSchema.type).toBe('object')
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['query', 'status', 'limit', 'page', 'format']))
    expect(search?.annotations).toEqual(expect.objectContaining({ readOnlyHint: true, destructiveHint: false, idempotentHint: true }))
    const finder = tools.find((t) => t.title === 'Marketing Agent Finder')
    expect(finder?.name).toBe('invoke_agent_mktfind01')
    expect(finder?.inputSchema.required).toEqual(['need'])
    expect(finder?.annotations?.readOnlyHint).toBe(true)
    expect(tools.every((t) => /^[a-zA-Z0-9_-]{1,64}$/.test(t.name))).toBe(true)
  })

  it('calls search and gets structured hits', async () => {
    const result = (await client.callTool({ name: 'search', arguments: { query: 'youtube transcript', limit: 3, format: 'mcp' } })) as Json
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.status).toBe(200)
    expect(result.structuredContent.response).toHaveLength(3)
    expect(result.structuredContent.response[0].name).toMatch(/^invoke_agent_/)
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent.response)
  })

  it('calls an agent by its tool name and gets its output', async () => {
    const result = (await client.callTool({ name: 'invoke_agent_mktfind01', arguments: { need: 'email nurture' } })) as Json
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.status).toBe(200)
    expect(result.structuredContent.run_id).toMatch(/^run_/)
    expect(Array.isArray(result.structuredContent.response)).toBe(true)
  })

  it('answers a bad call with a clear tool error a model can act on', async () => {
    const result = (await client.callTool({ name: 'invoke_agent_mktfind01', arguments: {} })) as Json
    expect(result.isError).toBe(true)
    expect(result.structuredContent.code).toBe('VALIDATION_FAILED')
    expect(result.content[0].text).toMatch(/need/)
  })

  it('answers an unknown tool with a JSON-RPC invalid-params error', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool "no_such_tool"/)
  })

  it('refuses a client without a token', async () => {
    const anon = new Client({ name: 'anon', version: '1.0.0' })
    await expect(anon.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))).rejects.toThrow()
  })

  it('reports a refused token as a 401 naming the token, without starting OAuth discovery', async () => {
    const paths: string[] = []
    const recording: typeof fetch = (input, init) => {
      paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname)
      return fetch(input, init)
    }
    const bad = new Client({ name: 'bad-token', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer aak_${'x'.repeat(43)}` } }, fetch: recording })
    const err = await bad.connect(transport).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(StreamableHTTPError)
    expect((err as StreamableHTTPError).code).toBe(401)
    expect((err as Error).message).toMatch(/Invalid token/)
    expect(paths.every((p) => p === '/mcp')).toBe(true)
  })

  it('gives an OAuth-aware client an invalid_token challenge and metadata that names bearer tokens and no authorization server', async () => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer aak_${'x'.repeat(43)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    })
    expect(res.status).toBe(401)
    const challenge = extractWWWAuthenticateParams(res)
    expect(challenge.error).toBe('invalid_token')
    expect(String(challenge.resourceMetadataUrl)).toBe(`${url}/.well-known/oauth-protected-resource/mcp`)
    const prm = await discoverOAuthProtectedResourceMetadata(new URL(`${url}/mcp`), { resourceMetadataUrl: challenge.resourceMetadataUrl })
    expect(prm.resource).toBe(`${url}/mcp`)
    expect(prm.bearer_methods_supported).toEqual(['header'])
    expect(prm.authorization_servers).toBeUndefined()
    // Without the challenge's URL, the SDK finds the same document by the RFC 9728 well-known path.
    expect(await discoverOAuthProtectedResourceMetadata(new URL(`${url}/mcp`))).toEqual(prm)
  })
})
