import { TOOL_FORMATS } from '../actions/search/schema'
import type { AgentRow } from '../db/agents'
import type { ActionLookup } from '../runtime/context'
import { agentDescriptor, type AgentDescriptor } from './descriptor'
import type { Workflow } from './schema'

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

/** An Anthropic Messages API tool: `{name, description, input_schema}`. */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: AgentDescriptor['function']['parameters']
}

/** An MCP `Tool` as `tools/list` returns it; search metadata rides in `_meta`. */
export interface McpTool {
  name: string
  title: string
  description: string
  inputSchema: AgentDescriptor['function']['parameters']
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

/** Anthropic form of a spec descriptor: only the fields the Messages API accepts on a custom tool. */
export function toAnthropic(d: AgentDescriptor): AnthropicTool {
  return { name: d.function.name, description: d.function.description, input_schema: d.function.parameters }
}

/** MCP form of a spec descriptor. */
export function toMcp(d: AgentDescriptor, annotations: ToolAnnotations): McpTool {
  return {
    name: d.function.name,
    title: d.function.metadata.name,
    description: d.function.description,
    inputSchema: d.function.parameters,
    annotations,
    _meta: { 'agent-action-api/agent': d.function.metadata },
  }
}

/** One search hit in the requested format; `openai` is the spec's descriptor, unchanged. */
export function formatAgent(a: AgentRow, score: number, format: ToolFormat, actions: ActionLookup): AgentDescriptor | AnthropicTool | McpTool {
  const d = agentDescriptor(a, score, actions)
  if (format === 'anthropic') return toAnthropic(d)
  if (format === 'mcp') return toMcp(d, agentAnnotations(a, actions))
  return d
}
