import { ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { toStrictJsonSchema } from 'openai/lib/transform'
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions'
import type { FunctionTool } from 'openai/resources/responses/responses'
import { beforeAll, describe, expect, it } from 'vitest'
import { actions, getAction } from '../../src/actions/registry'
import { formatAgent, type McpTool } from '../../src/agents/formats'
import { ParametersSchema } from '../../src/agents/schema'
import { MCP, OPENAI_STRICT, toDialect, UnrepresentableSchema, zodJsonSchema, type JsonSchema } from '../../src/agents/tool-schema'
import type { AgentRow } from '../../src/db/agents'
import { actionTool } from '../../src/interfaces/mcp'
import { action, newCaller, type Json } from '../helpers'
import { seedDemoCatalog } from '../seed'
import { anthropicProblems, openaiProblems } from './vendor-rules'

let token: string

beforeAll(async () => {
  await seedDemoCatalog()
  token = (await newCaller('formats')).token
})

/** Every agent the caller sees, all pages, in one format (the demo catalog has more than one page of 100). */
async function every(format?: string): Promise<{ status: number; body: { response: Json[] } }> {
  const response: Json[] = []
  for (let page = 0; ; page++) {
    const res = await action('search', { status: 'all', limit: 100, page, ...(format ? { format } : {}) }, token)
    if (res.status !== 200) return res
    response.push(...res.body.response)
    if (res.body.response.length < 100) return { status: 200, body: { response } }
  }
}

/** Asserts OpenAI's own strict-schema helper accepts the schema and has nothing left to change in it. */
function expectOpenAiStrict(parameters: JsonSchema, name: string): void {
  let strict: unknown
  expect(() => (strict = toStrictJsonSchema(parameters as never)), name).not.toThrow()
  expect(strict, name).toEqual(parameters)
}

/** Every empty schema `{}` in a schema tree, by path. */
function emptySchemas(s: unknown, at = ''): string[] {
  if (typeof s !== 'object' || s === null) return []
  if (!Array.isArray(s) && Object.keys(s).length === 0) return [at]
  return Object.entries(s).flatMap(([k, v]) => (k === 'enum' || k === 'const' || k === 'default' ? [] : emptySchemas(v, `${at}/${k}`)))
}

describe('search format', () => {
  it('answers the spec descriptor, metadata included, when no format is given', async () => {
    const plain = await every()
    expect(plain.status).toBe(200)
    expect(plain.body.response.length).toBeGreaterThan(5)
    for (const hit of plain.body.response as Json[]) {
      expect(Object.keys(hit)).toEqual(['type', 'function'])
      expect(Object.keys(hit.function)).toEqual(['name', 'description', 'metadata', 'parameters', 'strict'])
      expect(hit.function.strict).toBe(true)
      for (const p of Object.values(hit.function.parameters.properties) as Json[]) if (p.default !== undefined) expect(typeof p.default).toBe('string')
    }
  })

  it('gives the same hits, in the same order, in every format', async () => {
    const names = ((await every()).body.response as Json[]).map((d) => d.function.name)
    expect(((await every('openai')).body.response as Json[]).map((t) => t.function.name)).toEqual(names)
    expect(((await every('openai_responses')).body.response as Json[]).map((t) => t.name)).toEqual(names)
    expect(((await every('anthropic')).body.response as Json[]).map((t) => t.name)).toEqual(names)
    expect(((await every('mcp')).body.response as Json[]).map((t) => t.name)).toEqual(names)
  })

  it('gives MCP tools annotations and the search metadata in _meta', async () => {
    const spec = (await every()).body.response as Json[]
    const tools = (await every('mcp')).body.response as Json[]
    expect(tools[0].title).toBe(spec[0].function.metadata.name)
    expect(tools[0]._meta['agent-action-api/agent']).toEqual(spec[0].function.metadata)
    for (const t of tools) expect(Object.keys(t.annotations).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint', 'title'])
  })

  it('rejects an unknown format with a 400 naming the field', async () => {
    const res = await action('search', { format: 'gemini' }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/format')
  })
})

describe('format openai and openai_responses: valid in OpenAI strict mode for every demo agent', () => {
  it("every Chat Completions tool passes OpenAI's toStrictJsonSchema unchanged and carries only OpenAI fields", async () => {
    const tools = (await every('openai')).body.response as ChatCompletionFunctionTool[]
    expect(tools.length).toBeGreaterThan(100)
    for (const t of tools) {
      expect(Object.keys(t)).toEqual(['type', 'function'])
      expect(Object.keys(t.function).sort()).toEqual(['description', 'name', 'parameters', 'strict'])
      expect(t.function.strict).toBe(true)
      expectOpenAiStrict(t.function.parameters as JsonSchema, t.function.name)
      expect(openaiProblems(t), t.function.name).toEqual([])
    }
  })

  it('every Responses API tool is the flat form of the same tool', async () => {
    const chat = (await every('openai')).body.response as ChatCompletionFunctionTool[]
    const flat = (await every('openai_responses')).body.response as FunctionTool[]
    flat.forEach((t, i) => {
      expect(Object.keys(t).sort()).toEqual(['description', 'name', 'parameters', 'strict', 'type'])
      expect(t).toEqual({ type: 'function', ...chat[i].function })
    })
  })

  it('turns optional parameters into required nullable ones and states their default in words', async () => {
    const spec = (await every()).body.response as Json[]
    const tools = (await every('openai')).body.response as Json[]
    const withOptional = new Set<string>()
    spec.forEach((d, i) => {
      const fn = tools[i].function
      expect(fn.parameters.required).toEqual(Object.keys(fn.parameters.properties))
      for (const [name, p] of Object.entries(d.function.parameters.properties) as [string, Json][]) {
        const strict = fn.parameters.properties[name]
        if (d.function.parameters.required.includes(name)) {
          expect(strict.type).toBe(p.type)
          continue
        }
        withOptional.add(fn.name)
        expect(strict.type).toEqual([p.type, 'null'])
        if (p.enum) expect(strict.enum).toEqual([...p.enum, null])
        expect(strict.default).toBeUndefined()
        if (p.default !== undefined) expect(strict.description).toContain('Default: ')
      }
    })
    // Issue 20 counted 29 demo agents with optional parameters (a few are private to other accounts).
    expect(withOptional.size).toBeGreaterThan(20)
  })
})

const paramName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/).filter((n) => n !== '__proto__')
const text = fc.string({ maxLength: 60 })
const parameter = fc.oneof(
  fc.record(
    { type: fc.constant('string' as const), description: text, default: fc.option(text, { nil: undefined }), writeOnly: fc.option(fc.constant(true), { nil: undefined }) },
    { requiredKeys: ['type', 'description'] },
  ),
  fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 })
    .chain((values) =>
      fc.record(
        { type: fc.constant('string' as const), description: text, enum: fc.constant(values), default: fc.option(fc.constantFrom(...values), { nil: undefined }) },
        { requiredKeys: ['type', 'description', 'enum'] },
      ),
    ),
  fc.record({ type: fc.constant('string' as const), description: text, format: fc.constant('password' as const) }),
  fc.record(
    { type: fc.constant('integer' as const), description: text, default: fc.option(fc.oneof(fc.integer(), fc.integer().map(String)), { nil: undefined }) },
    { requiredKeys: ['type', 'description'] },
  ),
  fc.record(
    { type: fc.constant('number' as const), description: text, default: fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer().map(String)), { nil: undefined }) },
    { requiredKeys: ['type', 'description'] },
  ),
  fc.record(
    { type: fc.constant('boolean' as const), description: text, default: fc.option(fc.oneof(fc.boolean(), fc.constantFrom('true', 'false')), { nil: undefined }) },
    { requiredKeys: ['type', 'description'] },
  ),
)
/** Any parameter list the catalog accepts: every type, enum, default (typed or as text), secret, required or not. */
const parameters = fc
  .dictionary(paramName, parameter, { maxKeys: 8 })
  .chain((properties) => fc.subarray(Object.keys(properties)).map((required) => ParametersSchema.parse({ type: 'object', properties, required, additionalProperties: false })))

