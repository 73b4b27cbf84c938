import { TOOL_FORMATS } from '../actions/search/schema'
import type { AgentRow } from '../db/agents'
import type { ActionLookup } from '../runtime/context'
import { agentDescriptor, type AgentDescriptor } from './descriptor'
import { convertParam, type Parameters, type Workflow } from './schema'
import { ANTHROPIC, MCP, OPENAI_STRICT, toDialect, type JsonSchema } from './tool-schema'

// The list lives with the search schema, which must not import the registry (import cycle).
export { TOOL_FORMATS }
export type ToolFormat = (typeof TOOL_FORMATS)[number]

/** Tool names every vendor accepts (OpenAI, Anthropic and MCP clients agree on this subset). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** MCP tool annotations (hints a client may show or use to ask for confirmation). */
export interface ToolAnnotations {
  title?: string
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

/** OpenAI Chat Completions function tool in strict mode (no search metadata: OpenAI reads no other field). */
export interface OpenAiTool {
  type: 'function'
  function: { name: string; description: string; parameters: JsonSchema; strict: true }
}

/** OpenAI Responses API function tool: the same, flat. */
export interface OpenAiResponsesTool {
  type: 'function'
  name: string
  description: string
  parameters: JsonSchema
  strict: true
}

/** An Anthropic Messages API tool: `{name, description, input_schema}`. */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: JsonSchema
}

/** An MCP `Tool` as `tools/list` returns it; search metadata rides in `_meta`. */
export interface McpTool {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema & { type: 'object' }
  annotations: ToolAnnotations
  _meta: { 'agent-action-api/agent': AgentDescriptor['function']['metadata'] }
}

/**
 * Behaviour hints of an agent, from the actions its workflow runs: read-only only when every step
 * is, destructive when any step is, idempotent only when every step is. Agents reach outside the
 * service through their actions, so they are open-world.
 */
export function agentAnnotations(a: Pick<AgentRow, 'name' | 'workflow'>, actions: ActionLookup): ToolAnnotations {
  const steps = (JSON.parse(a.workflow) as Workflow).steps.map((s) => actions(s.action)?.hints ?? {})
  return {
    title: a.name,
    readOnlyHint: steps.every((h) => h.readOnly === true),
    destructiveHint: steps.some((h) => h.destructive === true),
    idempotentHint: steps.every((h) => h.idempotent === true || h.readOnly === true),
    openWorldHint: true,
  }
}

/**
 * An agent's parameters as plain JSON Schema: defaults of their own type (the spec's descriptor
 * shows them as text, which an integer or boolean schema would not accept).
 */
export function agentInputSchema(a: Pick<AgentRow, 'parameters'>): JsonSchema & { type: 'object' } {
  const p = JSON.parse(a.parameters) as Parameters
  const properties = Object.fromEntries(Object.entries(p.properties).map(([name, x]) => [name, x.default === undefined ? { ...x } : { ...x, default: convertParam(x.type, x.default) }]))
  return { type: 'object', properties, required: p.required, additionalProperties: false }
}

/** Anthropic form of an agent: only the fields the Messages API accepts on a custom tool. */
export function toAnthropic(d: AgentDescriptor, input: JsonSchema): AnthropicTool {
  return { name: d.function.name, description: d.function.description, input_schema: toDialect(input, ANTHROPIC) }
}

/** MCP form of an agent. */
export function toMcp(d: AgentDescriptor, input: JsonSchema, annotations: ToolAnnotations): McpTool {
  return {
    name: d.function.name,
    title: d.function.metadata.name,
    description: d.function.description,
    inputSchema: { ...toDialect(input, MCP), type: 'object' },
    annotations,
    _meta: { 'agent-action-api/agent': d.function.metadata },
  }
}

/** OpenAI strict-mode form of an agent (Chat Completions). */
export function toOpenAi(d: AgentDescriptor, input: JsonSchema): OpenAiTool {
  return { type: 'function', function: { name: d.function.name, description: d.function.description, parameters: toDialect(input, OPENAI_STRICT), strict: true } }
}

/** OpenAI strict-mode form of an agent (Responses API). */
export function toOpenAiResponses(d: AgentDescriptor, input: JsonSchema): OpenAiResponsesTool {
  return { type: 'function', name: d.function.name, description: d.function.description, parameters: toDialect(input, OPENAI_STRICT), strict: true }
}

export type FormattedAgent = AgentDescriptor | OpenAiTool | OpenAiResponsesTool | AnthropicTool | McpTool

/** One search hit in the requested format; no format is the spec's descriptor, unchanged. */
export function formatAgent(a: AgentRow, score: number, format: ToolFormat | undefined, actions: ActionLookup): FormattedAgent {
  const d = agentDescriptor(a, score, actions)
  if (format === undefined) return d
  const input = agentInputSchema(a)
  switch (format) {
    case 'openai':
      return toOpenAi(d, input)
    case 'openai_responses':
      return toOpenAiResponses(d, input)
    case 'anthropic':
      return toAnthropic(d, input)
    case 'mcp':
      return toMcp(d, input, agentAnnotations(a, actions))
  }
}
