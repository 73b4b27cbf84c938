import type { CitationPart } from './citations'
import { registrableDomain } from './domain'
import type { KeywordPart } from './keywords'
import { nowIso, type Provenance } from './types'

/** One competing domain and the evidence for it. */
export interface Competitor {
  domain: string
  /** Answers (question × engine) citing it. */
  citations: number
  /** Organic results (in the fetched SERPs) it holds. */
  serp_appearances: number
  score: number
  engines: string[]
  questions: string[]
  keywords: string[]
  examples: { url: string; via: string }[]
}

export interface CompetitorPart extends Provenance {
  competitors: Competitor[]
}

const LIMIT = 20
const EXAMPLES = 4

/**
 * Domains ranked by how often answer engines cite them and the fetched SERPs list them, the site
 * itself left out. Score = citations + SERP appearances (both are one observation each).
 */
export function competitorLandscape(citations: CitationPart, keywords: KeywordPart, siteDomain: string): CompetitorPart {
  const by = new Map<string, Competitor>()
  const get = (domain: string) => {
    let c = by.get(domain)
    if (!c) by.set(domain, (c = { domain, citations: 0, serp_appearances: 0, score: 0, engines: [], questions: [], keywords: [], examples: [] }))
    return c
  }
  for (const q of citations.questions) {
    for (const r of q.results) {
      if (r.status !== 'ok') continue
      // Each cited URL's domain is read once per answer, not once per domain it cites (tens of thousands).
      const firstUrl = new Map<string, string>()
      for (const u of r.cited_urls) {
        const d = registrableDomain(u)
        if (d && !firstUrl.has(d)) firstUrl.set(d, u)
      }
      for (const d of r.competitors_cited) {
        const c = get(d)
        c.citations++
        if (!c.engines.includes(r.engine)) c.engines.push(r.engine)
        if (!c.questions.includes(q.question)) c.questions.push(q.question)
        const url = firstUrl.get(d)
        if (url && c.examples.length < EXAMPLES && !c.examples.some((e) => e.url === url)) c.examples.push({ url, via: `${r.engine}: "${q.question}"` })
      }
    }
  }
  for (const serp of keywords.serps) {
    for (const res of serp.results) {
      const d = registrableDomain(res.url)
      if (!d || d === siteDomain) continue
      const c = get(d)
      c.serp_appearances++
      if (!c.keywords.includes(serp.keyword)) c.keywords.push(serp.keyword)
      if (c.examples.length < EXAMPLES && !c.examples.some((e) => e.url === res.url)) c.examples.push({ url: res.url, via: `${keywords.source} SERP #${res.position} for "${serp.keyword}"` })
    }
  }
  const competitors = [...by.values()]
    .map((c) => ({ ...c, score: c.citations + c.serp_appearances }))
    .sort((a, b) => b.score - a.score || b.citations - a.citations || a.domain.localeCompare(b.domain))
    .slice(0, LIMIT)
  const sources = [citations.status === 'ok' ? 'answer engine citations' : null, keywords.serps.length ? `${keywords.source} SERPs` : null].filter(Boolean)
  if (sources.length === 0) {
    return { status: 'unavailable', source: 'none', measured_at: null, note: 'No answer engine and no SERP provider answered, so no competitor was observed', competitors: [] }
  }
  return {
    status: 'ok',
    source: sources.join(' + '),
    measured_at: nowIso(),
    note: `Domains ranked by citations plus SERP appearances (from ${sources.join(' and ')}); ${siteDomain} excluded`,
    competitors,
  }
}
