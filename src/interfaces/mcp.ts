import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'hono'
import type { AnyAction } from '../actions/define'
import { AGENT_ALIAS, agentAliasBody } from '../actions/invoke_agent'
import { actions, getAction } from '../actions/registry'
import { callerOf, runtimeOf } from '../actions/routes'
import { agentDescriptor } from '../agents/descriptor'
import { agentAnnotations, agentInputSchema, toMcp, type ToolAnnotations } from '../agents/formats'
import { MCP, MCP_OUTPUT, toDialect, zodJsonSchema, type JsonSchema } from '../agents/tool-schema'
import { searchCatalog } from '../agents/search'
import { isJsonContentType, readJsonBody } from '../http/body'
import { ApiError, isApiError, shownError } from '../http/errors'
import { toApiError } from '../http/map-error'
import { anotherRequest } from '../http/rate-limit'
import type { AppEnv } from '../http/types'
import type { Admission } from '../runtime/context'
import { callAction, mayQueue, type CallOutcome } from '../runtime/execute'

/** Agents per tools/list page (the cursor is the page number). */
const AGENTS_PER_PAGE = 100
/** MCP clients wait on a tool call; queued actions answer with their run after at most this long. */
const MCP_WAIT_SECONDS = 5

/** MCP tool name of an action: vendors accept only [a-zA-Z0-9_-], so dots become underscores. */
export function toolName(action: AnyAction): string {
  return action.name.replace(/[^a-zA-Z0-9_-]/g, '_')
}

const actionByTool = new Map(actions.map((a) => [toolName(a), a]))

function actionAnnotations(a: AnyAction): ToolAnnotations {
  return {
    title: a.summary,
    readOnlyHint: a.hints.readOnly === true,
    destructiveHint: a.hints.destructive === true,
    idempotentHint: a.hints.idempotent === true || a.hints.readOnly === true,
    // Everything but the service's own variables reaches outside (web, CRM, models, social networks).
    openWorldHint: !(a.hints.readOnly === true && !a.hints.sideEffect && a.name.endsWith('_variable')),
  }
}

