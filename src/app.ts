import { Hono } from 'hono'
import { actionRoutes } from './actions/routes'
import { grantRoutes } from './agents/grant-routes'
import { agentRoutes } from './agents/routes'
import { adminRoutes } from './auth/admin-routes'
import { requireAuth } from './auth/principal'
import { tokenRoutes } from './auth/token-routes'
import { crmRoutes } from './crm/routes'
import { mcpRoutes, referenceRoutes } from './interfaces/routes'
import { errorResponse } from './http/envelope'
import { ApiError } from './http/errors'
import { toApiError } from './http/map-error'
import { llmKeyRoutes } from './auth/llm-key-routes'
import { requestId } from './http/middleware'
import { rateLimit } from './http/rate-limit'
import type { AppEnv } from './http/types'
import { createLogger, errorFields } from './runtime/log'
import { runRoutes } from './runtime/routes'
import { artifactRoutes } from './research/routes'

/** The Worker's HTTP app: middleware order, routes, and the one error handler. */
export function createApp() {
  const app = new Hono<AppEnv>()
  app.use('*', requestId)

  app.get('/', (c) =>
    c.json({ status: 200, response: { service: 'agent-action-api', docs: '/docs', openapi: '/v1/openapi.json', actions: '/v1/action/<name>' } }),
  )
  app.get('/healthz', (c) => c.json({ status: 200, response: { ok: true } }))
  app.route('/', referenceRoutes())
  app.route('/mcp', mcpRoutes())
  app.route('/v1/action', actionRoutes())
  app.route('/v1/admin', adminRoutes())

  // Each authenticated router carries its own auth and rate limit, so no request is counted twice.
  const authed = () => new Hono<AppEnv>().use('*', requireAuth, rateLimit)
  app.route(
    '/v1/me',
    authed().get('/', (c) => {
      const p = c.get('principal')
      return c.json({ status: 200, response: { account_id: p.accountId, account_name: p.accountName, token_id: p.tokenId, team_ids: p.teamIds } })
    }),
  )
  app.route('/v1/tokens', authed().route('/', tokenRoutes()))
  app.route('/v1/agents', authed().route('/', agentRoutes()))
  app.route('/v1/grants', authed().route('/', grantRoutes()))
  app.route('/v1/runs', authed().route('/', runRoutes()))
  app.route('/v1/integrations/llm', authed().route('/', llmKeyRoutes()))
  app.route('/v1/integrations/crm', authed().route('/', crmRoutes()))
  app.route('/v1/artifacts', authed().route('/', artifactRoutes()))

  app.notFound((c) => errorResponse(c, new ApiError('NOT_FOUND', `No route for ${c.req.method} ${new URL(c.req.url).pathname.slice(0, 200)}`)))
  app.onError((err, c) => {
    const api = toApiError(err)
    if (api) return errorResponse(c, api)
    createLogger({ request_id: c.get('requestId') }).error('unhandled error', { method: c.req.method, path: new URL(c.req.url).pathname, ...errorFields(err) })
    return errorResponse(c, new ApiError('INTERNAL', `Internal server error (request ${c.get('requestId') ?? 'unknown'})`))
  })
  return app
}
