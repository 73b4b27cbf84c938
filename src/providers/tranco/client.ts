import type { ActionContext } from '../../runtime/context'
import { UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { finite, objectOf, objectsOf, text } from '../shape'
import { encodeUriText } from '../../lib/text'

const SERVICE = 'Tranco'

/** Tranco's `GET /api/ranks/domain/<domain>` answer: the domain's rank in recent daily lists. */
export interface TrancoRanks {
  domain: string
  ranks: { date: string; rank: number }[]
}

/** Ranks sorted oldest first, with the latest and best rank; null when the domain is not in the list. Entries without a date and a rank are skipped. */
export function summarizeRanks(body: TrancoRanks): { latest: { date: string; rank: number }; best: number; history: { date: string; rank: number }[] } | null {
  // The declared type is what Tranco documents; the reads below hold for any JSON it sends.
  const history = objectsOf(objectOf(body, SERVICE).ranks, SERVICE, 'ranks')
    .flatMap((r) => {
      const date = text(r.date)
      const rank = finite(r.rank)
      return date !== null && rank !== null ? [{ date, rank }] : []
    })
    .sort((a, b) => a.date.localeCompare(b.date))
  if (!history.length) return null
  return { latest: history[history.length - 1], best: history.reduce((best, r) => Math.min(best, r.rank), Infinity), history }
}

/** The Tranco ranks of a domain (research-grade top-sites list; a rank, not a visit count). */
export async function trancoRanks(ctx: ActionContext, domain: string): Promise<{ body: TrancoRanks; url: string }> {
  const url = `https://tranco-list.eu/api/ranks/domain/${encodeUriText(domain)}`
  const res = await ctx.fetch(url, { service: SERVICE, headers: { accept: 'application/json' }, timeoutMs: 10_000 })
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return { body: await readJson<TrancoRanks>(res, SERVICE), url }
}
