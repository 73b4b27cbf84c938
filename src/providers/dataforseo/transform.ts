/** DataForSEO Labs `ranked_keywords/live` response (v3) and its reader. */
import { finite, listOf, objectOf, record, objectsOf, text } from '../shape'

export const SERVICE = 'DataForSEO'
export interface RankedKeywordsResponse {
  status_code: number
  status_message: string
  tasks?: {
    status_code: number
    status_message: string
    result?:
      | {
          target: string
          total_count?: number
          metrics?: { organic?: { count?: number; etv?: number }; paid?: { count?: number; etv?: number } }
          items?: {
            keyword_data: { keyword: string; keyword_info?: { search_volume?: number | null; cpc?: number | null; competition?: number | null; competition_level?: string | null } }
            ranked_serp_element: { serp_item: { type: string; rank_group?: number; rank_absolute?: number; url?: string; etv?: number | null } }
          }[]
        }[]
      | null
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

/** The first task of an answer and its status, for the client's status check; another shape is the shape error. */
export function firstTask(answer: unknown): { status_code: unknown; status_message: string | null; task: Record<string, unknown> | null } {
  const body = objectOf(answer, SERVICE)
  const task = listOf(body.tasks, SERVICE, 'tasks')[0]
  return { status_code: body.status_code, status_message: text(body.status_message), task: task === undefined || task === null ? null : objectOf(task, SERVICE, 'tasks[0]') }
}

/** Keywords a domain ranks for, with volume, CPC and position, plus totals; items without a keyword or result type are skipped. */
export function rankedKeywords(answer: RankedKeywordsResponse): {
  total: number | null
  organic_count: number | null
  paid_count: number | null
  organic_etv: number | null
  keywords: RankedKeyword[]
} {
  // The declared type is what DataForSEO documents; the reads below hold for any JSON it sends.
  const task = firstTask(answer).task
  const result = record(listOf(task?.result, SERVICE, 'tasks[0].result')[0])
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
