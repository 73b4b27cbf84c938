import type { ActionContext } from '../runtime/context'

/** The sixteen report sections, in the spec's order. */
export const SECTION_NAMES = [
  'company_overview',
  'visual_timeline',
  'product_summary',
  'homepage_screenshot',
  'technology_stack',
  'detected_technologies',
  'search_keywords',
  'financials',
  'funding_history',
  'web_traffic',
  'news',
  'people',
  'competitors',
  'job_openings',
  'contact',
  'reviews',
] as const

export type SectionName = (typeof SECTION_NAMES)[number]

export type SectionStatus = 'ok' | 'unavailable' | 'error'

/** One section of a report: its data with where and when it came from. */
export interface SectionResult<T = unknown> {
  status: SectionStatus
  data: T | null
  /** URLs the data was read from. */
  sources: string[]
  /** ISO time the data was fetched. */
  fetched_at: string
  duration_ms: number
  /** Why a section is unavailable or failed, or a caveat about the data. */
  note: string | null
  /** True when this result came from the cache. */
  cached?: boolean
}

/** What a section computes: the result without timing, which the runner adds. */
export interface SectionOutcome<T = unknown> {
  status: SectionStatus
  data: T | null
  sources: string[]
  note?: string | null
  /** Whether the outcome may be cached (no-data answers are, transient failures are not). */
  cacheable?: boolean
}

/** The shared, lazily loaded inputs of one research run (homepage, pages, Wikidata ...). */
export interface ResearchInputs {
  domain: string
  ctx: ActionContext
  /** Loads a value once per run, by key. */
  once<T>(key: string, load: () => Promise<T>): Promise<T>
  /** Results of other sections that ran before this one (for sections that compose). */
  results: Partial<Record<SectionName, SectionResult>>
}

/** One section's provider. */
export interface SectionProvider {
  name: SectionName
  /** Seconds a fresh result stays in the cache. */
  ttlSeconds: number
  /** Sections whose results this one reads; it runs after them. */
  after?: SectionName[]
  /** The settings this section needs but lacks, or null when it can run. No I/O except the model check. */
  missing?(ctx: ActionContext): Promise<string | null> | string | null
  run(inputs: ResearchInputs): Promise<SectionOutcome>
}

/** An `ok` outcome. */
export const ok = <T>(data: T, sources: string[], note: string | null = null): SectionOutcome<T> => ({ status: 'ok', data, sources: [...new Set(sources)], note, cacheable: true })

/** An `unavailable` outcome saying why; `cacheable` when the reason is "no data" rather than a missing setting. */
export const unavailable = (note: string, sources: string[] = [], cacheable = true): SectionOutcome => ({ status: 'unavailable', data: null, sources, note, cacheable })
