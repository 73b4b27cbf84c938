import { clearableTimeout } from '../../lib/timers'
import { errorFields, type Logger } from '../../runtime/log'
import { UpstreamError, safeUrlText } from '../errors'
import { credentialValues, dropCredentials } from './credentials'
import { assertPublicDestination, describeFetchError, type DnsCheck } from './dns'
import { retryAfterSeconds } from './retry-after'
import { JsonTooDeepError, MAX_JSON_DEPTH, parseJson, shortPointer } from '../../lib/json-depth'

/** Options of one guarded outbound call. */
export interface GuardedRequestInit extends Omit<RequestInit, 'redirect' | 'signal'> {
  /** Name of the upstream for error messages, e.g. "HubSpot". Default: the host name. */
  service?: string
  /** Per-attempt timeout. Default 15 s. */
  timeoutMs?: number
  /** Largest response body accepted; reading past it fails with `too_large`. Default 5 MiB. */
  maxBytes?: number
  /** Redirect hops followed, each re-checked. Default 5; 0 returns the 3xx response itself. */
  maxRedirects?: number
  /** Retries on 429/5xx and network errors, for GET/HEAD or when `idempotent` is set. Default 2. */
  retries?: number
  idempotent?: boolean
  /** Longest Retry-After honoured before giving up. Default 10 s. */
  maxRetryAfterMs?: number
  signal?: AbortSignal
}

/** A guarded fetch: same shape as fetch, with the checks of `createGuardedFetch`. */
export type GuardedFetch = (url: string | URL, init?: GuardedRequestInit) => Promise<Response>

export interface GuardedFetchOptions {
  userAgent: string
  allowPrivate: boolean
  /** How host names are checked before every hop; default: resolved through DoH (`DEFAULT_DNS_CHECK`). */
  dns?: DnsCheck
  /** Where a failed request's raw error and stack go (the caller's message names the failure instead). */
  log?: Logger
  /** The underlying fetch; tests and the proxy setting swap it. */
  fetcher?: typeof fetch
  /** Sleep used between retries (tests shorten it). */
  sleep?: (ms: number) => Promise<void>
  /** Ends every call when it aborts (the run's deadline), besides a call's own signal; the call rejects with its reason. */
  signal?: AbortSignal
  /**
   * Learns the credentials each request carries (see credentials.ts) before it is sent: a run's
   * secrets, so an upstream that echoes its key or token has it scrubbed from every record.
   */
  secrets?: { add(value: unknown): void }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

function retryAfterMs(res: Response): number | null {
  const seconds = retryAfterSeconds(res.headers.get('retry-after'))
  return seconds === undefined ? null : seconds * 1000
}

/**
 * Wraps a body so reading more than `max` bytes fails instead of filling memory, and so a body that
 * breaks off (connection reset, truncated stream) fails as an UpstreamError however it is read
 * (`.text()`, `.json()`, a reader), never as a bare runtime error. `done` runs once the body has
 * ended, failed or been cancelled (or at once when there is none): the attempt's timer ends there.
 */
function capBody(res: Response, max: number, service: string, done: () => void): Response {
  if (!res.body) {
    done()
    return res
  }
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > max) {
    done()
    res.body.cancel().catch(() => undefined)
    throw new UpstreamError(service, 'too_large', `${service} answered with ${declared} bytes, over the limit of ${max}`)
  }
  const reader = res.body.getReader()
  let seen = 0
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (err) {
        done()
        controller.error(new UpstreamError(service, 'network', `${service} response was cut off: ${(err as Error)?.message ?? err}`))
        return
      }
      if (chunk.done) {
        done()
        return controller.close()
      }
      seen += chunk.value.byteLength
      if (seen > max) {
        done()
        reader.cancel().catch(() => undefined)
        controller.error(new UpstreamError(service, 'too_large', `${service} sent more than ${max} bytes`))
        return
      }
      controller.enqueue(chunk.value)
    },
    cancel(reason) {
      done()
      return reader.cancel(reason)
    },
  })
  return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers })
}

