import type { ActionContext } from '../../runtime/context'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readText } from '../web/fetch'
import { encodeUriText } from '../../lib/text'

const SERVICE = 'Cloudflare Browser Rendering'

/** The setting the screenshot lacks, or null when configured. */
export function screenshotMissing(env: ActionContext['env']): string | null {
  if (!env.CF_ACCOUNT_ID) return 'CF_ACCOUNT_ID'
  if (!env.CF_BROWSER_RENDERING_TOKEN) return 'CF_BROWSER_RENDERING_TOKEN'
  return null
}

/** The Browser Rendering REST endpoint of an account. */
export const screenshotEndpoint = (accountId: string) => `https://api.cloudflare.com/client/v4/accounts/${encodeUriText(accountId)}/browser-rendering/screenshot`

/** A 1280x800 PNG of a page through the Browser Rendering REST API. */
export async function takeScreenshot(ctx: ActionContext, pageUrl: string): Promise<Uint8Array> {
  const missing = screenshotMissing(ctx.env)
  if (missing) throw new NotConfiguredError(missing)
  const res = await ctx.fetch(screenshotEndpoint(ctx.env.CF_ACCOUNT_ID!), {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 45_000,
    maxBytes: 10 * 1024 * 1024,
    headers: { authorization: `Bearer ${ctx.env.CF_BROWSER_RENDERING_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: pageUrl, viewport: { width: 1280, height: 800 }, screenshotOptions: { type: 'png' }, gotoOptions: { waitUntil: 'networkidle2', timeout: 30_000 } }),
  })
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', 'Cloudflare rejected CF_BROWSER_RENDERING_TOKEN (it needs the Browser Rendering - Edit permission)')
  }
  if (!res.ok) {
    const text = await readText(res, SERVICE)
    throw new UpstreamError(SERVICE, 'status', `${SERVICE} answered ${res.status}: ${text.slice(0, 160)}`, res.status)
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim()
  if (!type.startsWith('image/')) {
    // A success that is no picture is a wrong answer (the same on every try), not a failed status.
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, 'invalid', `${SERVICE} answered with ${type ? type.slice(0, 80) : 'no content type'}, not an image`)
  }
  return new Uint8Array(await res.arrayBuffer())
}
