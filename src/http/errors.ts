import { cutChars } from '../lib/text'

/** One entry per error code: the HTTP status it maps to. The list is closed; README documents each. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  UNRESOLVED_REFERENCE: 400,
  UNSAFE_URL: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INTEGRATION_NOT_GRANTED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INTEGRATION_NOT_CONNECTED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  UPSTREAM_RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  NOT_CONFIGURED: 503,
  UPSTREAM_TIMEOUT: 504,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/** One failing field: a JSON pointer into the request body and what is wrong with it. */
export interface ErrorDetail {
  path: string
  message: string
}

/**
 * The only error type the HTTP layer maps to a response. Anything else thrown becomes a 500.
 * @example throw new ApiError('NOT_FOUND', 'Agent "abc" not found')
 */
export class ApiError extends Error {
  readonly status: number
  readonly headers: Record<string, string>

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
    this.headers = headers
  }
}

/**
 * What one error answer shows at most. Details and messages name the caller's own fields and keys, so
 * without these a 1 MiB body of 80,000 unknown keys (or one key of a megabyte) would be answered with
 * 5 MB of details; the summary message still counts every failing field. Applied where an error is
 * answered, after a run's secrets are scrubbed: a cut made before could leave part of a secret that
 * the scrubber no longer recognises.
 */
export const MAX_ERROR_DETAILS = 100
const MAX_ERROR_MESSAGE = 4000
const MAX_DETAIL_PATH = 200
const MAX_DETAIL_MESSAGE = 500

/** An error message as answered: within MAX_ERROR_MESSAGE characters. */
export function shownMessage(message: string): string {
  return cut(message, MAX_ERROR_MESSAGE)
}

/** An error's message and details as answered: within the bounds above. */
export function shownError(message: string, details: readonly ErrorDetail[]): { message: string; details: ErrorDetail[] } {
  return {
    message: shownMessage(message),
    details: details
      .slice(0, MAX_ERROR_DETAILS)
      .map((d) => (d.path.length > MAX_DETAIL_PATH || d.message.length > MAX_DETAIL_MESSAGE ? { path: cut(d.path, MAX_DETAIL_PATH), message: cut(d.message, MAX_DETAIL_MESSAGE) } : d)),
  }
}

/** `text` within `max` characters, cut between code points and marked with "…" when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${cutChars(text, max)}…`
}

/** True for an ApiError, also across module copies (the test runner may load two). */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError || (err instanceof Error && err.name === 'ApiError' && 'code' in err && 'status' in err)
}

/** Turns a JSON pointer-ish path array into "/a/0/b". */
export function pointer(path: ReadonlyArray<PropertyKey>): string {
  return '/' + path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
}
