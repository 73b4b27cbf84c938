import { Hono, type Context } from 'hono'
import { RESOURCE_METADATA_PATH, resourceMetadata } from '../http/challenge'
import { requireAuth } from '../auth/principal'
import { ApiError } from '../http/errors'
import { rateLimit } from '../http/rate-limit'
import type { AppEnv } from '../http/types'
import { DOCS_PAGE } from './docs-page'
import { checkOrigin, handleMcp } from './mcp'
import { openApiDocument } from './openapi'

/** `GET /v1/openapi.json`, `GET /docs` and the protected-resource metadata: public, generated from the registry. */
export function referenceRoutes() {
  const app = new Hono<AppEnv>()
  app.get('/v1/openapi.json', (c) => {
    c.header('cache-control', 'public, max-age=300')
    c.header('access-control-allow-origin', '*')
    return c.json(openApiDocument())
  })
  // RFC 9728: how to present a token to this API (and to /mcp); MCP clients look here after a 401.
  app.get(`${RESOURCE_METADATA_PATH}/*`, (c) => metadataResponse(c, c.req.path.slice(RESOURCE_METADATA_PATH.length)))
  app.get(RESOURCE_METADATA_PATH, (c) => metadataResponse(c, ''))
  app.get('/docs', (c) => {
    c.header('content-security-policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
    return c.html(DOCS_PAGE)
  })
  return app
}

function metadataResponse(c: Context<AppEnv>, path: string) {
  const doc = resourceMetadata(new URL(c.req.url).origin, path)
  if (!doc) throw new ApiError('NOT_FOUND', `No protected resource ${path.slice(0, 200)}: metadata exists for the API and for /mcp`)
  c.header('cache-control', 'public, max-age=3600')
  c.header('access-control-allow-origin', '*')
  return c.json(doc)
}

/** `POST /mcp`: the MCP server; the Origin check runs before auth so a foreign page learns nothing. */
export function mcpRoutes() {
  const app = new Hono<AppEnv>()
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/', (c) => {
    c.header('Allow', 'POST')
    throw new ApiError('METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed on /mcp: this stateless server answers POST only`, [], { Allow: 'POST' })
  })
  app.post(
    '/',
    async (c, next) => {
      checkOrigin(c)
      await next()
    },
    requireAuth,
    rateLimit,
    (c) => handleMcp(c),
  )
  return app
}
