import { CHECKS, type CheckId, type Finding } from './checks'
import { FOCUS_WEIGHTS, type Focus } from './scoring'

/** One item of the action plan. */
export interface PlanItem {
  rank: number
  priority: 'high' | 'medium' | 'low'
  priority_score: number
  check: CheckId
  category: 'seo' | 'aeo'
  severity: 'error' | 'warning' | 'notice'
  issue: string
  why_it_matters: string
  fix: string
  pages_affected: number
  pages: string[]
  examples: string[]
}

const SEVERITY_IMPACT = { error: 1, warning: 0.6, notice: 0.3, info: 0 } as const

export const PRIORITY_FORMULA =
  'priority_score = 100 × impact × focus × (0.4 + 0.6 × reach), where impact = 1 (error), 0.6 (warning) or 0.3 (notice); ' +
  'focus = the category weight of optimization_focus divided by the larger of the two weights; ' +
  'reach = affected pages / scored pages (site-level issues reach 1). high ≥ 50, medium ≥ 25, else low.'

/**
 * Builds the prioritized action plan: one item per failed check, ranked by impact (severity),
 * reach (share of pages affected) and the optimization focus.
 */
export function buildPlan(pageFindings: Map<string, Finding[]>, siteFindings: Finding[], scoredPages: number, focus: Focus): PlanItem[] {
  // A page's findings are all read before the next page's, so a check's pages are listed without a
  // search: the last one listed is the only one that can be this page (a search of the list for
  // every finding cost the square of the pages, 0.3 s for 1,000 pages of 2,000-character URLs).
  const byCheck = new Map<CheckId, { pages: string[]; examples: string[] }>()
  for (const [url, findings] of pageFindings) {
    for (const f of findings) {
      // Informational findings (a robots.txt exclusion) are the site's choice: nothing to plan.
      if (CHECKS[f.check].severity === 'info') continue
      if (!byCheck.has(f.check)) byCheck.set(f.check, { pages: [], examples: [] })
      const entry = byCheck.get(f.check)!
      if (entry.pages.at(-1) !== url) entry.pages.push(url)
      if (entry.examples.length < 3) entry.examples.push(`${url}: ${f.message}`)
    }
  }
  const weights = FOCUS_WEIGHTS[focus]
  const top = Math.max(weights.seo, weights.aeo)
  const items: Omit<PlanItem, 'rank'>[] = []
  const make = (check: CheckId, pages: string[], reach: number, examples: string[]) => {
    const info = CHECKS[check]
    const score = Math.round(100 * SEVERITY_IMPACT[info.severity] * (weights[info.category] / top) * (0.4 + 0.6 * Math.min(1, reach)))
    items.push({
      // Only failed checks reach here, and none of them is informational.
      severity: info.severity as PlanItem['severity'],
      priority: score >= 50 ? 'high' : score >= 25 ? 'medium' : 'low',
      priority_score: score,
      check,
      category: info.category,
      issue: info.title,
      why_it_matters: info.why,
      fix: info.fix,
      pages_affected: pages.length,
      pages: pages.slice(0, 50),
      examples,
    })
  }
  for (const [check, { pages, examples }] of byCheck) make(check, pages.sort(), pages.length / Math.max(1, scoredPages), examples)
  for (const f of siteFindings) make(f.check, [], 1, [f.message])
  items.sort((a, b) => b.priority_score - a.priority_score || b.pages_affected - a.pages_affected || a.check.localeCompare(b.check))
  return items.map((item, i) => ({ rank: i + 1, ...item }))
}
