/** SEC EDGAR shapes (company_tickers.json and XBRL companyfacts) and pure readers over them. */
import { finite, isRecord, objectOf, record, shapeError, text } from '../shape'

export const SERVICE = 'SEC EDGAR'

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
  // The declared type is what the SEC publishes; rows without a ticker, a numeric CIK and a title are skipped.
  for (const row of Object.values(objectOf(file, SERVICE, 'the ticker file'))) {
    if (!isRecord(row) || typeof row.ticker !== 'string' || typeof row.title !== 'string' || !isCik(row.cik_str)) continue
    const t = row.ticker.toUpperCase()
    if (!rows.has(t)) rows.set(t, { cik_str: row.cik_str, title: row.title })
  }
  for (const ticker of tickers) {
    const row = rows.get(ticker.toUpperCase())
    if (row) return { ticker, cik: padCik(row.cik_str), title: row.title }
  }
  return null
}

/** A CIK as the SEC writes it: a whole number of at most ten digits (the ticker file's `cik_str` is a number, despite its name). */
const isCik = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v < 1e10

/** Company facts whose `facts` is an object and `entityName` text; another shape is the shape error. */
export function readCompanyFacts(body: unknown): CompanyFacts {
  const o = objectOf(body, SERVICE, 'the company facts')
  objectOf(o.facts, SERVICE, 'company facts `facts`')
  if (typeof o.entityName !== 'string') throw shapeError(SERVICE, 'the company facts have no entityName')
  return o as unknown as CompanyFacts
}

/** The values of a concept in USD that have the fields a reader needs; others are skipped. */
function usdValues(facts: CompanyFacts, taxonomy: string, concept: string): FactValue[] {
  const usd = record(record(record(record(record(facts.facts)[taxonomy])[concept]).units)).USD
  if (!Array.isArray(usd)) return []
  const out: FactValue[] = []
  for (const v of usd) {
    if (!isRecord(v)) continue
    const end = text(v.end)
    const val = finite(v.val)
    const form = text(v.form)
    const filed = text(v.filed)
    const accn = text(v.accn)
    if (end === null || val === null || form === null || filed === null || accn === null) continue
    out.push({ start: text(v.start) ?? undefined, end, val, accn, fy: finite(v.fy) ?? undefined, form, filed })
  }
  return out
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
    for (const v of usdValues(facts, 'us-gaap', concept)) {
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
  const last = usdValues(facts, 'dei', 'EntityPublicFloat')
    .sort((a, b) => a.end.localeCompare(b.end))
    .pop()
  return last ? { value_usd: last.val, as_of: last.end } : null
}