/**
 * The one way actions reach the network: SSRF checks on every hop, per-attempt timeout, size cap,
 * redirect limit, a User-Agent naming the service, and retries only where repeating is safe.
 * @example const res = await ctx.fetch('https://example.com/robots.txt', { service: 'website', timeoutMs: 5000 })
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const fetcher = options.fetcher ?? fetch
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))

  return async function guardedFetch(input, init = {}) {
    const { service: serviceName, timeoutMs = 15_000, maxBytes = 5 * 1024 * 1024, maxRedirects = 5, retries = 2, idempotent, maxRetryAfterMs = 10_000, signal: callSignal, ...rest } = init
    const signal = callSignal && options.signal ? AbortSignal.any([callSignal, options.signal]) : (callSignal ?? options.signal)
    signal?.throwIfAborted()
    const check = { allowPrivate: options.allowPrivate, dns: options.dns, fetcher }
    let url = await assertPublicDestination(input, check)
    const service = serviceName ?? url.hostname
    const method = (rest.method ?? 'GET').toUpperCase()
    const canRetry = idempotent ?? (method === 'GET' || method === 'HEAD')
    const headers = new Headers(rest.headers)
    if (!headers.has('user-agent')) headers.set('user-agent', options.userAgent)
    if (options.secrets) for (const value of credentialValues(headers)) options.secrets.add(value)

    let attempt = 0
    let hops = 0
    let body = rest.body
    let currentMethod = method
    for (;;) {
      signal?.throwIfAborted()
      // The attempt's timer covers its body too, and ends with it (clearableTimeout says why it must).
      const timeout = clearableTimeout(timeoutMs)
      const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal
      let res: Response
      try {
        res = await fetcher(url.toString(), { ...rest, method: currentMethod, body, headers, redirect: 'manual', signal: combined })
      } catch (err) {
        timeout.clear()
        if (signal?.aborted) throw signal.reason ?? err
        const timedOut = timeout.signal.aborted
        if (canRetry && attempt < retries) {
          attempt++
          await sleep(250 * 2 ** attempt)
          continue
        }
        const where = service === url.hostname ? service : `${service} (${url.hostname})`
        options.log?.warn('outbound request failed', { service, host: url.hostname, timed_out: timedOut, ...errorFields(err) })
        throw new UpstreamError(service, timedOut ? 'timeout' : 'network', timedOut ? `${where} timed out after ${timeoutMs} ms` : `Could not reach ${where}: ${describeFetchError(err)}`)
      }

      if (REDIRECT_STATUSES.has(res.status) && maxRedirects > 0) {
        const location = res.headers.get('location')
        if (!location) return capBody(res, maxBytes, service, timeout.clear)
        timeout.clear()
        res.body?.cancel().catch(() => undefined)
        if (++hops > maxRedirects) throw new UpstreamError(service, 'redirects', `${service} redirected more than ${maxRedirects} times`)
        let next: URL
        try {
          next = new URL(location, url)
        } catch {
          throw new UpstreamError(service, 'invalid', `${service} redirected to an invalid URL (${JSON.stringify(location.slice(0, 100))})`)
        }
        const from = url.origin
        url = await assertPublicDestination(next, check)
        if (url.origin !== from) dropCredentials(headers)
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && currentMethod === 'POST')) {
          currentMethod = 'GET'
          body = undefined
          headers.delete('content-type')
        }
        continue
      }

      if ((res.status === 429 || res.status >= 500) && canRetry && attempt < retries) {
        const wait = retryAfterMs(res) ?? 250 * 2 ** (attempt + 1)
        if (wait <= maxRetryAfterMs) {
          timeout.clear()
          res.body?.cancel().catch(() => undefined)
          attempt++
          await sleep(wait)
          continue
        }
      }
      return capBody(res, maxBytes, service, timeout.clear)
    }
  }
}

/** Reads a response body as text, mapping a body that breaks off into an UpstreamError. */
export async function readText(res: Response, service: string): Promise<string> {
  try {
    return await res.text()
  } catch (err) {
    if (err instanceof UpstreamError) throw err
    throw new UpstreamError(service, 'network', `${service} response was cut off: ${(err as Error).message}`)
  }
}

/** Reads a JSON response body; garbage becomes an UpstreamError of kind `invalid`. */
export async function readJson<T = unknown>(res: Response, service: string): Promise<T> {
  const text = await readText(res, service)
  try {
    return parseJson(text) as T
  } catch (err) {
    const why = err instanceof JsonTooDeepError ? `JSON nested deeper than ${MAX_JSON_DEPTH} levels (at ${shortPointer(err.path)})` : 'a body that is not JSON'
    throw new UpstreamError(service, 'invalid', `${service} answered with ${why} (status ${res.status})`)
  }
}

export { safeUrlText }
