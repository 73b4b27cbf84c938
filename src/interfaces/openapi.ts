import { z } from 'zod'
import type { AnyAction } from '../actions/define'
import { actions } from '../actions/registry'
import { secretFields } from '../actions/secret-fields'
import { GrantBody } from '../agents/grant-routes'
import { CreateAgentBody, ImportAgentsBody, MAX_IMPORT, ReviewBody, UpdateAgentBody } from '../agents/bodies'
import { CreateAccountBody, CreateTeamBody, CreateTokenBody, MemberBody, UpdateAccountBody, UpdateTokenBody } from '../auth/schemas'
import { ConnectBody, CreateObjectBody } from '../crm/routes'
import { ERROR_STATUS, type ErrorCode } from '../http/errors'
import { LlmKeyBody } from '../auth/llm-key-routes'
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
  RATE_LIMITED: "The account (all its tokens together) or the token (its own lower limit) used up its per-minute or per-day requests; see retry-after",
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
          examples: Object.fromEntries(
            codes.map((code) => [code, { value: { status, response: null, error: ERROR_MEANING[code], code, details: [], request_id: 'req_4bXoQ2m9sTz1VdK8pLr3' } }]),
          ),
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
const queryParam = (name: string, description: string, schema: Schema) => ({ name, in: 'query', required: false, description, schema })

const anyObject: Schema = { type: 'object', additionalProperties: true }
const anyArray: Schema = { type: 'array', items: anyObject }

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
  if (mayQueue(a)) {
    responses['202'] = {
      description: 'Still running after the wait budget (Prefer: wait=<s>); poll the run',
      headers: { 'x-request-id': ref('headers', 'RequestId'), 'x-run-id': ref('headers', 'RunId'), Location: ref('headers', 'Location'), ...rateLimitHeaders() },
      content: { 'application/json': { schema: ref('schemas', 'QueuedRun') } },
    }
  }
  Object.assign(responses, errors(...BODY_ERRORS, 401, 403, 404, 409, 412, 422, 429, 500, 502, 503, 504))
  const requestBody = jsonBody(a.input, a.examples)
  if (mayQueue(a)) {
    const schema = requestBody.content['application/json'].schema as Schema
    schema.properties = { ...(schema.properties as Schema), callback_url: { type: 'string', format: 'uri', description: 'HTTPS URL that receives the result when a queued run finishes (signed with WEBHOOK_SIGNING_SECRET)' } }
  }
  return {
    operationId: a.name,
    summary: a.summary,
    description: a.description ?? a.summary,
    tags: ['Actions'],
    parameters: [ref('parameters', 'WorkflowId'), ref('parameters', 'IdempotencyKey'), ref('parameters', 'Prefer')],
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
        '202': { description: 'Still running; poll the run', headers: { 'x-run-id': ref('headers', 'RunId'), Location: ref('headers', 'Location') }, content: { 'application/json': { schema: ref('schemas', 'QueuedRun') } } },
        ...errors(...BODY_ERRORS, 401, 403, 404, 409, 429, 500, 502, 503, 504),
      },
    },
  }
  return paths
}

