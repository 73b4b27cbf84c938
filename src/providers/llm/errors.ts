import { APICallError, NoObjectGeneratedError } from 'ai'
import { parseJson } from '../../lib/json-depth'
import { UpstreamError } from '../errors'
import { retryAfterSeconds } from '../web/retry-after'

/**
 * The vendor's own error text from an error body ({error:{message}} for OpenAI and Anthropic). The AI
 * SDK types the body as text but does not always hand over text (an answer it could not read as JSON
 * of the expected shape), so anything else has no message.
 */
export function vendorMessage(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body) return undefined
  try {
    const parsed = parseJson(body) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof parsed.error === 'string') return parsed.error.slice(0, 300)
    if (parsed.error && typeof parsed.error.message === 'string') return parsed.error.message.slice(0, 300)
    if (typeof parsed.message === 'string') return parsed.message.slice(0, 300)
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 200)
}

function findUpstream(err: unknown): UpstreamError | null {
  let cur: unknown = err
  for (let i = 0; i < 5 && cur; i++) {
    if (cur instanceof Error && cur.name === 'UpstreamError') return cur as UpstreamError
    cur = (cur as { cause?: unknown }).cause
  }
  return null
}

/**
 * Turns what the AI SDK throws into the service's typed errors: timeouts and network failures keep
 * the guarded client's UpstreamError; vendor statuses become rate_limited (429) or status (502) with
 * the vendor's message; an answer that does not fit the schema, or a success it could not read, is
 * `invalid` (502, not retried).
 */
export function toModelError(err: unknown, service: string, keyNote: string): Error {
  const upstream = findUpstream(err)
  if (upstream) return upstream
  if (APICallError.isInstance(err)) {
    const status = err.statusCode
    const detail = vendorMessage(err.responseBody) ?? err.message
    if (status === 429) return new UpstreamError(service, 'rate_limited', `${service} rate limit reached: ${detail}`, 429, retryAfterSeconds(err.responseHeaders?.['retry-after']))
    if (status === 401 || status === 403) return new UpstreamError(service, 'status', `${service} rejected the API key (${keyNote}): ${detail}`, status)
    // A success status the SDK could not read is the vendor's answer of a wrong shape: the same on
    // every try, and its body (the SDK's message quotes it) is no message for a caller.
    if (status !== undefined && status >= 200 && status < 300) return new UpstreamError(service, 'invalid', `${service} answered with a response of an unexpected shape (HTTP ${status})`, status)
    if (status !== undefined) return new UpstreamError(service, 'status', `${service} answered ${status}: ${detail}`, status)
    return new UpstreamError(service, 'network', `Could not reach ${service}: ${detail}`)
  }
  if (NoObjectGeneratedError.isInstance(err)) {
    return new UpstreamError(service, 'invalid', `${service} answered with output that does not match the requested JSON schema`)
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new UpstreamError(service, 'timeout', `${service} did not answer in time`)
  }
  if (err instanceof Error && err.name.startsWith('AI_')) return new UpstreamError(service, 'invalid', `${service} call failed: ${err.message.slice(0, 300)}`)
  return err instanceof Error ? err : new Error(String(err))
}
