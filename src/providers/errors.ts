/** A URL the service refuses to fetch (private address, bad scheme, credentials ...). */
export class UnsafeUrlError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    /** The request field that held the URL, when it came from the caller. */
    readonly field?: string,
  ) {
    super(`Refusing to fetch ${safeUrlText(url)}: ${reason}`)
    this.name = 'UnsafeUrlError'
  }
}

export type UpstreamFailure = 'timeout' | 'network' | 'too_large' | 'redirects' | 'status' | 'invalid' | 'rate_limited'

/** An outbound call that failed; `service` names the upstream in messages ("HubSpot", "YouTube"). */
export class UpstreamError extends Error {
  constructor(
    readonly service: string,
    readonly kind: UpstreamFailure,
    message: string,
    readonly status?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
    this.name = 'UpstreamError'
  }
}

/** A URL with any userinfo removed, for messages and logs. */
export function safeUrlText(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    return u.toString()
  } catch {
    return JSON.stringify(url.slice(0, 200))
  }
}

/** A provider that needs a setting (API key, binding) which is not there. */
export class NotConfiguredError extends Error {
  constructor(
    readonly setting: string,
    message?: string,
  ) {
    super(message ?? `Not configured: set ${setting}`)
    this.name = 'NotConfiguredError'
  }
}

export type ProviderFailure = 'invalid_input' | 'unauthorized' | 'forbidden' | 'not_found' | 'not_connected' | 'conflict' | 'unprocessable' | 'rate_limited'

/**
 * An expected failure a provider reports in its own words ("Contact not found with email ...").
 * `field` names the request field at fault, when there is one.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailure,
    message: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
