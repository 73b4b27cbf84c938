import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
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
})
