import type { ActionContext } from '../../runtime/context'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { autocompletePermalinks, namedOrganization, readOrganization, SERVICE, type OrganizationEntity } from './transform'
import { encodeUriText, pathSegment } from '../../lib/text'
export const API = 'https://api.crunchbase.com/api/v4'

async function get(ctx: ActionContext, url: string): Promise<unknown> {
  const key = ctx.env.CRUNCHBASE_API_KEY
  if (!key) throw new NotConfiguredError('CRUNCHBASE_API_KEY')
  const res = await ctx.fetch(url, { service: SERVICE, headers: { 'x-cb-user-key': key, accept: 'application/json' }, timeoutMs: 15_000 })
  if (res.status === 404) {
    await res.body?.cancel()
    return null
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', 'Crunchbase rejected CRUNCHBASE_API_KEY')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return readJson(res, SERVICE)
}

const host = (url: string | undefined) => {
  try {
    return url ? new URL(url).hostname.toLowerCase().replace(/^www\./, '') : null
  } catch {
    return null
  }
}

/**
 * The Crunchbase organization of a domain with its funding rounds. Matching rule: an autocomplete
 * hit for the domain whose `website_url` host equals the domain; no name-only matches.
 */
export async function organizationByDomain(ctx: ActionContext, domain: string): Promise<{ org: OrganizationEntity | null; sources: string[] }> {
  const searchUrl = `${API}/autocompletes?query=${encodeUriText(domain)}&collection_ids=organizations&limit=5`
  const found = await get(ctx, searchUrl)
  const hits = found === null ? [] : autocompletePermalinks(found)
  const sources = [searchUrl]
  for (const permalink of hits.slice(0, 3)) {
    // A permalink of dots would be a dot segment, reading another endpoint with the key; one with a
    // lone surrogate names no organization a URL can reach.
    const segment = pathSegment(permalink)
    if (segment === null) continue
    const url = `${API}/entities/organizations/${segment}?field_ids=identifier,website_url,funding_total,num_funding_rounds,last_funding_type&card_ids=raised_funding_rounds`
    const body = await get(ctx, url)
    sources.push(url)
    const org = body === null ? null : readOrganization(body)
    if (org && host(org.properties.website_url) === domain) return { org: namedOrganization(org), sources }
  }
  return { org: null, sources }
}
