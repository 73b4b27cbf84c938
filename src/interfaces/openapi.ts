import { z } from 'zod'
import type { AnyAction } from '../actions/define'
import { actions } from '../actions/registry'
import { secretFields } from '../actions/secret-fields'
import { ERROR_STATUS, type ErrorCode } from '../http/errors'
import type { MountedRoute, ResponseSpec, Security } from '../http/route-table'
import { mayQueue } from '../runtime/execute'
import { INTEGRATIONS } from '../runtime/integrations'

type Schema = Record<string, unknown>
type Operation = Record<string, unknown>

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** JSON Schema 2020-12 (the OpenAPI 3.1 dialect) of a zod schema, as a client must send it. */
export function inputSchema(schema: z.ZodType): Schema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Schema
  return rest
}

/** The same for a result shape, as the service sends it. */
function outputSchema(schema: z.ZodType): Schema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12', unrepresentable: 'any' }) as Schema
  return rest
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Not configured',
  504: 'Gateway timeout',
}

const ERROR_MEANING: Record<ErrorCode, string> = {
  INVALID_JSON: 'The body is not valid JSON, or not a JSON object',
  VALIDATION_FAILED: 'A field (or header) is missing, unknown or of the wrong type; `details` names each one',
  UNRESOLVED_REFERENCE: 'A `{{path}}` reference names no variable in the Workflow-Id scope',
  UNSAFE_URL: 'A URL points at a private, loopback or metadata address',
  UNAUTHORIZED: 'No bearer token, or an unknown, expired or revoked one',
  FORBIDDEN: 'The token may not do this',
  INTEGRATION_NOT_GRANTED: "An agent of another account needs the caller's grant to use this integration; the message names the agent, the integration and PUT /v1/grants/<agent id>",
  NOT_FOUND: 'Unknown route, action, agent, run or object (or one the caller may not see)',
  METHOD_NOT_ALLOWED: 'Wrong HTTP method; `Allow` names the right one',
  CONFLICT: 'Idempotency-Key reused with a different body, or a unique value taken',
  INTEGRATION_NOT_CONNECTED: 'The action needs an integration (CRM) the account has not connected',
  PAYLOAD_TOO_LARGE: 'The body, the input after resolving references, a variable or a variable scope is larger than its limit',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not application/json',
  UNPROCESSABLE: 'The input is well-formed but cannot be acted on',
  RATE_LIMITED: 'The account (all its tokens together) or the token (its own lower limit) used up its per-minute or per-day requests; see retry-after',
  QUOTA_EXCEEDED: 'The account holds as many active tokens, agents or queued runs in flight as its settings allow; the message names the setting and what frees one',
  UPSTREAM_RATE_LIMITED: 'An upstream service rate-limited the request',
  INTERNAL: 'Unexpected failure; the message carries the request id',
  UPSTREAM_FAILED: 'An upstream service failed or answered something unusable',
  NOT_CONFIGURED: 'A setting the action needs is not set; the message names it',
  UPSTREAM_TIMEOUT: 'An upstream service did not answer in time',
}

/** Error codes grouped by the status they map to, in status order. */
function errorGroups(): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>()
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) groups.set(status, [...(groups.get(status) ?? []), code])
  return new Map([...groups].sort((a, b) => a[0] - b[0]))
}

const errorResponseName = (status: number) => `Error${status}`

