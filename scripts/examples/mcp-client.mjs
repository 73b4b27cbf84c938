#!/usr/bin/env node
/**
 * The service from an MCP client: list the tools, search the catalog, then run the best agent.
 *
 *   npm run dev                                   # in another terminal
 *   node scripts/examples/mcp-client.mjs "marketing email nurture"
 *
 * Settings: API_URL (default http://localhost:8787), TOKEN (default: .wrangler/dev-token from `npm run dev`).
 */
import { existsSync, readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const base = process.env.API_URL ?? 'http://localhost:8787'
const token = process.env.TOKEN ?? (existsSync('.wrangler/dev-token') ? readFileSync('.wrangler/dev-token', 'utf8').trim() : '')
if (!token) throw new Error('Set TOKEN, or run `npm run dev` first (it writes .wrangler/dev-token)')
const query = process.argv[2] ?? 'marketing email nurture'

const client = new Client({ name: 'agent-action-api-example', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))

const { tools } = await client.listTools()
console.log(`${tools.length} tools, e.g. ${tools.slice(0, 4).map((t) => t.name).join(', ')}`)

const found = await client.callTool({ name: 'search', arguments: { query, limit: 3, format: 'mcp' } })
if (found.isError) throw new Error(found.content[0].text)
const hits = found.structuredContent.response
for (const h of hits) console.log(`- ${h.name}: ${h.title}`)
if (hits.length === 0) process.exit(0)

// Fill the best agent's required string parameters with the query; a model would choose real values.
const best = hits[0]
const args = Object.fromEntries((best.inputSchema.required ?? []).map((name) => [name, query]))
console.log(`\nCalling ${best.name} with ${JSON.stringify(args)}`)
const result = await client.callTool({ name: best.name, arguments: args })
if (result.isError) console.log(`Tool error: ${result.content[0].text}`)
else if (result.structuredContent?.status === 202) console.log(`Still running; poll ${base}${result.structuredContent.response.poll}?wait=30`)
else {
  const text = JSON.stringify(result.structuredContent?.response ?? result.content, null, 2)
  const limit = 2000
  console.log(text.length > limit ? `${text.slice(0, limit)}\n... (output cut: first ${limit} of ${text.length} characters shown)` : text)
}
await client.close()
