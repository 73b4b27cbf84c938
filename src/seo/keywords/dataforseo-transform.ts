/** DataForSEO v3 response shapes (Labs keyword ideas and ranked keywords, SERP organic) and their readers. */
import type { MeasuredKeyword, SerpObservation, SiteRanking } from './types'

/** The common envelope: one task per live request. */
export interface DfsEnvelope<R> {
  status_code: number
  status_message: string
  tasks?: { status_code: number; status_message: string; result?: R[] | null }[]
}

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

/** The first task's first result, or an error message (status codes other than 20000; 40102 "no results" is empty). */
export function firstResult<R>(body: DfsEnvelope<R>): { result: R | null; error: string | null } {
  if (body.status_code !== 20000) return { result: null, error: body.status_message || `status ${body.status_code}` }
  const task = body.tasks?.[0]
  if (!task) return { result: null, error: 'no task in the answer' }
  if (task.status_code === 40102) return { result: null, error: null }
  if (task.status_code !== 20000) return { result: null, error: task.status_message || `task status ${task.status_code}` }
  return { result: task.result?.[0] ?? null, error: null }
}

/** A metric DataForSEO reports (volume, difficulty, cost, competition, position): a finite number, never below 0. */
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null)

/** Metrics of one keyword item. */
export function measured(k: DfsKeywordData): MeasuredKeyword {
  return {
    keyword: k.keyword,
    search_volume: num(k.keyword_info?.search_volume),
    keyword_difficulty: num(k.keyword_properties?.keyword_difficulty),
    cpc_usd: num(k.keyword_info?.cpc),
    competition: num(k.keyword_info?.competition),
    intent: k.search_intent_info?.main_intent ?? null,
  }
}

/** Keyword ideas with metrics. */
export function readIdeas(result: KeywordIdeasResult | null): MeasuredKeyword[] {
  return (result?.items ?? []).filter((i) => i?.keyword).map(measured)
}

/** Organic rankings of a domain. */
export function readRankings(result: RankedKeywordsResult | null): SiteRanking[] {
  return (result?.items ?? [])
    .filter((i) => i?.keyword_data?.keyword && (i.ranked_serp_element?.serp_item?.type ?? 'organic') === 'organic')
    .map((i) => ({ keyword: i.keyword_data.keyword, position: num(i.ranked_serp_element?.serp_item?.rank_group), url: i.ranked_serp_element?.serp_item?.url ?? null }))
}

/** Organic results of a SERP. */
export function readSerp(keyword: string, result: SerpResult | null): SerpObservation {
  const results = (result?.items ?? [])
    .filter((i) => i.type === 'organic' && typeof i.url === 'string')
    .map((i) => ({ position: i.rank_group ?? i.rank_absolute ?? 0, url: i.url!, title: i.title ?? null }))
  return { keyword, results }
}
