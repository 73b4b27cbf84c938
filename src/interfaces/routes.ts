import { requireAuth } from '../auth/principal'
import { RESOURCE_METADATA_PATH, resourceMetadata } from '../http/challenge'
import { ApiError } from '../http/errors'
import { rateLimit } from '../http/rate-limit'
import { Router, schemaRef, type RouteTable } from '../http/route-table'
import { DOCS_PAGE } from './docs-page'
import { checkOrigin, handleMcp } from './mcp'
import { openApiDocument } from './openapi'

/** `GET /v1/openapi.json` and `GET /docs`: public, generated from the route table and the action registry. */
export function referenceRoutes(table: RouteTable) {
  let doc: Record<string, unknown> | undefined
  return (
    new Router('Meta')
      .get(
        '/v1/openapi.json',
        {
          operationId: 'openapi',
          summary: 'This document',
          response: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } } },
        },
        (c) => {
          c.header('cache-control', 'public, max-age=300')
          c.header('access-control-allow-origin', '*')
          // The table is complete once the app is built; the first request renders the document.
          doc ??= openApiDocument(table.routes)
          return c.json(doc)
        },
      )
      // RFC 9728: how to present a token to this API and to /mcp; MCP clients look here after a 401.
      .get(RESOURCE_METADATA_PATH, { operationId: 'resourceMetadata', summary: 'Protected resource metadata of the API (RFC 9728)', description: PRM_DESCRIPTION, response: PRM_RESPONSE }, (c) =>
        metadataResponse(c.req.url, ''),
      )
      .get(
        `${RESOURCE_METADATA_PATH}/mcp`,
        { operationId: 'mcpResourceMetadata', summary: 'Protected resource metadata of /mcp (RFC 9728)', description: PRM_DESCRIPTION, response: PRM_RESPONSE },
        (c) => metadataResponse(c.req.url, '/mcp'),
      )
      .get('/docs', { operationId: 'docs', summary: 'Interactive reference page', response: { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } }, (c) => {
        c.header('content-security-policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
        return c.html(DOCS_PAGE)
      })
  )
}

const PRM_DESCRIPTION =
  'Where a 401 challenge (`resource_metadata=`) points: the resource takes bearer tokens in the Authorization header and names no OAuth authorization server (tokens come from POST /v1/tokens or an operator).'

const PRM_RESPONSE = {
  description: 'RFC 9728 metadata (a plain JSON document, not the envelope)',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['resource', 'bearer_methods_supported'],
        properties: {
          resource: { type: 'string', format: 'uri' },
          resource_name: { type: 'string' },
          resource_documentation: { type: 'string', format: 'uri' },
          bearer_methods_supported: { type: 'array', items: { type: 'string', enum: ['header'] } },
        },
      },
    },
  },
}

function metadataResponse(url: string, path: string): Response {
  const doc = resourceMetadata(new URL(url).origin, path)
  if (!doc) throw new ApiError('NOT_FOUND', `No protected resource ${path.slice(0, 200)}: metadata exists for the API and for /mcp`)
  return Response.json(doc, { headers: { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' } })
}

const jsonRpc = { 'application/json': { schema: schemaRef('JsonRpcMessage') } }
const envelopeOrRpc = { 'application/json': { schema: { anyOf: [schemaRef('Error'), schemaRef('JsonRpcMessage')] } } }

/** `POST /mcp`: the MCP server; the Origin check runs before auth so a foreign page learns nothing. */
export function mcpRoutes() {
  const router = new Router('MCP')
  router.app.post(
    '/',
    async (c, next) => {
      checkOrigin(c)
      await next()
    },
    requireAuth,
    rateLimit,
  )
  return router.post(
    '/',
    {
      operationId: 'mcp',
      summary: 'Model Context Protocol server (Streamable HTTP, stateless)',
      description:
        'JSON-RPC 2.0 over Streamable HTTP: initialize, tools/list, tools/call, ping. Tools are the actions and the agents the token can see (invoke_agent_<id>). Send `Accept: application/json, text/event-stream` (anything else is a 406) and `Content-Type: application/json` (else 415). Browser origins other than this service are refused (403). Errors of the MCP transport (400, 406, 415) carry a JSON-RPC error object, not the error envelope.',
      headers: [
        {
          name: 'Accept',
          in: 'header',
          required: true,
          description: 'Must accept both application/json and text/event-stream',
          schema: { type: 'string', const: 'application/json, text/event-stream' },
        },
      ],
      body: {
        schema: {
          type: 'object',
          required: ['jsonrpc', 'method'],
          properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer'] }, method: { type: 'string' }, params: { type: 'object' } },
        },
        examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
      },
      response: { description: 'JSON-RPC response', content: { ...jsonRpc, 'text/event-stream': { schema: { type: 'string' } } } },
      alternatives: {
        '202': { description: 'A notification was accepted (no body)', content: {} },
        '400': { description: 'Not JSON-RPC, or JSON nested deeper than 128 levels (JSON-RPC error); an undeclared query parameter (error envelope)', content: envelopeOrRpc },
        '406': { description: 'Not Acceptable: the Accept header does not name both application/json and text/event-stream', content: jsonRpc },
        '413': { description: 'Body over MAX_BODY_BYTES (JSON-RPC error)', content: envelopeOrRpc },
        '415': { description: 'Content-Type is not application/json', content: envelopeOrRpc },
      },
      errors: [403],
    },
    (c) => handleMcp(c),
  )
}
