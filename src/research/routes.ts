import { Hono } from 'hono'
import { ApiError } from '../http/errors'
import type { AppEnv } from '../http/types'
import { getArtifact } from './artifacts'

/** `GET /v1/artifacts/:id`: a stored screenshot or timeline of the caller's account; others' are 404. */
export function artifactRoutes() {
  const app = new Hono<AppEnv>()
  app.get('/:id', async (c) => {
    const id = c.req.param('id')
    const artifact = await getArtifact(c.env.CACHE, c.get('principal').accountId, id)
    if (!artifact) throw new ApiError('NOT_FOUND', `Artifact "${id.slice(0, 64)}" not found`)
    return new Response(artifact.body, {
      headers: {
        'content-type': artifact.contentType,
        'cache-control': 'private, max-age=3600',
        'x-content-type-options': 'nosniff',
        // SVGs are served as images only: no scripts, no outside references.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
        'x-request-id': c.get('requestId') ?? '',
      },
    })
  })
  return app
}
