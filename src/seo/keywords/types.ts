import type { ActionContext } from '../../runtime/context'

/** Keyword metrics as a data provider measured them (null where it gave none). */
export interface MeasuredKeyword {
  keyword: string
  search_volume: number | null
  keyword_difficulty: number | null
  cpc_usd: number | null
  competition: number | null
  intent: string | null
}

/** Where the site ranks for a keyword. */
export interface SiteRanking {
  keyword: string
  position: number | null
  url: string | null
}

/** The organic results of one search. */
export interface SerpObservation {
  keyword: string
  results: { position: number; url: string; title: string | null }[]
}

/** A keyword/SERP data provider. Add one by implementing this and listing it in `keywords/index.ts`. */
export interface KeywordProvider {
  id: string
  label: string
  /** Settings that enable it, named in `unavailable` notes. */
  setting: string
  configured(ctx: ActionContext): boolean
  /** Keyword ideas for a seed phrase with their metrics. */
  ideas(ctx: ActionContext, seed: string, limit: number): Promise<MeasuredKeyword[]>
  /** Keywords the domain ranks for (organic), with position and URL. */
  rankings(ctx: ActionContext, domain: string, limit: number): Promise<SiteRanking[]>
  /** Organic results of one search. */
  serp(ctx: ActionContext, keyword: string, depth: number): Promise<SerpObservation>
}