function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [status, codes] of errorGroups()) {
    const headers: Record<string, unknown> = { 'x-request-id': ref('headers', 'RequestId') }
    if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WwwAuthenticate')
    if (status === 405) headers.Allow = ref('headers', 'Allow')
    if (status === 429) Object.assign(headers, rateLimitHeaders(), { 'retry-after': ref('headers', 'RetryAfter') })
    out[errorResponseName(status)] = {
      description: `${STATUS_TEXT[status]}: ${codes.map((c) => `\`${c}\` (${ERROR_MEANING[c]})`).join('; ')}`,
      headers,
      content: {
        'application/json': {
          schema: {
            allOf: [ref('schemas', 'Error'), { type: 'object', properties: { status: { const: status }, code: { enum: codes } } }],
          },
          examples: Object.fromEntries(codes.map((code) => [code, { value: { status, response: null, error: ERROR_MEANING[code], code, details: [], request_id: 'req_4bXoQ2m9sTz1VdK8pLr3' } }])),
        },
      },
    }
  }
  return out
}

function rateLimitHeaders() {
  return {
    'ratelimit-limit': ref('headers', 'RateLimitLimit'),
    'ratelimit-remaining': ref('headers', 'RateLimitRemaining'),
    'ratelimit-reset': ref('headers', 'RateLimitReset'),
    'ratelimit-reset-date': ref('headers', 'RateLimitResetDate'),
  }
}

/** References to the shared error responses for the given statuses. */
function errors(...statuses: number[]): Record<string, unknown> {
  return Object.fromEntries(statuses.map((s) => [String(s), ref('responses', errorResponseName(s))]))
}

const AUTHED_ERRORS = [401, 429, 500]

const CALLBACK_URL = {
  type: 'string',
  format: 'uri',
  pattern: '^https://',
  maxLength: 2048,
  description: 'HTTPS URL that receives the result when a queued run finishes (signed with WEBHOOK_SIGNING_SECRET)',
}

const WORKFLOW_ID_PARAMETER = {
  name: 'Workflow-Id',
  in: 'header',
  required: false,
  description: 'Variable scope: `{{path}}` references resolve from it and output_variable_name stores into it',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
}
const BODY_ERRORS = [400, 413, 415]

function envelope(response: Schema, extra: Record<string, Schema> = {}, status = 200): Schema {
  return { type: 'object', required: ['status', 'response'], properties: { status: { type: 'integer', const: status }, ...extra, response } }
}

function ok(description: string, response: Schema, opts: { status?: number; extra?: Record<string, Schema>; authed?: boolean } = {}) {
  const status = opts.status ?? 200
  return {
    [String(status)]: {
      description,
      headers: { 'x-request-id': ref('headers', 'RequestId'), ...(opts.authed === false ? {} : rateLimitHeaders()) },
      content: { 'application/json': { schema: envelope(response, opts.extra, status) } },
    },
  }
}

function jsonBody(schema: z.ZodType, examples?: Record<string, unknown>[], required = true) {
  const media: Record<string, unknown> = { schema: inputSchema(schema) }
  if (examples?.length) media.examples = Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }]))
  return { required, content: { 'application/json': media } }
}

const pathParam = (name: string, description: string, schema: Schema = { type: 'string' }) => ({ name, in: 'path', required: true, description, schema })

const anyObject: Schema = { type: 'object', additionalProperties: true }

function annotationsOf(a: AnyAction) {
  return {
    'x-read-only': a.hints.readOnly === true,
    'x-side-effect': a.hints.sideEffect === true,
    'x-idempotent': a.hints.idempotent === true || a.hints.readOnly === true,
    'x-destructive': a.hints.destructive === true,
  }
}

function actionOperation(a: AnyAction): Operation {
  const responses: Record<string, unknown> = {
    ...ok('The result', a.output ? resultSchema(a) : {}, { extra: a.name === 'get_video_transcript' ? { metadata: anyObject } : {} }),
  }
  responses['202'] = {
    description: mayQueue(a)
      ? 'Still running after the wait budget (`Prefer: wait=<s>`), or at once with `Prefer: respond-async`; poll the run'
      : 'Accepted at once with `Prefer: respond-async` (the run is queued); poll the run',
    headers: { 'x-request-id': ref('headers', 'RequestId'), 'x-run-id': ref('headers', 'RunId'), Location: ref('headers', 'Location'), ...rateLimitHeaders() },
    content: { 'application/json': { schema: ref('schemas', 'QueuedRun') } },
  }
  Object.assign(responses, errors(...BODY_ERRORS, 401, 403, 404, 409, 412, 422, 429, 500, 502, 503, 504))
  const requestBody = jsonBody(a.input, a.examples)
  if (mayQueue(a)) {
    // An action that answers inline takes callback_url only with `Prefer: respond-async`; the body schema leaves it out there (see Prefer).
    const schema = requestBody.content['application/json'].schema as Schema
    schema.properties = { ...(schema.properties as Schema), callback_url: CALLBACK_URL }
  }

  return {
    operationId: a.name,
    summary: a.summary,
    description: a.description ?? a.summary,
    tags: ['Actions'],
    parameters: [
      a.requiresWorkflowId ? { ...WORKFLOW_ID_PARAMETER, required: true, description: 'Variable scope this action reads or writes; required' } : ref('parameters', 'WorkflowId'),
      ref('parameters', 'IdempotencyKey'),
      ref('parameters', 'Prefer'),
    ],
    requestBody,
    responses,
    ...annotationsOf(a),
    ...(secretFields(a).length ? { 'x-secret-fields': [...secretFields(a)] } : {}),
  }
}

/** The `response` part of an action's output schema (the transcript's output carries both parts). */
function resultSchema(a: AnyAction): Schema {
  const s = outputSchema(a.output!)
  if (a.name === 'get_video_transcript' && s.properties && typeof s.properties === 'object') {
    return (s.properties as Record<string, Schema>).response ?? s
  }
  return s
}

function actionPaths(): Record<string, unknown> {
  const paths: Record<string, unknown> = {}
  for (const a of actions) paths[`/v1/action/${a.name}`] = { post: actionOperation(a) }
  paths['/v1/action/invoke_agent_{id}'] = {
    post: {
      operationId: 'invoke_agent_by_tool_name',
      summary: 'Invoke an agent by its tool name',
      description: "The name `search` gives each agent (`invoke_agent_<id>`); the body is the agent's parameters, checked against its schema.",
      tags: ['Actions'],
      parameters: [pathParam('id', 'Agent id', { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$' }), ref('parameters', 'WorkflowId'), ref('parameters', 'IdempotencyKey'), ref('parameters', 'Prefer')],
      requestBody: { required: true, content: { 'application/json': { schema: anyObject, examples: { example1: { value: { domain: 'example.com' } } } } } },
      responses: {
        ...ok("The agent's output", {}),
        '202': {
          description: 'Still running; poll the run',
          headers: { 'x-run-id': ref('headers', 'RunId'), Location: ref('headers', 'Location') },
          content: { 'application/json': { schema: ref('schemas', 'QueuedRun') } },
        },
        ...errors(...BODY_ERRORS, 401, 403, 404, 409, 429, 500, 502, 503, 504),
      },
    },
  }
  return paths
}

const errorsFor = (r: MountedRoute): number[] => {
  const statuses = new Set([400, ...(r.spec.body ? BODY_ERRORS : []), ...(r.spec.errors ?? []), 500])
  if (r.security === 'bearer') for (const s of AUTHED_ERRORS) statuses.add(s)
  if (r.security === 'admin') statuses.add(401)
  return [...statuses].sort((x, y) => x - y)
}

const asSchema = (s: z.ZodType | Schema | undefined, dir: 'input' | 'output'): Schema => (s === undefined ? {} : s instanceof z.ZodType ? (dir === 'input' ? inputSchema(s) : outputSchema(s)) : s)

function responseOf(spec: ResponseSpec, status: number, security: Security): Record<string, unknown> {
  const headers = { 'x-request-id': ref('headers', 'RequestId'), ...(security === 'bearer' ? rateLimitHeaders() : {}), ...spec.headers }
  const content = spec.content ?? { 'application/json': { schema: envelope(asSchema(spec.schema, 'output'), spec.extra, status) } }
  return { description: spec.description, headers, ...(Object.keys(content).length ? { content } : {}) }
}

/** One operation of the route table: parameters from the path and the query schema, errors from what the mount and the body imply. */
function routeOperation(r: MountedRoute): Operation {
  const { spec } = r
  const parameters: unknown[] = []
  for (const [, name] of r.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const p = spec.params?.[name]
    parameters.push(pathParam(name, p?.description ?? name, p?.schema))
  }
  if (spec.query) {
    const query = inputSchema(spec.query)
    const required = new Set((query.required as string[] | undefined) ?? [])
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Schema>)) {
      const { description, ...rest } = schema
      // A default makes a parameter optional to send, whatever zod's input view says.
      parameters.push({ name, in: 'query', required: required.has(name) && !('default' in rest), description: description ?? name, schema: rest })
    }
  }
  parameters.push(...(spec.headers ?? []))
  const status = spec.response.status ?? 200
  const responses: Record<string, unknown> = { [String(status)]: responseOf(spec.response, status, r.security) }
  for (const [s, alt] of Object.entries(spec.alternatives ?? {})) responses[s] = responseOf(alt, Number(s), r.security)
  for (const [s, e] of Object.entries(errors(...errorsFor(r)))) responses[s] ??= e
  const op: Operation = { operationId: spec.operationId, summary: spec.summary, description: spec.description ?? spec.summary, tags: spec.tags }
  if (parameters.length) op.parameters = parameters
  if (spec.body) {
    const media: Record<string, unknown> = { schema: asSchema(spec.body.schema, 'input') }
    if (spec.body.examples?.length) media.examples = Object.fromEntries(spec.body.examples.map((value, i) => [`example${i + 1}`, { value }]))
    op.requestBody = { required: spec.body.required ?? true, content: { 'application/json': media } }
  }
  op.responses = Object.fromEntries(Object.entries(responses).sort(([x], [y]) => Number(x) - Number(y)))
  if (r.security === 'admin') op.security = [{ adminBearer: [] }]
  if (r.security === 'none') op.security = []
  return { ...op, ...spec.extensions }
}

/** The paths of the route table: `/v1/agents/:id` becomes `/v1/agents/{id}`. */
function routePaths(routes: readonly MountedRoute[]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    const item = (paths[path] ??= {})
    if (item[r.method]) throw new Error(`Two routes for ${r.method.toUpperCase()} ${path}`)
    item[r.method] = routeOperation(r)
  }
  return paths
}

function components(): Record<string, unknown> {
  return {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'An API token (aak_...) from an operator or POST /v1/tokens' },
      adminBearer: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN secret; only /v1/admin/*' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['status', 'response', 'error', 'code', 'details', 'request_id'],
        properties: {
          status: { type: 'integer', description: 'HTTP status' },
          response: { type: 'null' },
          error: { type: 'string', description: 'Human-readable message' },
          code: { enum: Object.keys(ERROR_STATUS), description: 'Stable machine-readable code' },
          details: { type: 'array', items: ref('schemas', 'ErrorDetail') },
          request_id: { type: 'string', description: 'The x-request-id of the request' },
        },
      },
      ErrorDetail: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string', description: 'JSON pointer into the body ("/limit"), or "header:<name>" / "query:<name>"' }, message: { type: 'string' } },
      },
      QueuedRun: envelope(
        {
          type: 'object',
          required: ['run_id', 'state', 'poll'],
          properties: { run_id: { type: 'string' }, state: { enum: ['queued', 'running'] }, poll: { type: 'string', description: 'GET this path (with ?wait=<s>) for the result' } },
        },
        {},
        202,
      ),
      Token: {
        type: 'object',
        required: ['id', 'account_id', 'name', 'start', 'created_at', 'expires_at', 'revoked_at', 'last_used_at', 'rate_limit_per_minute', 'rate_limit_per_day'],
        properties: {
          id: { type: 'string' },
          account_id: { type: 'string' },
          name: { type: 'string' },
          start: { type: 'string', description: 'The first characters of the token, to tell it apart' },
          created_at: { type: ['string', 'null'], format: 'date-time' },
          expires_at: { type: ['string', 'null'], format: 'date-time' },
          revoked_at: { type: ['string', 'null'], format: 'date-time' },
          last_used_at: { type: ['string', 'null'], format: 'date-time' },
          rate_limit_per_minute: { type: ['integer', 'null'] },
          rate_limit_per_day: { type: ['integer', 'null'] },
        },
      },
      NewToken: { allOf: [ref('schemas', 'Token'), { type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'The token value, shown only in this answer' } } }] },
      Account: {
        type: 'object',
        required: ['id', 'name', 'rate_limit_per_minute', 'rate_limit_per_day', 'created_at'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          rate_limit_per_minute: { type: ['integer', 'null'] },
          rate_limit_per_day: { type: ['integer', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
      Team: { type: 'object', required: ['id', 'name', 'created_at'], properties: { id: { type: 'string' }, name: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } } },
      JsonRpcMessage: {
        type: 'object',
        description: 'A JSON-RPC 2.0 response (result or error)',
        required: ['jsonrpc'],
        properties: {
          jsonrpc: { const: '2.0' },
          id: { type: ['string', 'integer', 'null'] },
          result: {},
          error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
        },
      },
      Me: { type: 'object', properties: { account_id: { type: 'string' }, account_name: { type: 'string' }, token_id: { type: 'string' }, team_ids: { type: 'array', items: { type: 'string' } } } },
      Agent: {
        type: 'object',
        additionalProperties: true,
        properties: {
          id: { type: 'string' },
          slug: { type: ['string', 'null'] },
          name: { type: 'string' },
          description: { type: 'string' },
          visibility: { enum: ['public', 'private', 'team'] },
          access: ref('schemas', 'AgentAccess'),
        },
      },
      AgentAccess: {
        type: 'object',
        description: "What the agent may touch of a caller's account (also `function.metadata.access` in search hits)",
        required: ['integrations', 'trusted'],
        properties: {
          integrations: { type: 'array', items: { enum: [...INTEGRATIONS] }, description: 'Integrations its workflow uses; another account needs to grant them (PUT /v1/grants/{agent})' },
          trusted: { type: 'boolean', description: 'An operator vouches for this workflow: it needs no grant' },
        },
      },
      Grant: {
        type: 'object',
        required: ['agent_id', 'integrations'],
        properties: {
          agent_id: { type: 'string' },
          agent_name: { type: ['string', 'null'] },
          integrations: { type: 'array', items: { enum: [...INTEGRATIONS] } },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      Run: {
        type: 'object',
        required: ['id', 'action', 'state', 'error', 'attempts', 'created_at', 'started_at', 'finished_at', 'duration_ms'],
        properties: {
          id: { type: 'string' },
          action: { type: 'string' },
          state: { enum: ['queued', 'running', 'succeeded', 'failed'] },
          parent_run_id: { type: ['string', 'null'] },
          workflow_id: { type: ['string', 'null'] },
          output_variable_name: { type: ['string', 'null'] },
          input: { description: 'The input as run, secrets redacted' },
          output: { description: 'The result, once the run succeeded (GET /v1/runs/{id} only)' },
          metadata: {},
          error: { type: ['object', 'null'], properties: { status: { type: ['integer', 'null'] }, code: { type: ['string', 'null'] }, message: { type: 'string' } } },
          progress: {},
          usage: {},
          attempts: { type: 'integer' },
          callback: { type: ['object', 'null'], properties: { url: { type: 'string' }, state: { type: 'string' } } },
          created_at: { type: ['string', 'null'], format: 'date-time' },
          started_at: { type: ['string', 'null'], format: 'date-time' },
          finished_at: { type: ['string', 'null'], format: 'date-time' },
          duration_ms: { type: ['integer', 'null'] },
        },
      },
    },
    responses: errorResponses(),
    parameters: {
      WorkflowId: WORKFLOW_ID_PARAMETER,
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: "Same key and body returns the first run's result; a different body is a 409",
        schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      },
      Prefer: {
        name: 'Prefer',
        in: 'header',
        required: false,
        description: '`wait=<seconds>` to wait for a queued action (capped), or `respond-async` for an immediate 202 from any action (which may then also name a `callback_url` in the body)',
        schema: { type: 'string', examples: ['wait=10', 'respond-async'] },
      },
    },
    headers: {
      RequestId: { description: 'Request id (an incoming well-formed one is echoed)', schema: { type: 'string' } },
      RateLimitLimit: { description: 'Requests allowed in the window closest to running out', schema: { type: 'integer' } },
      RateLimitRemaining: { description: 'Requests left in that window', schema: { type: 'integer' } },
      RateLimitReset: { description: 'Seconds until that window resets', schema: { type: 'integer' } },
      RateLimitResetDate: { description: 'When that window resets (HTTP-date)', schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
      RunId: { description: 'Id of the run this call created', schema: { type: 'string' } },
      Location: { description: 'Path of the run to poll', schema: { type: 'string' } },
      Allow: { description: 'Allowed methods', schema: { type: 'string' } },
      WwwAuthenticate: {
        description: 'Bearer challenge: `resource_metadata` (RFC 9728) on API and MCP routes, and `error="invalid_token"` when a token was sent but refused',
        schema: { type: 'string' },
      },
    },
  }
}

/** The OpenAPI 3.1 document of the whole service: the actions from their registry, every other route from the route table. */
export function openApiDocument(routes: readonly MountedRoute[]): Record<string, unknown> {
  return {
    openapi: '3.1.1',
    info: {
      title: 'Agent Action API',
      version: '1.0.0',
      description:
        'Discover agents (`search`) and run actions with `POST /v1/action/<name>`. Success: `{"status":200,"response":...}`; errors: the error envelope with a stable `code`. Queued actions answer 202 with a run to poll. Also served as MCP tools at `/mcp`.',
    },
    servers: [{ url: '/', description: 'This deployment' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'Actions', description: 'One operation per registered action' },
      { name: 'Agents', description: 'The agent catalog' },
      { name: 'Runs', description: 'Action runs and long jobs' },
      { name: 'Account', description: 'The calling account and its tokens' },
      { name: 'Integrations', description: 'Model keys and the CRM' },
      { name: 'Admin', description: 'Operator API (ADMIN_TOKEN)' },
      { name: 'MCP', description: 'Model Context Protocol' },
      { name: 'Meta', description: 'This document, the docs page, health' },
    ],
    paths: { ...actionPaths(), ...routePaths(routes) },
    components: components(),
  }
}
