import type { ActionContext } from '../../runtime/context'
import { UpstreamError } from '../errors'
import { readText } from '../web/fetch'
import { articlesOf, SERVICE, type ArtList, type NewsArticle } from './transform'
import { parseJson } from '../../lib/json-depth'
import { encodeUriText } from '../../lib/text'

export const DOC_API = 'https://api.gdeltproject.org/api/v2/doc/doc'

/** Recent articles (last 3 months) matching a query, newest first. */
export async function searchNews(ctx: ActionContext, query: string, max = 20): Promise<{ articles: NewsArticle[]; url: string }> {
  // The name comes from the company's own page or Wikidata: a lone surrogate in it is sent as U+FFFD.
  const url = `${DOC_API}?query=${encodeUriText(query)}&mode=artlist&format=json&maxrecords=${max}&sort=datedesc&timespan=3months`
  const res = await ctx.fetch(url, { service: SERVICE, timeoutMs: 20_000 })
  const text = await readText(res, SERVICE)
  if (!res.ok) throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  // GDELT answers query problems ("phrase too short") as plain text with status 200.
  if (!text.trim().startsWith('{')) throw new UpstreamError(SERVICE, 'invalid', `${SERVICE} rejected the query: ${text.trim().slice(0, 160)}`)
  let body: unknown
  try {
    body = parseJson(text)
  } catch {
    throw new UpstreamError(SERVICE, 'invalid', `${SERVICE} answered with a body that is not JSON`)
  }
  // Only the parse is caught: a reader's error names what was wrong with the answer's shape.
  return { articles: articlesOf(body as ArtList), url }
}
