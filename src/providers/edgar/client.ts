import type { ActionContext } from '../../runtime/context'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { firstListedTicker, padCik, readCompanyFacts, SERVICE, type CompanyFacts, type TickerFile } from './transform'
export const TICKERS_URL = 'https://www.sec.gov/files/company_tickers.json'
export const companyFactsUrl = (cik: string) => `https://data.sec.gov/api/xbrl/companyfacts/CIK${padCik(cik)}.json`

/** EDGAR's fair-access policy asks for a User-Agent naming the caller with a contact address. */
function headers(ctx: ActionContext): Record<string, string> {
  if (!ctx.config.contactEmail) throw new NotConfiguredError('CONTACT_EMAIL', 'SEC EDGAR requires a User-Agent with a contact address: set CONTACT_EMAIL')
  return { 'user-agent': `AgentActionAPI/0.1 ${ctx.config.contactEmail}`, accept: 'application/json' }
}

async function getJson<T>(ctx: ActionContext, url: string): Promise<T | null> {
  const res = await ctx.fetch(url, { service: SERVICE, headers: headers(ctx), timeoutMs: 20_000, maxBytes: 40 * 1024 * 1024 })
  if (res.status === 404) {
    await res.body?.cancel()
    return null
  }
  if (res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('forbidden', 'SEC EDGAR refused the request (403): check that CONTACT_EMAIL is a real contact address')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return readJson<T>(res, SERVICE)
}

/**
 * The first of `tickers` that the SEC's company_tickers.json lists, with its CIK. One request however
 * many tickers are asked: the file is tens of megabytes, and the tickers come from an editable item.
 */
export async function lookupTickers(ctx: ActionContext, tickers: string[]): Promise<{ ticker: string; cik: string; title: string } | null> {
  if (tickers.length === 0) return null
  const file = await getJson<TickerFile>(ctx, TICKERS_URL)
  return file ? firstListedTicker(file, tickers) : null
}

/** XBRL company facts of a CIK, or null when EDGAR has none. */
export async function companyFacts(ctx: ActionContext, cik: string): Promise<CompanyFacts | null> {
  const body = await getJson<unknown>(ctx, companyFactsUrl(cik))
  return body === null ? null : readCompanyFacts(body)
}
