import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { bearerChallenge } from './challenge'
import { ApiError, shownError, type ErrorDetail } from './errors'

/** Success body of every action: `{"status":200,"response":...}` plus optional top-level extras. */
export function successBody(response: unknown, extra: Record<string, unknown> = {}, status = 200) {
  return { status, ...extra, response }
}

/** successBody as JSON text, built from the JSON text of the response (and metadata) without serializing them again. */
export function successJson(responseJson: string, metadataJson: string | null = null, status = 200): string {
  return `{"status":${status}${metadataJson === null ? '' : `,"metadata":${metadataJson}`},"response":${responseJson}}`
}

/** The error envelope: the first three fields are what existing clients read (their size bounded by shownError). */
export function errorBody(status: number, message: string, code: string, details: readonly ErrorDetail[], requestId: string) {
  const shown = shownError(message, details)
  return { status, response: null, error: shown.message, code, details: shown.details, request_id: requestId }
}

/** Renders an ApiError as the error envelope with its headers. */
export function errorResponse(c: Context, err: ApiError): Response {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v)
  if (err.status === 401) c.header('WWW-Authenticate', bearerChallenge(c.req.url, c.req.header('authorization') !== undefined, err.message))
  return c.json(errorBody(err.status, err.message, err.code, err.details, c.get('requestId') ?? ''), err.status as ContentfulStatusCode)
}
