import { postLive, RANKED_KEYWORDS_PATH } from '../../providers/dataforseo/client'
import { readIdeas, readRankings, readSerp, type KeywordIdeasResult, type RankedKeywordsResult, type SerpResult } from './dataforseo-transform'
import type { KeywordProvider } from './types'

/** DataForSEO Labs (keyword ideas, ranked keywords) and SERP API, Google US English. */
export const dataForSeoProvider: KeywordProvider = {
  id: 'dataforseo',
  label: 'DataForSEO (Labs and SERP APIs, Google US English)',
  setting: 'DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD',
  configured: (ctx) => !!ctx.env.DATAFORSEO_LOGIN?.trim() && !!ctx.env.DATAFORSEO_PASSWORD?.trim(),
  async ideas(ctx, seed, limit) {
    return readIdeas(await postLive<KeywordIdeasResult>(ctx, '/dataforseo_labs/google/keyword_ideas/live', { keywords: [seed], limit, order_by: ['keyword_info.search_volume,desc'] }))
  },
  async rankings(ctx, domain, limit) {
    return readRankings(await postLive<RankedKeywordsResult>(ctx, RANKED_KEYWORDS_PATH, { target: domain, limit, item_types: ['organic'] }))
  },
  async serp(ctx, keyword, depth) {
    return readSerp(keyword, await postLive<SerpResult>(ctx, '/serp/google/organic/live/advanced', { keyword, depth }))
  },
}
