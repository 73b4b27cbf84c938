import type { MissingKeyError } from '../lib/crypto'
import type { ProviderError, UnsafeUrlError, UpstreamError } from '../providers/errors'
import { MAX_RETRY_AFTER_SECONDS } from '../providers/web/retry-after'
import type { StoredValueTooLargeError } from '../runtime/blobs'
import type { ExpansionTooDeepError, ExpansionTooLargeError, UnresolvedReferenceError } from '../runtime/templates'
import { MAX_JSON_DEPTH } from '../lib/json-depth'
import { ApiError, isApiError, type ErrorCode } from './errors'

const PROVIDER_CODES: Record<ProviderError['kind'], ErrorCode> = {
  invalid_input: 'VALIDATION_FAILED',
  unauthorized: 'UNPROCESSABLE',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  not_connected: 'INTEGRATION_NOT_CONNECTED',
  conflict: 'CONFLICT',
  unprocessable: 'UNPROCESSABLE',
  rate_limited: 'UPSTREAM_RATE_LIMITED',
}

/** Our `retry-after` for an upstream's wait: whole seconds from 1 to a day, or none. */
function retryAfterHeader(seconds: number | undefined): Record<string, string> {
  if (seconds === undefined || !(seconds > 0)) return {}
  return { 'retry-after': String(Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(seconds))) }
}

/**
 * Maps the typed failures of providers and the runtime to the API's error codes; null for anything
 * unexpected (which becomes a logged 500). Credentials an upstream rejected are the caller's
 * integration problem, not a failed bearer token, so they are 422 rather than 401.
 */
export function toApiError(err: unknown): ApiError | null {
  if (isApiError(err)) return err
  if (!(err instanceof Error)) return null
  switch (err.name) {
    case 'UnsafeUrlError': {
      const e = err as UnsafeUrlError
      return new ApiError('UNSAFE_URL', e.field ? `${e.field}: ${e.message}` : e.message, e.field ? [{ path: `/${e.field}`, message: e.reason }] : [])
    }
    case 'UnresolvedReference': {
      const e = err as UnresolvedReferenceError
      return new ApiError('UNRESOLVED_REFERENCE', `Unresolved reference in ${e.field}: {{${e.reference}}} ${e.reason}`, [{ path: e.field, message: `{{${e.reference}}} ${e.reason}` }])
    }
    case 'ExpansionTooLarge': {
      const e = err as ExpansionTooLargeError
      const message = `resolving {{...}} references makes the input larger than the limit of ${e.limit} bytes (MAX_RESOLVED_INPUT_BYTES)`
      return new ApiError('PAYLOAD_TOO_LARGE', `Input too large at ${e.field}: ${message}`, [{ path: e.field, message }])
    }
    case 'ExpansionTooDeep': {
      const e = err as ExpansionTooDeepError
      const message = `resolving {{...}} references nests the input deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`
      return new ApiError('VALIDATION_FAILED', `Input too deep at ${e.field}: ${message}`, [{ path: e.field, message }])
    }
    case 'StoredValueTooLarge': {
      const e = err as StoredValueTooLargeError
      return new ApiError('PAYLOAD_TOO_LARGE', e.message, [{ path: e.field.path, message: `more than ${e.limit} bytes as stored` }])
    }
    case 'MissingBlobError':
      return new ApiError('NOT_FOUND', 'A stored value is no longer available: it expired or was purged')
    case 'NotConfiguredError':
      return new ApiError('NOT_CONFIGURED', err.message, [], {})
    case 'MissingKeyError':
      return new ApiError('NOT_CONFIGURED', (err as MissingKeyError).message)
    case 'ProviderError': {
      const e = err as ProviderError
      const headers = retryAfterHeader(e.retryAfterSeconds)
      return new ApiError(PROVIDER_CODES[e.kind], e.message, e.field ? [{ path: `/${e.field}`, message: e.message }] : [], headers)
    }
    case 'UpstreamError': {
      const e = err as UpstreamError
      if (e.kind === 'timeout') return new ApiError('UPSTREAM_TIMEOUT', e.message)
      if (e.kind === 'rate_limited') {
        return new ApiError('UPSTREAM_RATE_LIMITED', e.message, [], retryAfterHeader(e.retryAfterSeconds))
      }
      return new ApiError('UPSTREAM_FAILED', e.message)
    }
  }
  return null
}

/**
 * What JavaScript throws on a value it cannot take (decodeURIComponent on "/%ZZ", encodeURIComponent
 * on a lone surrogate, toISOString on an out-of-range date, JSON.parse, a property of null): the same
 * data throws again on every delivery, so a queued run ends at the first. The platform's own failures
 * (D1, KV, Queues) are plain Errors, or carry `retryable: true`, and stay worth retrying; workerd also
 * throws a TypeError for a connection lost mid-request, which is known by its message.
 */
const DETERMINISTIC: (new (...args: never[]) => Error)[] = [TypeError, RangeError, URIError, SyntaxError, ReferenceError, EvalError]
const PLATFORM_TRANSIENT = /network connection lost|connection (?:was )?reset|internal error|overloaded|object to be reset|code was updated/i

function isDeterministic(err: Error): boolean {
  if ((err as { retryable?: unknown }).retryable === true || PLATFORM_TRANSIENT.test(err.message)) return false
  return DETERMINISTIC.some((kind) => err instanceof kind)
}

/**
 * HTTP statuses of an upstream's refusal that can change on their own: a timeout, too early, rate
 * limited, or the upstream failing (5xx). Any other 4xx (bad request, a rejected key, not found)
 * answers the same request the same way on every delivery.
 */
const upstreamStatusTransient = (status: number | undefined) => status === undefined || status === 408 || status === 425 || status === 429 || status >= 500

/** Transient failures are worth retrying in the queue consumer. */
export function isTransient(err: unknown): boolean {
  if (err instanceof Error && err.name === 'UpstreamError') {
    const e = err as UpstreamError
    if (e.kind === 'status') return upstreamStatusTransient(e.status)
    return e.kind !== 'too_large' && e.kind !== 'invalid' && e.kind !== 'redirects'
  }
  const api = toApiError(err)
  if (api) return api.status === 429 || api.status === 502 || api.status === 504
  return !(err instanceof Error && isDeterministic(err))
}
