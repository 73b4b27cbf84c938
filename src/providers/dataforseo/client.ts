import type { ActionContext } from '../../runtime/context'
import { basicAuthorization } from '../../lib/crypto'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { firstResult, SERVICE, type DfsEnvelope, type DomainRankedKeywords } from './transform'

const DATAFORSEO_BASE = 'https://api.dataforseo.com/v3'
export const RANKED_KEYWORDS_PATH = '/dataforseo_labs/google/ranked_keywords/live'
export const RANKED_KEYWORDS_URL = `${DATAFORSEO_BASE}${RANKED_KEYWORDS_PATH}`

/** The setting(s) DataForSEO lacks, or null when configured. */
export function dataForSeoMissing(env: ActionContext['env']): string | null {
  if (!env.DATAFORSEO_LOGIN) return 'DATAFORSEO_LOGIN'
  if (!env.DATAFORSEO_PASSWORD) return 'DATAFORSEO_PASSWORD'
  return null
}

/** Google, United States, English: the provider's most complete market. */
const MARKET = { location_code: 2840, language_code: 'en' }

/**
 * POSTs one task to a live endpoint (`path` under DATAFORSEO_BASE) and returns its first result, or
 * null when it has none; a refusal (credentials, HTTP status, the envelope's or task's status) is a
 * typed error naming DataForSEO.
 */
export async function postLive<R>(ctx: ActionContext, path: string, task: Record<string, unknown>): Promise<R | null> {
  const res = await ctx.fetch(`${DATAFORSEO_BASE}${path}`, {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 30_000,
    headers: { authorization: basicAuthorization(ctx.env.DATAFORSEO_LOGIN ?? '', ctx.env.DATAFORSEO_PASSWORD ?? ''), 'content-type': 'application/json' },
    body: JSON.stringify([{ ...MARKET, ...task }]),
  })
  if (res.status === 401) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', 'DataForSEO rejected DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  const { result, error } = firstResult(await readJson<DfsEnvelope<R>>(res, SERVICE))
  if (error) throw new UpstreamError(SERVICE, 'status', `${SERVICE}: ${error}`)
  return result
}

/** Keywords a domain ranks for in Google (US, English), highest traffic first: the task's result, or null. */
export async function rankedKeywordsFor(ctx: ActionContext, domain: string, limit = 25): Promise<DomainRankedKeywords | null> {
  const missing = dataForSeoMissing(ctx.env)
  if (missing) throw new NotConfiguredError(missing)
  return postLive<DomainRankedKeywords>(ctx, RANKED_KEYWORDS_PATH, { target: domain, limit, order_by: ['ranked_serp_element.serp_item.etv,desc'] })
}
