/** DataForSEO v3 results (Labs keyword ideas and ranked keywords, SERP organic) and their readers; the envelope is providers/dataforseo's. */
import { record, objectsOf, text, type Fields } from '../../providers/shape'
import { SERVICE } from '../../providers/dataforseo/transform'
import type { MeasuredKeyword, SerpObservation, SiteRanking } from './types'

export interface DfsKeywordData {
  keyword: string
  keyword_info?: { search_volume?: number | null; cpc?: number | null; competition?: number | null; competition_level?: string | null } | null
  keyword_properties?: { keyword_difficulty?: number | null } | null
  search_intent_info?: { main_intent?: string | null } | null
}

export type KeywordIdeasResult = { seed_keywords?: string[]; total_count?: number; items?: DfsKeywordData[] | null }
export type RankedKeywordsResult = {
  target?: string
  items?: { keyword_data: DfsKeywordData; ranked_serp_element?: { serp_item?: { type?: string; rank_group?: number | null; url?: string | null } } }[] | null
}
export type SerpResult = { keyword?: string; items?: { type: string; rank_group?: number; rank_absolute?: number; domain?: string; url?: string; title?: string | null }[] | null }

/** A metric DataForSEO reports (volume, difficulty, cost, competition, position): a finite number, never below 0. */
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null)

/** Metrics of one keyword item (its keyword already read as text). */
function measured(keyword: string, k: Fields): MeasuredKeyword {
  const info = record(k.keyword_info)
  return {
    keyword,
    search_volume: num(info.search_volume),
    keyword_difficulty: num(record(k.keyword_properties).keyword_difficulty),
    cpc_usd: num(info.cpc),
    competition: num(info.competition),
    intent: text(record(k.search_intent_info).main_intent),
  }
}

/** Keyword ideas with metrics; items without a keyword are skipped. */
export function readIdeas(result: KeywordIdeasResult | null): MeasuredKeyword[] {
  return objectsOf(record(result).items, SERVICE, 'keyword ideas items').flatMap((i) => {
    const keyword = text(i.keyword)
    return keyword ? [measured(keyword, i)] : []
  })
}

/** Organic rankings of a domain; items without a keyword are skipped. */
export function readRankings(result: RankedKeywordsResult | null): SiteRanking[] {
  return objectsOf(record(result).items, SERVICE, 'ranked keywords items').flatMap((i) => {
    const keyword = text(record(i.keyword_data).keyword)
    const serp = record(record(i.ranked_serp_element).serp_item)
    if (!keyword || (serp.type ?? 'organic') !== 'organic') return []
    return [{ keyword, position: num(serp.rank_group), url: text(serp.url) }]
  })
}

/** Organic results of a SERP. */
export function readSerp(keyword: string, result: SerpResult | null): SerpObservation {
  const results = objectsOf(record(result).items, SERVICE, 'SERP items')
    .filter((i) => i.type === 'organic' && typeof i.url === 'string')
    .map((i) => ({ position: num(i.rank_group) ?? num(i.rank_absolute) ?? 0, url: i.url as string, title: text(i.title) }))
  return { keyword, results }
}
