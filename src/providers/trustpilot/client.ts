import type { ActionContext } from '../../runtime/context'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { encodeUriText } from '../../lib/text'

const SERVICE = 'Trustpilot'
export const FIND_URL = 'https://api.trustpilot.com/v1/business-units/find'

/** Trustpilot `GET /v1/business-units/find?name=<domain>` answer (fields the research reads). */
export interface BusinessUnit {
  id: string
  displayName: string
  name?: { identifying?: string; referring?: string[] }
  websiteUrl?: string
  score?: { stars?: number; trustScore?: number }
  numberOfReviews?: { total?: number; oneStar?: number; twoStars?: number; threeStars?: number; fourStars?: number; fiveStars?: number }
}

/** The review summary of a business unit. */
export function reviewSummary(unit: BusinessUnit) {
  const n = unit.numberOfReviews ?? {}
  return {
    site: 'Trustpilot',
    name: unit.displayName,
    trust_score: unit.score?.trustScore ?? null,
    stars: unit.score?.stars ?? null,
    review_count: n.total ?? null,
    distribution: { '1': n.oneStar ?? null, '2': n.twoStars ?? null, '3': n.threeStars ?? null, '4': n.fourStars ?? null, '5': n.fiveStars ?? null },
    profile_url: `https://www.trustpilot.com/review/${unit.name?.identifying ?? ''}`,
  }
}

/** The Trustpilot business unit of a domain; null when Trustpilot has none. */
export async function findBusinessUnit(ctx: ActionContext, domain: string): Promise<{ unit: BusinessUnit | null; url: string }> {
  const key = ctx.env.TRUSTPILOT_API_KEY
  if (!key) throw new NotConfiguredError('TRUSTPILOT_API_KEY')
  const url = `${FIND_URL}?name=${encodeUriText(domain)}`
  const res = await ctx.fetch(url, { service: SERVICE, headers: { apikey: key, accept: 'application/json' }, timeoutMs: 15_000 })
  if (res.status === 404) {
    await res.body?.cancel()
    return { unit: null, url }
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', 'Trustpilot rejected TRUSTPILOT_API_KEY')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return { unit: await readJson<BusinessUnit>(res, SERVICE), url }
}
