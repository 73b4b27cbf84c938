import type { ActionContext } from '../../runtime/context'
import { registrableDomain } from '../domain'
import type { SitePage } from '../site-pages'
import { errorText, nowIso, type Depth, type Provenance } from '../types'
import { candidateKeywords, intentFromWording } from './candidates'
import { dataForSeoProvider } from './dataforseo'
import type { KeywordProvider, SerpObservation } from './types'

export type { KeywordProvider, MeasuredKeyword, SerpObservation, SiteRanking } from './types'

/** Keyword/SERP providers in order of preference; the first configured one is used. */
export const KEYWORD_PROVIDERS: readonly KeywordProvider[] = [dataForSeoProvider]

/** One keyword opportunity. Metrics are null unless a provider measured them (`measured: true`). */
export interface KeywordOpportunity {
  keyword: string
  measured: boolean
  source: string
  search_volume: number | null
  keyword_difficulty: number | null
  cpc_usd: number | null
  intent: string | null
  /** "provider" when the provider classified it, "wording" for the phrase heuristic, null when unknown. */
  intent_source: 'provider' | 'wording' | null
  /** true/false from the provider's rankings of the site; null when not measured. */
  site_ranks: boolean | null
  site_position: number | null
  site_url: string | null
  /** Site pages whose title or headings use the phrase (from the crawl). */
  site_pages: string[]
  /** 0-100 from volume, difficulty and the site's position (formula in docs); null when unmeasured. */
  opportunity_score: number | null
}

export interface KeywordPart extends Provenance {
  measured: boolean
  keywords: KeywordOpportunity[]
  /** SERPs fetched for the top keywords (competitor evidence). */
  serps: SerpObservation[]
}

const LIMITS: Record<Depth, { keywords: number; serps: number }> = { standard: { keywords: 20, serps: 3 }, deep: { keywords: 50, serps: 8 } }
const RANKINGS_LIMIT = 1000

/** Opportunity: demand (log volume) discounted by difficulty and by how well the site already ranks. */
export function opportunityScore(volume: number | null, difficulty: number | null, position: number | null): number | null {
  if (volume === null) return null
  const demand = Math.min(1, Math.log10(Math.max(0, volume) + 1) / 5)
  const ease = difficulty === null ? 0.5 : 1 - Math.min(100, Math.max(0, difficulty)) / 100
  const headroom = position === null ? 1 : position <= 3 ? 0.2 : position <= 10 ? 0.6 : 0.9
  return Math.round(100 * demand * (0.4 + 0.6 * ease) * headroom)
}

const pagesUsing = (pages: SitePage[], keyword: string) =>
  pages
    .filter((p) => [p.title ?? '', p.h1 ?? '', ...p.headings].some((h) => h.toLowerCase().includes(keyword.toLowerCase())))
    .map((p) => p.url)
    .slice(0, 5)

/**
 * Keyword opportunities: measured by the first configured provider (ideas for the topic, the site's
 * own rankings, SERPs of the top keywords), else unmeasured candidates from the topic and the site's pages.
 */
export async function keywordOpportunities(ctx: ActionContext, topic: string, websiteUrl: string, pages: SitePage[], depth: Depth): Promise<KeywordPart> {
  const limits = LIMITS[depth]
  const provider = KEYWORD_PROVIDERS.find((p) => p.configured(ctx))
  const candidates = (note: string, status: KeywordPart['status']): KeywordPart => ({
    status,
    source: pages.length ? 'topic_and_site_crawl' : 'topic',
    measured_at: nowIso(),
    note,
    measured: false,
    serps: [],
    keywords: candidateKeywords(topic, pages, limits.keywords).map((c) => {
      const intent = intentFromWording(c.keyword)
      return {
        keyword: c.keyword,
        measured: false,
        source: c.source,
        search_volume: null,
        keyword_difficulty: null,
        cpc_usd: null,
        intent,
        intent_source: intent ? 'wording' : null,
        site_ranks: null,
        site_position: null,
        site_url: null,
        site_pages: c.site_pages,
        opportunity_score: null,
      }
    }),
  })
  const unmeasured = "the keywords below are unmeasured candidates from the topic and the site's own titles and headings: no volumes, difficulty, CPC or rankings"
  if (!provider) {
    return candidates(`No keyword data provider configured (set ${KEYWORD_PROVIDERS.map((p) => p.setting).join(', or ')}); ${unmeasured}`, 'unavailable')
  }
  try {
    const domain = registrableDomain(websiteUrl) ?? new URL(websiteUrl).hostname
    const [ideas, rankings] = await Promise.all([provider.ideas(ctx, topic, limits.keywords), provider.rankings(ctx, domain, RANKINGS_LIMIT)])
    const rankBy = new Map(rankings.map((r) => [r.keyword.toLowerCase(), r]))
    const keywords: KeywordOpportunity[] = ideas.map((k) => {
      const r = rankBy.get(k.keyword.toLowerCase())
      return {
        keyword: k.keyword,
        measured: true,
        source: provider.id,
        search_volume: k.search_volume,
        keyword_difficulty: k.keyword_difficulty,
        cpc_usd: k.cpc_usd,
        intent: k.intent,
        intent_source: k.intent ? 'provider' : null,
        site_ranks: !!r,
        site_position: r?.position ?? null,
        site_url: r?.url ?? null,
        site_pages: pagesUsing(pages, k.keyword),
        opportunity_score: opportunityScore(k.search_volume, k.keyword_difficulty, r?.position ?? null),
      }
    })
    keywords.sort((a, b) => (b.opportunity_score ?? -1) - (a.opportunity_score ?? -1))
    const serps: SerpObservation[] = []
    const serpErrors: string[] = []
    const bySerp = [...keywords].sort((a, b) => (b.search_volume ?? 0) - (a.search_volume ?? 0)).slice(0, limits.serps)
    await Promise.all(
      bySerp.map(async (k) => {
        try {
          serps.push(await provider.serp(ctx, k.keyword, 20))
        } catch (err) {
          serpErrors.push(`${k.keyword}: ${errorText(err)}`)
        }
      }),
    )
    if (keywords.length === 0) {
      return { ...candidates(`${provider.label} returned no keyword ideas for "${topic}"; ${unmeasured}`, 'ok'), source: provider.id }
    }
    return {
      status: 'ok',
      source: provider.id,
      measured_at: nowIso(),
      note: `${keywords.length} keyword ideas measured by ${provider.label}; "site_ranks" checks ${domain} against its top ${RANKINGS_LIMIT} ranked keywords (${rankings.length} found); ${serps.length} SERPs fetched${serpErrors.length ? `, ${serpErrors.length} failed (${serpErrors.join('; ')})` : ''}`,
      measured: true,
      keywords,
      serps,
    }
  } catch (err) {
    return { ...candidates(`${provider.label} failed (${errorText(err)}); ${unmeasured}`, 'error'), source: provider.id }
  }
}
