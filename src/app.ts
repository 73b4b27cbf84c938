import { Hono } from 'hono'
import { z } from 'zod'
import { actionRoutes } from './actions/routes'
import { grantRoutes } from './agents/grant-routes'
import { agentRoutes } from './agents/routes'
import { adminRoutes } from './auth/admin-routes'
import { requireAuth } from './auth/principal'
import { tokenRoutes } from './auth/token-routes'
import { consoleRoutes } from './console/routes'
import { crmRoutes } from './crm/routes'
import { mcpRoutes, referenceRoutes } from './interfaces/routes'
import { errorResponse } from './http/envelope'
import { ApiError } from './http/errors'
import { toApiError } from './http/map-error'
import { llmKeyRoutes } from './auth/llm-key-routes'
import { requestId } from './http/middleware'
import { methodGuard, RouteTable, Router, schemaRef } from './http/route-table'
import { rateLimit } from './http/rate-limit'
import type { AppEnv } from './http/types'
import { createLogger, errorFields } from './runtime/log'
import { reportAuth } from './reports/link'
import { reportLinkRoutes, reportPageRoutes } from './reports/routes'
import { runRoutes } from './runtime/routes'
import { artifactRoutes } from './research/routes'

/** `/`, `/healthz` and `/v1/me`: the service's own small routes. */
function serviceRoutes() {
  const meta = new Router('Meta')
    .get('/', { operationId: 'index', summary: 'Where things are', response: { description: 'Links to the docs, this document and the actions', schema: ServiceIndex } }, (c) =>
      c.json({ status: 200, response: { service: 'agent-action-api', docs: '/docs', openapi: '/v1/openapi.json', actions: '/v1/action/<name>' } }),
    )
    .get('/healthz', { operationId: 'health', summary: 'Liveness check', response: { description: 'Healthy', schema: z.object({ ok: z.boolean() }) } }, (c) =>
      c.json({ status: 200, response: { ok: true } }),
    )
  const me = new Router('Account').get('/', { operationId: 'me', summary: 'Who the token belongs to', response: { description: 'The account', schema: schemaRef('Me') } }, (c) => {
    const p = c.get('principal')
    return c.json({ status: 200, response: { account_id: p.accountId, account_name: p.accountName, token_id: p.tokenId, team_ids: p.teamIds } })
  })
  return { meta, me }
}

const ServiceIndex = z.object({ service: z.string(), docs: z.string(), openapi: z.string(), actions: z.string() })

/** The Worker's HTTP app: middleware order, routes, and the one error handler. */
export function createApp() {
  const app = new Hono<AppEnv>()
  const table = new RouteTable()
  app.use('*', requestId)
  app.use(
    '*',
    methodGuard(() => app.routes),
  )

  // Each authenticated router carries its own auth and rate limit, so no request is counted twice.
  const authed = (sub: Hono<AppEnv>) => new Hono<AppEnv>().use('*', requireAuth, rateLimit).route('/', sub)
  const { meta, me } = serviceRoutes()
  table.mount(app, '/', meta, 'none')
  table.mount(app, '/', referenceRoutes(table), 'none')
  table.mount(app, '/mcp', mcpRoutes(), 'bearer')
  app.route('/v1/action', actionRoutes())
  table.mount(app, '/v1/admin', adminRoutes(), 'admin')
  table.mount(app, '/v1/me', me, 'bearer', authed)
  table.mount(app, '/v1/tokens', tokenRoutes(), 'bearer', authed)
  table.mount(app, '/v1/agents', agentRoutes(), 'bearer', authed)
  table.mount(app, '/v1/grants', grantRoutes(), 'bearer', authed)
  table.mount(app, '/console', consoleRoutes(), 'none')
  // Before the runs router: the report page also opens from a signed link, without a bearer header.
  // Their auth sits on their own paths: a wrapper's '*' would run for every /v1/runs route.
  table.mount(app, '/v1/runs', reportPageRoutes(), 'bearer', (sub) => new Hono<AppEnv>().use('/:id/report', reportAuth, rateLimit).route('/', sub))
  table.mount(app, '/v1/runs', reportLinkRoutes(), 'bearer', (sub) => new Hono<AppEnv>().use('/:id/report-link', requireAuth, rateLimit).route('/', sub))
  table.mount(app, '/v1/runs', runRoutes(), 'bearer', authed)
  table.mount(app, '/v1/integrations/llm', llmKeyRoutes(), 'bearer', authed)
  table.mount(app, '/v1/integrations/crm', crmRoutes(), 'bearer', authed)
  table.mount(app, '/v1/artifacts', artifactRoutes(), 'bearer', authed)

  app.notFound((c) => errorResponse(c, new ApiError('NOT_FOUND', `No route for ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}`)))
  app.onError((err, c) => {
    const api = toApiError(err)
    if (api) return errorResponse(c, api)
    createLogger({ request_id: c.get('requestId') }).error('unhandled error', { method: c.req.method, path: new URL(c.req.url).pathname, ...errorFields(err) })
    return errorResponse(c, new ApiError('INTERNAL', `Internal server error (request ${c.get('requestId') ?? 'unknown'})`))
  })
  return app
}
