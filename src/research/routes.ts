import { ApiError } from '../http/errors'
import { Router } from '../http/route-table'
import { getArtifact } from './artifacts'

/** `GET /v1/artifacts/:id`: a stored screenshot or timeline of the caller's account; others' are 404. */
export function artifactRoutes() {
  const app = new Router('Runs')
  app.get(
    '/:id',
    {
      operationId: 'getArtifact',
      summary: 'A stored screenshot or timeline image of your account',
      description: "Research reports link their screenshots and timelines here; another account's artifact is a 404.",
      params: { id: { description: 'Artifact id, as linked from a research report' } },
      response: {
        description: 'The image',
        content: {
          'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
          'image/svg+xml': { schema: { type: 'string' } },
        },
      },
      errors: [404],
    },
    async (c) => {
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
    },
  )
  return app
}
