import { basicAuthorization } from '../../lib/crypto'
import { ProviderError, UpstreamError } from '../../providers/errors'
import { readJson } from '../../providers/web/fetch'
import type { ActionContext } from '../../runtime/context'
import { firstResult, readIdeas, readRankings, readSerp, type DfsEnvelope, type KeywordIdeasResult, type RankedKeywordsResult, type SerpResult } from './dataforseo-transform'
import type { KeywordProvider } from './types'

const SERVICE = 'DataForSEO'
export const DATAFORSEO_BASE = 'https://api.dataforseo.com/v3'
/** Google, United States, English: the provider's most complete market. */
const MARKET = { location_code: 2840, language_code: 'en' }

async function post<R>(ctx: ActionContext, path: string, task: Record<string, unknown>): Promise<R | null> {
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

/** DataForSEO Labs (keyword ideas, ranked keywords) and SERP API, Google US English. */
export const dataForSeoProvider: KeywordProvider = {
  id: 'dataforseo',
  label: 'DataForSEO (Labs and SERP APIs, Google US English)',
  setting: 'DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD',
  configured: (ctx) => !!ctx.env.DATAFORSEO_LOGIN?.trim() && !!ctx.env.DATAFORSEO_PASSWORD?.trim(),
  async ideas(ctx, seed, limit) {
    return readIdeas(await post<KeywordIdeasResult>(ctx, '/dataforseo_labs/google/keyword_ideas/live', { keywords: [seed], limit, order_by: ['keyword_info.search_volume,desc'] }))
  },
  async rankings(ctx, domain, limit) {
    return readRankings(await post<RankedKeywordsResult>(ctx, '/dataforseo_labs/google/ranked_keywords/live', { target: domain, limit, item_types: ['organic'] }))
  },
  async serp(ctx, keyword, depth) {
    return readSerp(keyword, await post<SerpResult>(ctx, '/serp/google/organic/live/advanced', { keyword, depth }))
  },
}
