import { CHECKS, SITE_CHECKS, type Category, type CheckId, type Finding } from './checks'

export type Focus = 'seo_focused' | 'aeo_focused' | 'balanced'

/** Weights of the SEO and AEO scores in the overall score, per optimization focus. */
export const FOCUS_WEIGHTS: Record<Focus, Record<Category, number>> = {
  seo_focused: { seo: 0.75, aeo: 0.25 },
  aeo_focused: { seo: 0.25, aeo: 0.75 },
  balanced: { seo: 0.5, aeo: 0.5 },
}

/** Share of the site score taken by the mean page score (the rest is site-level checks). */
export const PAGE_SHARE = 0.8

export const SCORE_FORMULA =
  'page score (per category) = 100 × (1 − sum of weights of the failed checks / sum of weights of all page checks of the category); ' +
  'an error page scores SEO 0; redirects, non-HTML and robots-blocked URLs are not scored; ' +
  'site check score = 100 × (1 − failed site-check weights / all site-check weights of the category); ' +
  `site score = ${PAGE_SHARE} × mean page score + ${(1 - PAGE_SHARE).toFixed(1)} × site check score; ` +
  'overall = w_seo × SEO + w_aeo × AEO with (w_seo, w_aeo) = (0.75, 0.25) seo_focused, (0.25, 0.75) aeo_focused, (0.5, 0.5) balanced.'

const pageChecks = (Object.keys(CHECKS) as CheckId[]).filter((id) => !SITE_CHECKS.includes(id))

function totalWeight(ids: CheckId[], category: Category): number {
  return ids.filter((id) => CHECKS[id].category === category).reduce((s, id) => s + CHECKS[id].weight, 0)
}

function failedWeight(findings: Finding[], category: Category): number {
  const failed = new Set(findings.map((f) => f.check).filter((id) => CHECKS[id].category === category))
  return [...failed].reduce((s, id) => s + CHECKS[id].weight, 0)
}

/** The score of one category from the failed checks, over the given check set. */
function score(findings: Finding[], category: Category, ids: CheckId[]): number {
  const total = totalWeight(ids, category)
  return total === 0 ? 100 : Math.round(100 * (1 - failedWeight(findings, category) / total))
}

/** SEO and AEO scores of one page (null when the URL is not a scored page). */
export function pageScores(kind: string, findings: Finding[]): { seo: number | null; aeo: number | null } {
  if (kind === 'error') return { seo: 0, aeo: null }
  if (kind !== 'html') return { seo: null, aeo: null }
  return { seo: score(findings, 'seo', pageChecks), aeo: score(findings, 'aeo', pageChecks) }
}

/** Site scores from page scores and site-level findings, weighted by focus. */
export function siteScores(pages: { seo: number | null; aeo: number | null }[], siteFindings: Finding[], focus: Focus) {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 100)
  const cat = (c: Category) => {
    const pageMean = mean(pages.map((p) => p[c]).filter((x): x is number => x !== null))
    const siteScore = score(siteFindings, c, SITE_CHECKS)
    return Math.round(PAGE_SHARE * pageMean + (1 - PAGE_SHARE) * siteScore)
  }
  const seo = cat('seo')
  const aeo = cat('aeo')
  const w = FOCUS_WEIGHTS[focus]
  return { seo, aeo, overall: Math.round(w.seo * seo + w.aeo * aeo) }
}