function agentRow(params: unknown): AgentRow {
  const now = Date.UTC(2025, 0, 1)
  return {
    rowid: 1,
    id: 'gen01',
    slug: null,
    icon: '/icons/x.svg',
    name: 'Generated',
    description: 'A generated agent',
    visibility: 'public',
    owner_account_id: 'acc_x',
    team_id: null,
    type: 'studio',
    executions: 0,
    trusted: 0,
    reviews_count: 0,
    reviews_sum: 0,
    parameters: JSON.stringify(params),
    workflow: JSON.stringify({ steps: [{ id: 's', action: 'get_variable', input: {} }] }),
    param_text: '',
    created_at: now,
    updated_at: now,
  }
}

describe('every parameter shape the catalog accepts, in every format', () => {
  it('openai is strict-valid and says each default; anthropic and mcp keep typed defaults of the right type', () => {
    fc.assert(
      fc.property(parameters, (p) => {
        const row = agentRow(p)
        const spec = formatAgent(row, 0.5, undefined, getAction) as Json
        expect(spec.function.parameters.required).toEqual(p.required)
        const openai = formatAgent(row, 0.5, 'openai', getAction) as Json
        expectOpenAiStrict(openai.function.parameters, 'generated')
        expect(openai.function.metadata).toBeUndefined()
        const anthropic = formatAgent(row, 0.5, 'anthropic', getAction) as Json
        expect(anthropicProblems(anthropic)).toEqual([])
        const mcp = formatAgent(row, 0.5, 'mcp', getAction) as McpTool
        expect(ToolSchema.safeParse(mcp).success).toBe(true)
        const mcpProps = mcp.inputSchema.properties as Json
        for (const [name, param] of Object.entries(p.properties)) {
          const o = openai.function.parameters.properties[name]
          for (const key of Object.keys(o)) expect(['type', 'description', 'enum']).toContain(key)
          if (param.default !== undefined) {
            expect(o.description).toContain(`Default: ${JSON.stringify(anthropic.input_schema.properties[name].default)}`)
            for (const schema of [anthropic.input_schema.properties[name], mcpProps[name]]) {
              const want = param.type === 'integer' ? 'number' : param.type
              expect(typeof schema.default).toBe(want)
            }
          }
          if (param.writeOnly || param.format === 'password') {
            expect(o.description).toContain('Secret')
            expect(mcpProps[name].writeOnly ?? mcpProps[name].format).toBeTruthy()
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('action tools', () => {
  it('every action the MCP server lists is a valid MCP Tool with no converter noise or untyped maps', () => {
    for (const a of actions) {
      const tool = actionTool(a)
      expect(ToolSchema.safeParse(tool).success, a.name).toBe(true)
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(tool.inputSchema.type).toBe('object')
      expect(emptySchemas(tool.inputSchema), a.name).toEqual([])
      const json = JSON.stringify(tool.inputSchema)
      expect(json, a.name).not.toContain(String(Number.MAX_SAFE_INTEGER))
      expect(json, a.name).not.toContain('propertyNames')
      expect(json, a.name).not.toContain('$schema')
    }
  })

  it('actions that document their result give an outputSchema of the call result; the others give none', () => {
    for (const a of actions) {
      const tool = actionTool(a)
      if (!a.output) {
        expect(tool.outputSchema, a.name).toBeUndefined()
        continue
      }
      expect(tool.outputSchema?.type, a.name).toBe('object')
      expect(tool.outputSchema?.required).toEqual(['status', 'response'])
      expect(Object.keys((tool.outputSchema?.properties ?? {}) as Json)).toEqual(expect.arrayContaining(['status', 'run_id', 'response']))
    }
    const transcript = actionTool(actions.find((a) => a.name === 'get_video_transcript')!)
    expect(Object.keys((transcript.outputSchema?.properties ?? {}) as Json)).toContain('metadata')
    expect(((transcript.outputSchema?.properties as Json).response as Json).type).toBe('string')
  })

  it("every action input the strict dialect can express passes OpenAI's toStrictJsonSchema unchanged", () => {
    let expressed = 0
    for (const a of actions) {
      let strict: JsonSchema
      try {
        strict = toDialect(zodJsonSchema(a.input, 'input'), OPENAI_STRICT)
      } catch (err) {
        expect(err, a.name).toBeInstanceOf(UnrepresentableSchema)
        continue
      }
      expressed++
      expectOpenAiStrict(strict, a.name)
    }
    expect(expressed).toBe(actions.length)
  })

  it('states the rules between fields in words where the dialect wants a plain object, and keeps them for MCP', () => {
    const subject = actions.find((a) => a.name === 'meeting_prep_generate_subject_line')!
    const strict = toDialect(zodJsonSchema(subject.input, 'input'), OPENAI_STRICT)
    expect(strict.anyOf).toBeUndefined()
    expect(strict.description).toContain('Give at least one of: meeting_title; selected_meeting.')
    expect(toDialect(zodJsonSchema(subject.input, 'input'), MCP).anyOf).toHaveLength(2)
    const exclusive = toDialect({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, not: { required: ['a', 'b'] } }, OPENAI_STRICT)
    expect(exclusive.not).toBeUndefined()
    expect(exclusive.description).toBe('Do not give a and b together.')
  })
})