function resourcePaths(): Record<string, unknown> {
  const tokenView: Schema = { type: 'object', additionalProperties: true, properties: { id: { type: 'string' }, name: { type: 'string' }, start: { type: 'string' } } }
  const authed = (op: Operation, tag: string): Operation => ({ tags: [tag], ...op })
  const admin = (op: Operation): Operation => ({ tags: ['Admin'], security: [{ adminBearer: [] }], ...op })
  return {
    '/v1/me': { get: authed({ operationId: 'me', summary: 'Who the token belongs to', responses: { ...ok('The account', ref('schemas', 'Me')), ...errors(...AUTHED_ERRORS) } }, 'Account') },
    '/v1/tokens': {
      get: authed({ operationId: 'listTokens', summary: "List the account's tokens", responses: { ...ok('Tokens (never their values)', { type: 'array', items: tokenView }), ...errors(...AUTHED_ERRORS) } }, 'Account'),
      post: authed(
        { operationId: 'createToken', summary: 'Create a token (its value is shown once)', requestBody: jsonBody(CreateTokenBody, [{ name: 'ci', expires_in_days: 30 }]), responses: { ...ok('The new token, with `token` shown once', tokenView, { status: 201 }), ...errors(...BODY_ERRORS, 403, ...AUTHED_ERRORS) } },
        'Account',
      ),
    },
    '/v1/tokens/{id}': {
      parameters: [pathParam('id', 'Token id (tok_...)')],
      patch: authed(
        {
          operationId: 'updateToken',
          summary: "Set a token's own rate limits (below the account's; a limited token cannot raise any token above its own)",
          requestBody: jsonBody(UpdateTokenBody, [{ rate_limit_per_minute: 5 }]),
          responses: { ...ok('The token', tokenView), ...errors(...BODY_ERRORS, 403, 404, ...AUTHED_ERRORS) },
        },
        'Account',
      ),
      delete: authed({ operationId: 'revokeToken', summary: 'Revoke a token', responses: { ...ok('The revoked token', tokenView), ...errors(404, ...AUTHED_ERRORS) } }, 'Account'),
    },
    '/v1/agents': {
      get: authed(
        {
          operationId: 'listAgents',
          summary: "List the caller's own agents",
          parameters: [queryParam('limit', 'Page size, 1-100', { type: 'integer', minimum: 1, maximum: 100, default: 50 }), queryParam('cursor', 'next_cursor of the previous page', { type: 'string' })],
          responses: { ...ok('Agents', { type: 'array', items: ref('schemas', 'Agent') }, { extra: { next_cursor: { type: ['string', 'null'] } } }), ...errors(...AUTHED_ERRORS) },
        },
        'Agents',
      ),
      post: authed({ operationId: 'createAgent', summary: 'Create an agent', requestBody: jsonBody(CreateAgentBody, [AGENT_EXAMPLE]), responses: { ...ok('The agent', ref('schemas', 'Agent'), { status: 201 }), ...errors(...BODY_ERRORS, 403, 409, ...AUTHED_ERRORS) } }, 'Agents'),
    },
    '/v1/agents/import': {
      post: authed(
        {
          operationId: 'importAgents',
          summary: 'Create many agents at once, all or nothing',
          description: `Each agent as createAgent takes it. Every problem is reported (details under /agents/<index>/...) and then nothing is written. An agent whose slug already names one of the caller's agents is left as it is (status "existing"), so a repeated import creates nothing twice. At most ${MAX_IMPORT} agents.`,
          requestBody: jsonBody(ImportAgentsBody, [{ agents: [AGENT_EXAMPLE] }]),
          responses: {
            ...ok('What was created', {
              type: 'object',
              properties: {
                created: { type: 'integer' },
                existing: { type: 'integer' },
                agents: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, slug: { type: ['string', 'null'] }, name: { type: 'string' }, status: { enum: ['created', 'existing'] } } } },
              },
            }, { status: 201 }),
            ...errors(...BODY_ERRORS, 403, 409, ...AUTHED_ERRORS),
          },
        },
        'Agents',
      ),
    },
    '/v1/agents/{id}': {
      parameters: [pathParam('id', 'Agent id or slug')],
      get: authed({ operationId: 'getAgent', summary: 'Read an agent the caller can see', responses: { ...ok('The agent', ref('schemas', 'Agent')), ...errors(404, ...AUTHED_ERRORS) } }, 'Agents'),
      patch: authed({ operationId: 'updateAgent', summary: 'Change an agent (owner only)', requestBody: jsonBody(UpdateAgentBody, [{ description: 'Sharper description' }]), responses: { ...ok('The agent', ref('schemas', 'Agent')), ...errors(...BODY_ERRORS, 403, 404, 409, ...AUTHED_ERRORS) } }, 'Agents'),
      delete: authed({ operationId: 'deleteAgent', summary: 'Delete an agent (owner only)', responses: { ...ok('Deleted', anyObject), ...errors(403, 404, ...AUTHED_ERRORS) } }, 'Agents'),
    },
    '/v1/agents/{id}/review': {
      parameters: [pathParam('id', 'Agent id or slug')],
      put: authed({ operationId: 'reviewAgent', summary: 'Rate an agent 1-5 (one review per account)', requestBody: jsonBody(ReviewBody, [{ rating: 5 }]), responses: { ...ok('The agent with its new score', ref('schemas', 'Agent')), ...errors(...BODY_ERRORS, 404, ...AUTHED_ERRORS) } }, 'Agents'),
      delete: authed({ operationId: 'unreviewAgent', summary: 'Remove your review', responses: { ...ok('The agent', ref('schemas', 'Agent')), ...errors(404, ...AUTHED_ERRORS) } }, 'Agents'),
    },
    '/v1/grants': {
      get: authed({ operationId: 'listGrants', summary: "Agents of other accounts you allowed to use your integrations", responses: { ...ok('Grants', { type: 'array', items: ref('schemas', 'Grant') }), ...errors(...AUTHED_ERRORS) } }, 'Agents'),
    },
    '/v1/grants/{agent}': {
      parameters: [pathParam('agent', 'Agent id or slug')],
      put: authed(
        {
          operationId: 'grantAgent',
          summary: "Allow another account's agent to use your integrations (until revoked or its workflow changes)",
          requestBody: { ...jsonBody(GrantBody, [{ integrations: ['crm'] }]), required: false },
          responses: { ...ok('The grant, with what the agent declares', ref('schemas', 'Grant')), ...errors(...BODY_ERRORS, 404, ...AUTHED_ERRORS) },
        },
        'Agents',
      ),
      delete: authed({ operationId: 'revokeAgentGrant', summary: 'Revoke a grant', responses: { ...ok('Revoked', anyObject), ...errors(404, ...AUTHED_ERRORS) } }, 'Agents'),
    },
    '/v1/runs': {
      get: authed(
        {
          operationId: 'listRuns',
          summary: "List the account's runs, newest first",
          parameters: [
            queryParam('action', 'Only runs of this action', { type: 'string' }),
            queryParam('state', 'Only runs in this state', { enum: ['queued', 'running', 'succeeded', 'failed'] }),
            queryParam('limit', 'Page size, 1-100', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
            queryParam('cursor', 'next_cursor of the previous page', { type: 'string' }),
          ],
          responses: { ...ok('Runs (without outputs)', { type: 'array', items: ref('schemas', 'Run') }, { extra: { next_cursor: { type: ['string', 'null'] } } }), ...errors(400, ...AUTHED_ERRORS) },
        },
        'Runs',
      ),
    },
    '/v1/runs/{id}': {
      get: authed(
        {
          operationId: 'getRun',
          summary: 'Read a run; `wait` long-polls until it finishes',
          parameters: [pathParam('id', 'Run id (run_...)'), queryParam('wait', 'Seconds to wait for a queued or running run to finish (capped by QUEUE_WAIT_MAX_SECONDS)', { type: 'number', minimum: 0 })],
          responses: { ...ok('The run, with its output once it succeeded', ref('schemas', 'Run')), ...errors(400, 404, ...AUTHED_ERRORS) },
        },
        'Runs',
      ),
    },
    '/v1/integrations/llm': { get: authed({ operationId: 'listModelKeys', summary: 'Connected model keys (never the keys)', responses: { ...ok('Keys', { type: 'array', items: anyObject }), ...errors(...AUTHED_ERRORS) } }, 'Integrations') },
    '/v1/integrations/llm/{provider}': {
      parameters: [pathParam('provider', 'Model provider', { type: 'string', examples: ['openai', 'anthropic', 'openai_compatible'] })],
      get: authed({ operationId: 'getModelKey', summary: 'A connected model key', responses: { ...ok('The key (hint only)', anyObject), ...errors(404, ...AUTHED_ERRORS) } }, 'Integrations'),
      put: authed({ operationId: 'putModelKey', summary: 'Connect a model key (stored encrypted)', requestBody: jsonBody(LlmKeyBody, [{ api_key: 'sk-proj-...' }]), responses: { ...ok('The key (hint only)', anyObject), ...errors(...BODY_ERRORS, 404, ...AUTHED_ERRORS) } }, 'Integrations'),
      delete: authed({ operationId: 'deleteModelKey', summary: 'Disconnect a model key', responses: { ...ok('Removed', anyObject), ...errors(404, ...AUTHED_ERRORS) } }, 'Integrations'),
    },
    '/v1/integrations/crm': {
      get: authed({ operationId: 'getCrm', summary: 'The CRM connection (built-in CRM when none)', responses: { ...ok('The connection', anyObject), ...errors(...AUTHED_ERRORS) } }, 'Integrations'),
      put: authed(
        { operationId: 'connectCrm', summary: 'Connect a HubSpot portal (token stored encrypted)', requestBody: jsonBody(ConnectBody, [{ provider: 'hubspot', access_token: 'pat-na1-...' }]), responses: { ...ok('The connection', anyObject), ...errors(...BODY_ERRORS, 502, 504, ...AUTHED_ERRORS) } },
        'Integrations',
      ),
      delete: authed({ operationId: 'disconnectCrm', summary: 'Disconnect the CRM', responses: { ...ok('Disconnected', anyObject), ...errors(...AUTHED_ERRORS) } }, 'Integrations'),
    },
    '/v1/integrations/crm/builtin/objects/{type}': {
      parameters: [pathParam('type', 'Object type', { enum: ['contacts', 'companies', 'deals', 'tickets', 'calls', 'emails', 'meetings', 'notes', 'tasks'] })],
      get: authed(
        {
          operationId: 'listBuiltinCrmObjects',
          summary: 'List records of the built-in CRM',
          parameters: [queryParam('limit', 'Page size, 1-100', { type: 'integer', minimum: 1, maximum: 100, default: 20 }), queryParam('after', 'CRM ID to start after', { type: 'string', pattern: '^\\d{1,20}$' })],
          responses: { ...ok('A page of records', anyObject), ...errors(400, 404, ...AUTHED_ERRORS) },
        },
        'Integrations',
      ),
      post: authed(
        { operationId: 'createBuiltinCrmObject', summary: 'Create a record in the built-in CRM', requestBody: jsonBody(CreateObjectBody, [{ properties: { email: 'ada@example.com', firstname: 'Ada' } }]), responses: { ...ok('The record', anyObject, { status: 201 }), ...errors(...BODY_ERRORS, 404, ...AUTHED_ERRORS) } },
        'Integrations',
      ),
    },
    '/v1/integrations/crm/builtin/objects/{type}/{id}': {
      parameters: [pathParam('type', 'Object type'), pathParam('id', 'CRM ID', { type: 'string', pattern: '^\\d{1,20}$' })],
      delete: authed({ operationId: 'deleteBuiltinCrmObject', summary: 'Delete a built-in CRM record', responses: { ...ok('Deleted', anyObject), ...errors(404, ...AUTHED_ERRORS) } }, 'Integrations'),
    },
    '/v1/admin/accounts': {
      get: admin({ operationId: 'adminListAccounts', summary: 'List accounts', responses: { ...ok('Accounts', anyArray, { authed: false }), ...errors(401, 500) } }),
      post: admin({ operationId: 'adminCreateAccount', summary: 'Create an account', requestBody: jsonBody(CreateAccountBody, [{ name: 'Acme' }]), responses: { ...ok('The account', anyObject, { status: 201, authed: false }), ...errors(...BODY_ERRORS, 401, 500) } }),
    },
    '/v1/admin/accounts/{id}': {
      parameters: [pathParam('id', 'Account id')],
      get: admin({ operationId: 'adminGetAccount', summary: 'Read an account', responses: { ...ok('The account', anyObject, { authed: false }), ...errors(401, 404, 500) } }),
      patch: admin({ operationId: 'adminUpdateAccount', summary: "Change an account's rate limits", requestBody: jsonBody(UpdateAccountBody, [{ rate_limit_per_minute: 120 }]), responses: { ...ok('The account', anyObject, { authed: false }), ...errors(...BODY_ERRORS, 401, 404, 500) } }),
    },
    '/v1/admin/accounts/{id}/tokens': {
      parameters: [pathParam('id', 'Account id')],
      get: admin({ operationId: 'adminListTokens', summary: "List an account's tokens", responses: { ...ok('Tokens', { type: 'array', items: tokenView }, { authed: false }), ...errors(401, 404, 500) } }),
      post: admin({ operationId: 'adminCreateToken', summary: 'Create a token for an account', requestBody: jsonBody(CreateTokenBody, [{ name: 'default' }]), responses: { ...ok('The new token, shown once', tokenView, { status: 201, authed: false }), ...errors(...BODY_ERRORS, 401, 404, 429, 500) } }),
    },
    '/v1/admin/tokens/{id}': {
      parameters: [pathParam('id', 'Token id')],
      patch: admin({ operationId: 'adminUpdateToken', summary: "Set any token's own rate limits", requestBody: jsonBody(UpdateTokenBody, [{ rate_limit_per_day: 500 }]), responses: { ...ok('The token', tokenView, { authed: false }), ...errors(...BODY_ERRORS, 401, 404, 500) } }),
      delete: admin({ operationId: 'adminRevokeToken', summary: 'Revoke any token', responses: { ...ok('The revoked token', tokenView, { authed: false }), ...errors(401, 404, 500) } }),
    },
    '/v1/admin/teams': {
      get: admin({ operationId: 'adminListTeams', summary: 'List teams', responses: { ...ok('Teams', anyArray, { authed: false }), ...errors(401, 500) } }),
      post: admin({ operationId: 'adminCreateTeam', summary: 'Create a team', requestBody: jsonBody(CreateTeamBody, [{ name: 'Sales' }]), responses: { ...ok('The team', anyObject, { status: 201, authed: false }), ...errors(...BODY_ERRORS, 401, 500) } }),
    },
    '/v1/admin/teams/{id}/members': { get: admin({ operationId: 'adminListMembers', summary: "List a team's members", parameters: [pathParam('id', 'Team id')], responses: { ...ok('Members', anyArray, { authed: false }), ...errors(401, 404, 500) } }) },
    '/v1/admin/teams/{id}/members/{accountId}': {
      parameters: [pathParam('id', 'Team id'), pathParam('accountId', 'Account id')],
      put: admin({ operationId: 'adminAddMember', summary: 'Add an account to a team', requestBody: jsonBody(MemberBody, [{ role: 'member' }], false), responses: { ...ok('The membership', anyObject, { authed: false }), ...errors(...BODY_ERRORS, 401, 404, 500) } }),
      delete: admin({ operationId: 'adminRemoveMember', summary: 'Remove an account from a team', responses: { ...ok('Removed', anyObject, { authed: false }), ...errors(401, 404, 500) } }),
    },
    '/v1/admin/agents/{id}/trusted': {
      parameters: [pathParam('id', 'Agent id')],
      put: admin({ operationId: 'adminTrustAgent', summary: "Trust an agent's current workflow: it uses callers' integrations without their grants", responses: { ...ok('Trusted', anyObject, { authed: false }), ...errors(401, 404, 500) } }),
      delete: admin({ operationId: 'adminDistrustAgent', summary: 'End the trust of an agent', responses: { ...ok('Not trusted', anyObject, { authed: false }), ...errors(401, 404, 500) } }),
    },
    '/mcp': {
      post: {
        operationId: 'mcp',
        summary: 'Model Context Protocol server (Streamable HTTP, stateless)',
        description:
          'JSON-RPC 2.0 over Streamable HTTP: initialize, tools/list, tools/call, ping. Tools are the actions and the agents the token can see (invoke_agent_<id>). Send `Accept: application/json, text/event-stream`. Browser origins other than this service are refused (403).',
        tags: ['MCP'],
        requestBody: { required: true, content: { 'application/json': { schema: anyObject, examples: { list: { value: { jsonrpc: '2.0', id: 1, method: 'tools/list' } } } } } },
        responses: {
          '200': { description: 'JSON-RPC response', content: { 'application/json': { schema: anyObject }, 'text/event-stream': { schema: { type: 'string' } } } },
          '202': { description: 'A notification was accepted' },
          ...errors(401, 403, 429, 500),
        },
      },
    },
    '/v1/openapi.json': {
      get: { operationId: 'openapi', summary: 'This document', tags: ['Meta'], security: [], responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: anyObject } } } } },
    },
    '/docs': {
      get: { operationId: 'docs', summary: 'Interactive reference page', tags: ['Meta'], security: [], responses: { '200': { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } } },
    },
    '/healthz': {
      get: { operationId: 'health', summary: 'Liveness check', tags: ['Meta'], security: [], responses: { ...ok('Healthy', { type: 'object', properties: { ok: { type: 'boolean' } } }, { authed: false }) } },
    },
  }
}