/** The MCP tool of a registered action; actions that document their result also get an `outputSchema`. */
export function actionTool(a: AnyAction): Tool {
  const schema = toDialect(zodJsonSchema(a.input, 'input'), MCP)
  if (mayQueue(a)) {
    schema.properties = {
      ...((schema.properties as JsonSchema | undefined) ?? {}),
      callback_url: { type: 'string', format: 'uri', description: 'HTTPS URL that receives the result when the run finishes (queued runs only)' },
    }
  }
  const outputSchema = actionOutputSchema(a)
  return {
    name: toolName(a),
    title: a.summary,
    description: a.description ?? a.summary,
    inputSchema: { ...schema, type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    annotations: actionAnnotations(a),
  }
}

const QUEUED_RESPONSE: JsonSchema = {
  description: 'Still running after the wait: fetch the poll path with the same token for the result',
  type: 'object',
  properties: { run_id: { type: 'string' }, state: { type: 'string', enum: ['queued', 'running'] }, poll: { type: 'string' } },
  required: ['run_id', 'state', 'poll'],
}

/**
 * The `structuredContent` of a successful call (see toolResult), for actions that document their
 * result. Result objects stay open: a client validates against this, and a result may gain fields.
 */
export function actionOutputSchema(a: AnyAction): Tool['outputSchema'] | undefined {
  if (!a.output) return undefined
  const result = toDialect(zodJsonSchema(a.output, 'output'), MCP_OUTPUT)
  const parts = result.properties as Record<string, JsonSchema> | undefined
  // An action with its own wire split (the transcript) documents both parts in one output object.
  const split = a.present !== undefined && parts?.response !== undefined
  const response = split ? parts.response : result
  return {
    type: 'object',
    properties: {
      status: { type: 'integer', description: '200 with the result; 202 while a queued run is still going' },
      run_id: { type: 'string', description: 'The run of this call' },
      response: mayQueue(a) ? { anyOf: [response, QUEUED_RESPONSE] } : response,
      ...(split && parts.metadata ? { metadata: parts.metadata } : {}),
    },
    required: ['status', 'response'],
  }
}

/** Renders a pipeline outcome as an MCP tool result (errors are results with isError, so models can recover). */
export function toolResult(outcome: CallOutcome): CallToolResult {
  if (outcome.kind === 'done') {
    const { response, metadata } = outcome.presented
    const structured = { status: 200, run_id: outcome.runId, response, ...(metadata === undefined ? {} : { metadata }) }
    return { content: [{ type: 'text', text: typeof response === 'string' ? response : JSON.stringify(response) }], structuredContent: structured }
  }
  if (outcome.kind === 'failed') return errorResult(outcome.error)
  const poll = `/v1/runs/${outcome.runId}`
  return {
    content: [{ type: 'text', text: `Still ${outcome.state}: run ${outcome.runId}. Fetch GET ${poll}?wait=30 with the same token for the result.` }],
    structuredContent: { status: 202, response: { run_id: outcome.runId, state: outcome.state, poll } },
  }
}

function errorResult(err: ApiError): CallToolResult {
  const shown = shownError(err.message, err.details)
  const details = shown.details.map((d) => `${d.path}: ${d.message}`).join('; ')
  return {
    isError: true,
    content: [{ type: 'text', text: `${err.code} (${err.status}): ${shown.message}${details ? ` [${details}]` : ''}` }],
    structuredContent: { status: err.status, response: null, error: shown.message, code: err.code, details: shown.details },
  }
}

/** JSON-RPC error code of a call refused by the caller's rate limit (the implementation-defined server error range). */
const RATE_LIMITED_CODE = -32029

async function listTools(c: Context<AppEnv>, cursor: string | undefined, admission: Admission): Promise<{ tools: Tool[]; nextCursor?: string }> {
  const page = cursor === undefined ? 0 : Number(cursor)
  if (!Number.isInteger(page) || page < 0 || page > 1e6) throw new McpError(ErrorCode.InvalidParams, 'cursor is not a cursor this server returned')
  try {
    await admission.admit()
  } catch (err) {
    if (isApiError(err)) throw new McpError(RATE_LIMITED_CODE, err.message)
    throw err
  }
  const p = c.get('principal')
  const agents = await searchCatalog(c.env.DB, { viewer: { accountId: p.accountId, teamIds: p.teamIds }, query: '', filter: 'all', limit: AGENTS_PER_PAGE, page })
  const tools = agents.map((a) => {
    const { _meta, ...tool } = toMcp(agentDescriptor(a, a.score, getAction), agentInputSchema(a), agentAnnotations(a, getAction))
    return { ...tool, _meta: _meta as Record<string, unknown> } satisfies Tool
  })
  return {
    tools: page === 0 ? [...actions.map(actionTool), ...tools] : tools,
    ...(agents.length === AGENTS_PER_PAGE ? { nextCursor: String(page + 1) } : {}),
  }
}

async function callTool(c: Context<AppEnv>, name: string, args: Record<string, unknown>, admission: Admission): Promise<CallToolResult> {
  const direct = actionByTool.get(name)
  const alias = direct ? null : AGENT_ALIAS.exec(name)
  const action = direct ?? (alias ? getAction('invoke_agent') : undefined)
  if (!action) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 200)}"; tools/list names every tool`)
  try {
    const base = callerOf(c)
    const caller = { ...base, admission, waitSeconds: Math.min(base.waitSeconds, MCP_WAIT_SECONDS) }
    const body = alias ? agentAliasBody(alias[1], args) : args
    return toolResult(await callAction(runtimeOf(c), caller, action, body))
  } catch (err) {
    const api = toApiError(err)
    if (api) return errorResult(api)
    throw err
  }
}

/** Refuses browser requests from other origins (DNS-rebinding and cross-site calls), as the MCP transport spec asks. */
export function checkOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header('origin')
  if (origin === undefined) return
  if (origin !== new URL(c.req.url).origin) throw new ApiError('FORBIDDEN', `Origin ${origin.slice(0, 200)} may not call this MCP server`)
}

/**
 * `POST /mcp`: a stateless Streamable HTTP MCP server (a fresh server per request, JSON answers).
 * Tools are the actions and the agents the token can see; calls go through the action pipeline.
 */
export async function handleMcp(c: Context<AppEnv>): Promise<Response> {
  const server = new Server({ name: 'agent-action-api', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } })
  // One HTTP request may carry a JSON-RPC batch of up to 100 messages: each tool call or listing is a
  // request against the caller's limits, or a batch would run 100 actions for one counted request.
  // The first is the HTTP request's own count; each later one is counted on its own.
  let counted = 0
  const admissionOf = (): Admission => (counted++ === 0 ? c.get('admission') : anotherRequest(c))
  server.setRequestHandler(ListToolsRequestSchema, (req) => listTools(c, req.params?.cursor, admissionOf()))
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(c, req.params.name, req.params.arguments ?? {}, admissionOf()))
  // The body is read as every route reads one (MAX_BODY_BYTES, MAX_JSON_DEPTH); the transport's own
  // reader has neither. Its failures are JSON-RPC parse errors, as the transport answers them.
  let parsedBody: unknown
  if (isJsonContentType(c.req.header('content-type'))) {
    try {
      parsedBody = await readJsonBody(c)
    } catch (err) {
      if (!isApiError(err)) throw err
      return c.json({ jsonrpc: '2.0', error: { code: err.status === 413 ? -32000 : -32700, message: err.message }, id: null }, err.status as 400 | 413)
    }
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(c.req.raw, { parsedBody })
  } finally {
    c.executionCtx.waitUntil(server.close())
  }
}
