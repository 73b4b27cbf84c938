/** Shared shapes of the SEO/AEO research result. */

export type PartStatus = 'ok' | 'unavailable' | 'error'

/** Provenance of one part of the result: what measured it, when, and how it went. */
export interface Provenance {
  status: PartStatus
  /** Engine or provider that produced the part ("perplexity", "dataforseo", "site_crawl", "templates", "model:gpt-5.4-nano" ...). */
  source: string
  /** ISO time the measurement finished, or null when nothing was measured. */
  measured_at: string | null
  note: string
}

/** A research depth. */
export type Depth = 'standard' | 'deep'

/** An optimization focus. */
export type Focus = 'seo_focused' | 'aeo_focused' | 'balanced'

/** ISO timestamp of now. */
export const nowIso = () => new Date().toISOString()

/** The message of any thrown value, trimmed for reports. */
export function errorText(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.slice(0, 300)
}
