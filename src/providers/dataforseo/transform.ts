/** DataForSEO v3 answers: the envelope every live endpoint shares, and the Labs ranked keywords of a domain. */
import { finite, listOf, objectOf, record, objectsOf, text } from '../shape'

export const SERVICE = 'DataForSEO'
/** The envelope of every DataForSEO v3 live answer: one task per request, its results inside. */
export interface DfsEnvelope<R> {
  status_code: number
  status_message: string
  tasks?: { status_code: number; status_message: string; result?: R[] | null }[]
}

/** The result of a Labs `ranked_keywords/live` task for a domain (v3). */
export interface DomainRankedKeywords {
  target: string
  total_count?: number
  metrics?: { organic?: { count?: number; etv?: number }; paid?: { count?: number; etv?: number } }
  items?: {
    keyword_data: { keyword: string; keyword_info?: { search_volume?: number | null; cpc?: number | null; competition?: number | null; competition_level?: string | null } }
    ranked_serp_element: { serp_item: { type: string; rank_group?: number; rank_absolute?: number; url?: string; etv?: number | null } }
  }[]
}

export interface RankedKeyword {
  keyword: string
  search_volume: number | null
  cpc_usd: number | null
  competition: number | null
  competition_level: string | null
  type: 'organic' | 'paid' | string
  position: number | null
  url: string | null
  estimated_traffic: number | null
}

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

/** Keywords a domain ranks for (a task's result; null when it has none), with volume, CPC and position, plus totals; items without a keyword or result type are skipped. */
export function rankedKeywords(answer: DomainRankedKeywords | null): {
  total: number | null
  organic_count: number | null
  paid_count: number | null
  organic_etv: number | null
  keywords: RankedKeyword[]
} {
  // The declared type is what DataForSEO documents; the reads below hold for any JSON it sends.
  const result = record(answer)
  const metrics = record(result.metrics)
  const keywords: RankedKeyword[] = []
  for (const i of objectsOf(result.items, SERVICE, 'result items')) {
    const data = record(i.keyword_data)
    const serp = record(record(i.ranked_serp_element).serp_item)
    const keyword = text(data.keyword)
    const type = text(serp.type)
    if (keyword === null || type === null) continue
    const info = record(data.keyword_info)
    keywords.push({
      keyword,
      search_volume: finite(info.search_volume),
      cpc_usd: finite(info.cpc),
      competition: finite(info.competition),
      competition_level: text(info.competition_level),
      type,
      position: finite(serp.rank_group),
      url: text(serp.url),
      estimated_traffic: finite(serp.etv),
    })
  }
  return {
    total: finite(result.total_count),
    organic_count: finite(record(metrics.organic).count),
    paid_count: finite(record(metrics.paid).count),
    organic_etv: finite(record(metrics.organic).etv),
    keywords,
  }
}