const AGENT_EXAMPLE = {
  name: 'Domain brief',
  description: 'Summarises what a company does from its domain.',
  visibility: 'private',
  parameters: { type: 'object', properties: { domain: { type: 'string', description: 'Company domain' } }, required: ['domain'], additionalProperties: false },
  workflow: { steps: [{ id: 'lookup', action: 'crm.v2.lookup_object', input: { object_type: 'companies', object_id: '{{input.domain}}' } }] },
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
      Me: { type: 'object', properties: { account_id: { type: 'string' }, account_name: { type: 'string' }, token_id: { type: 'string' }, team_ids: { type: 'array', items: { type: 'string' } } } },
      Agent: {
        type: 'object',
        additionalProperties: true,
        properties: { id: { type: 'string' }, slug: { type: ['string', 'null'] }, name: { type: 'string' }, description: { type: 'string' }, visibility: { enum: ['public', 'private', 'team'] }, access: ref('schemas', 'AgentAccess') },
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
        additionalProperties: true,
        properties: {
          id: { type: 'string' },
          action: { type: 'string' },
          state: { enum: ['queued', 'running', 'succeeded', 'failed'] },
          output: {},
          error: { type: ['object', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    responses: errorResponses(),
    parameters: {
      WorkflowId: { name: 'Workflow-Id', in: 'header', required: false, description: 'Variable scope: `{{path}}` references resolve from it and output_variable_name stores into it', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } },
      IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, description: "Same key and body returns the first run's result; a different body is a 409", schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' } },
      Prefer: { name: 'Prefer', in: 'header', required: false, description: '`wait=<seconds>` to wait for a queued action (capped), or `respond-async` for an immediate 202', schema: { type: 'string', examples: ['wait=10', 'respond-async'] } },
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
      WwwAuthenticate: { description: 'Bearer challenge', schema: { type: 'string' } },
    },
  }
}

let cached: Record<string, unknown> | undefined

/** The OpenAPI 3.1 document of the whole service, generated from the registry and the route schemas. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= {
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
    paths: { ...actionPaths(), ...resourcePaths() },
    components: components(),
  }
  return cached
}
