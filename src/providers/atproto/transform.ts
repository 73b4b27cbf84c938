import { ProviderError, UpstreamError } from '../errors'
import { resetAfterSeconds, retryAfterSeconds as retryAfter } from '../web/retry-after'
import { pathSegment } from '../../lib/text'

/** Which XRPC call failed, for messages. */
export type XrpcCall = 'login' | 'post' | 'upload'

const SERVICE = 'Bluesky PDS'
const APP_PASSWORD_HINT = 'Use the account handle (or email) with an app password (Bluesky: Settings > Privacy and security > App passwords).'

/** Removes every occurrence of the secrets from upstream text before it reaches a message. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text
  for (const s of secrets) if (s.length >= 1) out = out.split(s).join('[redacted]')
  return out
}

/** Seconds until a rate limit resets, from `retry-after` or the PDS's `ratelimit-reset` (epoch seconds). */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const after = retryAfter(headers.get('retry-after'), now)
  return after !== undefined ? Math.max(1, after) : resetAfterSeconds(headers.get('ratelimit-reset'), now)
}

/**
 * Maps a failed XRPC response (status + `{error, message}` body) to a typed error. Upstream text is
 * scrubbed of the secrets and never includes the identifier or password.
 */
export function xrpcError(call: XrpcCall, status: number, body: unknown, headers: Headers, secrets: readonly string[]): Error {
  const b = (body ?? {}) as { error?: unknown; message?: unknown }
  const name = typeof b.error === 'string' ? b.error.slice(0, 100) : ''
  const said = typeof b.message === 'string' ? scrub(b.message, secrets).slice(0, 300) : ''
  const upstream = [name, said].filter(Boolean).join(': ')
  if (status === 429) {
    const wait = retryAfterSeconds(headers)
    return new ProviderError(
      'rate_limited',
      `The PDS rate limited the ${call === 'login' ? 'login' : call === 'upload' ? 'image upload' : 'post'}${wait ? `; retry in ${wait} s` : ''}.`,
      undefined,
      wait,
    )
  }
  if (call === 'login') {
    if (name === 'AuthFactorTokenRequired') {
      return new ProviderError('unauthorized', `This account signs in with an emailed code, which this service cannot enter. ${APP_PASSWORD_HINT}`, 'password')
    }
    if (name === 'AccountTakedown' || name === 'AccountSuspended') return new ProviderError('forbidden', `The PDS refused the login: the account is taken down or suspended (${name}).`)
    if (status === 401 || status === 400) {
      return new ProviderError('unauthorized', `The PDS rejected the username or password. ${APP_PASSWORD_HINT}`, 'password')
    }
  }
  if (call === 'post' && status === 400) return new ProviderError('unprocessable', `The PDS rejected the post${upstream ? ` (${upstream})` : ''}.`, 'content')
  if (call === 'post' && status === 401) return new UpstreamError(SERVICE, 'status', `The PDS did not accept the new session for posting${upstream ? ` (${upstream})` : ''}.`, status)
  return new UpstreamError(SERVICE, 'status', `The PDS answered the ${call} request with HTTP ${status}${upstream ? ` (${upstream})` : ''}.`, status)
}

/** The record key of an at:// URI (its last path segment). */
export function recordKey(atUri: string): string {
  return atUri.split('/').pop() ?? ''
}

/**
 * The bsky.app address of a post; null when the PDS answered a handle or record key that cannot be
 * a path segment (empty, dots, a lone surrogate): the post exists by then, so its answer must not
 * turn into an error.
 */
export function postWebUrl(handleOrDid: string, atUri: string): string | null {
  const profile = pathSegment(handleOrDid)
  const key = pathSegment(recordKey(atUri))
  return profile === null || key === null ? null : `https://bsky.app/profile/${profile}/post/${key}`
}
