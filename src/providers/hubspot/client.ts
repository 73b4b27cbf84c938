import type { GuardedFetch } from '../web/fetch'
import { readJson, readText } from '../web/fetch'
import { retryAfterSeconds } from '../web/retry-after'
import { errorBodyOf, mapHubSpotError, requestUrl, SERVICE, type CallContext, type HubSpotRequest } from './transform'

/**
 * Plain-fetch HubSpot client over the guarded fetch (which retries 429/5xx of idempotent calls,
 * honouring Retry-After). Failed answers become typed errors in the original's vocabulary.
 */
export class HubSpotClient {
  constructor(
    private readonly fetch: GuardedFetch,
    readonly base: string,
    private readonly token: string,
  ) {}

  /** Sends one request; the parsed JSON body on 2xx (null for an empty body). */
  async send(req: HubSpotRequest, ctx: CallContext): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' }
    if (req.body !== undefined) headers['content-type'] = 'application/json'
    const res = await this.fetch(requestUrl(this.base, req), {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      service: SERVICE,
      idempotent: req.idempotent,
      maxRedirects: 0,
    })
    if (res.ok) {
      if (res.status === 204) return null
      const text = await readText(res, SERVICE)
      if (text.trim() === '') return null
      return readJson(new Response(text, { status: res.status }), SERVICE)
    }
    throw mapHubSpotError(res.status, errorBodyOf(await readText(res, SERVICE)), ctx, retryAfterSeconds(res.headers.get('retry-after')))
  }
}
