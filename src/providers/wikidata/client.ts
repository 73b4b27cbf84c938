import type { ActionContext } from '../../runtime/context'
import { UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { entitiesOf, hostOf, itemIds, SERVICE, stringValues, websiteQuery, type EntitiesResponse, type SparqlResult, type WikidataEntity } from './transform'
import { encodeUriText } from '../../lib/text'

export const SPARQL_URL = 'https://query.wikidata.org/sparql'
export const API_URL = 'https://www.wikidata.org/w/api.php'

async function getJson<T>(ctx: ActionContext, url: string): Promise<T> {
  const res = await ctx.fetch(url, { service: SERVICE, headers: { accept: 'application/sparql-results+json, application/json' }, timeoutMs: 15_000 })
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return readJson<T>(res, SERVICE)
}

/** Entities by id with claims, labels and English Wikipedia sitelink. */
export async function getEntities(ctx: ActionContext, ids: string[], props = 'labels|descriptions|claims|sitelinks/urls'): Promise<{ entities: Record<string, WikidataEntity>; url: string }> {
  if (!ids.length) return { entities: {}, url: '' }
  const url = `${API_URL}?action=wbgetentities&format=json&ids=${ids.slice(0, 50).join('|')}&props=${encodeUriText(props)}&languages=en&sitefilter=enwiki`
  const body = await getJson<EntitiesResponse>(ctx, url)
  return { entities: entitiesOf(body), url }
}

/**
 * The Wikidata item of a company domain. Matching rule: an item whose official website (P856) is
 * exactly the domain's home URL (http/https, with or without www. and trailing slash), confirmed by
 * reading the item back. Nothing is guessed from names; with several confirmed items the first is
 * used and the others are listed in `others`.
 */
export async function findCompany(ctx: ActionContext, domain: string): Promise<{ entity: WikidataEntity | null; others: string[]; sources: string[] }> {
  const sparqlUrl = `${SPARQL_URL}?format=json&query=${encodeUriText(websiteQuery(domain))}`
  const ids = itemIds(await getJson<SparqlResult>(ctx, sparqlUrl))
  if (!ids.length) return { entity: null, others: [], sources: [sparqlUrl] }
  const { entities, url } = await getEntities(ctx, ids)
  const confirmed = ids.map((id) => entities[id]).filter((e) => e !== undefined && stringValues(e, 'P856').some((site) => hostOf(site) === domain))
  return { entity: confirmed[0] ?? null, others: confirmed.slice(1).map((e) => e.id), sources: [sparqlUrl, url] }
}
