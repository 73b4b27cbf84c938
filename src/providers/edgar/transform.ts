/** SEC EDGAR shapes (company_tickers.json and XBRL companyfacts) and pure readers over them. */

export type TickerFile = Record<string, { cik_str: number; ticker: string; title: string }>

export interface FactValue {
  start?: string
  end: string
  val: number
  accn: string
  fy?: number
  fp?: string
  form: string
  filed: string
  frame?: string
}

export interface CompanyFacts {
  cik: number
  entityName: string
  facts: Record<string, Record<string, { label?: string; description?: string; units: Record<string, FactValue[]> }>>
}

/** A CIK padded to the ten digits the companyfacts URL wants. */
export const padCik = (cik: string | number) => String(cik).replace(/\D/g, '').padStart(10, '0')

/**
 * The first of `tickers` the SEC ticker file lists, with its CIK (the file's first row of that ticker),
 * or null. The file is indexed once: an item may list thousands of tickers.
 */
export function firstListedTicker(file: TickerFile, tickers: string[]): { ticker: string; cik: string; title: string } | null {
  const rows = new Map<string, { cik_str: number; title: string }>()
  for (const row of Object.values(file)) {
    const t = typeof row?.ticker === 'string' ? row.ticker.toUpperCase() : null
    if (t !== null && !rows.has(t)) rows.set(t, row)
  }
  for (const ticker of tickers) {
    const row = rows.get(ticker.toUpperCase())
    if (row) return { ticker, cik: padCik(row.cik_str), title: row.title }
  }
  return null
}

const REVENUE = ['Revenues', 'RevenueFromContractWithCustomerExcludingAssessedTax', 'RevenueFromContractWithCustomerIncludingAssessedTax', 'SalesRevenueNet']

/** One fiscal year's figures from a 10-K. */
export interface AnnualFigures {
  fiscal_year: number
  period_end: string
  form: string
  filed: string
  accession: string
  revenue_usd: number | null
  net_income_usd: number | null
  operating_income_usd: number | null
  gross_profit_usd: number | null
  gross_margin: number | null
  operating_margin: number | null
  net_margin: number | null
}

const DAY = 86_400_000
const isAnnual = (v: FactValue) => !!v.start && (Date.parse(v.end) - Date.parse(v.start)) / DAY > 350 && (v.form === '10-K' || v.form === '20-F' || v.form === '10-K/A')

/** Annual values of a us-gaap concept in USD keyed by period end (latest filing wins). */
function annualByEnd(facts: CompanyFacts, concepts: string[]): Map<string, FactValue> {
  const out = new Map<string, FactValue>()
  for (const concept of concepts) {
    const values = facts.facts['us-gaap']?.[concept]?.units?.USD ?? []
    for (const v of values) {
      if (!isAnnual(v)) continue
      const prior = out.get(v.end)
      if (!prior || v.filed > prior.filed) out.set(v.end, v)
    }
    if (out.size) break
  }
  return out
}

const ratio = (a: number | null, b: number | null) => (a !== null && b ? Math.round((a / b) * 10_000) / 10_000 : null)

/** The last `years` fiscal years of revenue, income and margins, newest first. */
export function annualFigures(facts: CompanyFacts, years = 3): AnnualFigures[] {
  const revenue = annualByEnd(facts, REVENUE)
  const net = annualByEnd(facts, ['NetIncomeLoss', 'ProfitLoss'])
  const operating = annualByEnd(facts, ['OperatingIncomeLoss'])
  const gross = annualByEnd(facts, ['GrossProfit'])
  const ends = [...new Set([...revenue.keys(), ...net.keys()])].sort().reverse().slice(0, years)
  return ends.map((end) => {
    const anchor = revenue.get(end) ?? net.get(end)!
    const r = revenue.get(end)?.val ?? null
    const n = net.get(end)?.val ?? null
    const o = operating.get(end)?.val ?? null
    const g = gross.get(end)?.val ?? null
    return {
      fiscal_year: anchor.fy ?? Number(end.slice(0, 4)),
      period_end: end,
      form: anchor.form,
      filed: anchor.filed,
      accession: anchor.accn,
      revenue_usd: r,
      net_income_usd: n,
      operating_income_usd: o,
      gross_profit_usd: g,
      gross_margin: ratio(g, r),
      operating_margin: ratio(o, r),
      net_margin: ratio(n, r),
    }
  })
}

/** The latest public float (dei:EntityPublicFloat) in USD: not market capitalization, which EDGAR does not report. */
export function publicFloat(facts: CompanyFacts): { value_usd: number; as_of: string } | null {
  const values = facts.facts.dei?.EntityPublicFloat?.units?.USD ?? []
  const last = [...values].sort((a, b) => a.end.localeCompare(b.end)).pop()
  return last ? { value_usd: last.val, as_of: last.end } : null
}
