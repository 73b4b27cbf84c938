/** DataForSEO Labs `ranked_keywords/live` response (v3) and its reader. */
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

/** Keywords a domain ranks for, with volume, CPC and position, plus totals. */
export function rankedKeywords(body: RankedKeywordsResponse): { total: number | null; organic_count: number | null; paid_count: number | null; organic_etv: number | null; keywords: RankedKeyword[] } {
  const result = body.tasks?.[0]?.result?.[0]
  return {
    total: result?.total_count ?? null,
    organic_count: result?.metrics?.organic?.count ?? null,
    paid_count: result?.metrics?.paid?.count ?? null,
    organic_etv: result?.metrics?.organic?.etv ?? null,
    keywords: (result?.items ?? []).map((i) => ({
      keyword: i.keyword_data.keyword,
      search_volume: i.keyword_data.keyword_info?.search_volume ?? null,
      cpc_usd: i.keyword_data.keyword_info?.cpc ?? null,
      competition: i.keyword_data.keyword_info?.competition ?? null,
      competition_level: i.keyword_data.keyword_info?.competition_level ?? null,
      type: i.ranked_serp_element.serp_item.type,
      position: i.ranked_serp_element.serp_item.rank_group ?? null,
      url: i.ranked_serp_element.serp_item.url ?? null,
      estimated_traffic: i.ranked_serp_element.serp_item.etv ?? null,
    })),
  }
}
