/** DataForSEO v3 response shapes (Labs keyword ideas and ranked keywords, SERP organic) and their readers. */
import { listOf, objectOf, record, objectsOf, text, type Fields } from '../../providers/shape'
import type { MeasuredKeyword, SerpObservation, SiteRanking } from './types'

const SERVICE = 'DataForSEO'

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
export function firstResult<R>(answer: DfsEnvelope<R>): { result: R | null; error: string | null } {
  // The declared type is what DataForSEO documents; the reads below hold for any JSON it sends.
  const body = objectOf(answer, SERVICE)
  if (body.status_code !== 20000) return { result: null, error: text(body.status_message) || `status ${String(body.status_code).slice(0, 20)}` }
  const first = listOf(body.tasks, SERVICE, 'tasks')[0]
  if (first === undefined || first === null) return { result: null, error: 'no task in the answer' }
  const task = objectOf(first, SERVICE, 'tasks[0]')
  if (task.status_code === 40102) return { result: null, error: null }
  if (task.status_code !== 20000) return { result: null, error: text(task.status_message) || `task status ${String(task.status_code).slice(0, 20)}` }
  const result = listOf(task.result, SERVICE, 'tasks[0].result')[0]
  return { result: result === undefined || result === null ? null : (objectOf(result, SERVICE, 'tasks[0].result[0]') as R), error: null }
}

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
