import { ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { actions } from '../../src/actions/registry'
import { actionTool } from '../../src/interfaces/mcp'
import { action, newCaller, type Json } from '../helpers'
import { seedDemoCatalog } from '../seed'
import { anthropicProblems, openaiProblems } from './vendor-rules'

let token: string

beforeAll(async () => {
  await seedDemoCatalog()
  token = (await newCaller('formats')).token
})

const every = (format?: string) => action('search', { status: 'all', limit: 100, ...(format ? { format } : {}) }, token)

describe('search format', () => {
  it('answers the spec descriptor when no format is given, and the same with format openai', async () => {
    const plain = await every()
    const openai = await every('openai')
    expect(plain.status).toBe(200)
    expect(plain.body.response.length).toBeGreaterThan(5)
    expect(openai.body.response).toEqual(plain.body.response)
    const hit = plain.body.response[0]
    expect(Object.keys(hit)).toEqual(['type', 'function'])
    expect(Object.keys(hit.function)).toEqual(['name', 'description', 'metadata', 'parameters', 'strict'])
  })

  it('gives the same hits, in the same order, as Anthropic tools', async () => {
    const openai = (await every()).body.response as Json[]
    const res = await every('anthropic')
    expect(res.status).toBe(200)
    expect(res.body.response.map((t: Json) => t.name)).toEqual(openai.map((d) => d.function.name))
    expect(res.body.response[0]).toEqual({ name: openai[0].function.name, description: openai[0].function.description, input_schema: openai[0].function.parameters })
  })

  it('gives the same hits as MCP tools with annotations and the search metadata in _meta', async () => {
    const openai = (await every()).body.response as Json[]
    const res = await every('mcp')
    expect(res.status).toBe(200)
    const tools = res.body.response as Json[]
    expect(tools.map((t) => t.name)).toEqual(openai.map((d) => d.function.name))
    expect(tools[0].inputSchema).toEqual(openai[0].function.parameters)
    expect(tools[0].title).toBe(openai[0].function.metadata.name)
    expect(tools[0]._meta['agent-action-api/agent']).toEqual(openai[0].function.metadata)
    for (const t of tools) expect(Object.keys(t.annotations).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
  })

  it('rejects an unknown format with a 400 naming the field', async () => {
    const res = await action('search', { format: 'gemini' }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/format')
  })
})

describe('vendor tool rules', () => {
  it('every Anthropic descriptor passes the strict tool-use rules', async () => {
    const tools = (await every('anthropic')).body.response as Json[]
    for (const t of tools) expect(anthropicProblems(t), t.name).toEqual([])
  })

  it('every MCP descriptor is a valid MCP Tool and has a vendor-safe name', async () => {
    const tools = (await every('mcp')).body.response as Json[]
    for (const t of tools) {
      expect(ToolSchema.safeParse(t).success, t.name).toBe(true)
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
    }
  })

  it('every action the MCP server lists is a valid MCP Tool with an object input schema', () => {
    for (const a of actions) {
      const tool = actionTool(a)
      expect(ToolSchema.safeParse(tool).success, a.name).toBe(true)
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(tool.inputSchema.type).toBe('object')
    }
  })

  it('every OpenAI descriptor passes the function-calling rules; strict ones also pass strict mode unless they keep optional parameters', async () => {
    const tools = (await every()).body.response as Json[]
    for (const t of tools) {
      const fn = t.function
      const optional = Object.keys(fn.parameters.properties).filter((k) => !fn.parameters.required.includes(k))
      const hasDefault = Object.values(fn.parameters.properties).some((p: Json) => p.default !== undefined)
      // The spec fixes `strict: true` and the agent's own `required` list; OpenAI strict mode asks every
      // property to be required and no defaults, so such agents pass only the non-strict rules (docs/interfaces.md).
      const problems = openaiProblems(optional.length || hasDefault ? { ...t, function: { ...fn, strict: false } } : t)
      expect(problems, fn.name).toEqual([])
    }
  })
})
