import type { ActionContext } from '../../runtime/context'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { finite, objectOf, record, shapeError, text } from '../shape'
import { encodeUriText, pathSegment } from '../../lib/text'

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

/**
 * The unit's page, its identifying name (its domain) one path segment: the name is Trustpilot's to
 * send, so a "/", "?" or "#" in it, or a name of dots, must not point the link at another page.
 * Null without a name that can be one.
 */
function profileUrl(name: string | null): string | null {
  const segment = name === null ? null : pathSegment(name)
  return segment === null ? null : `https://www.trustpilot.com/review/${segment}`
}

/** The review summary of a business unit; figures that are not numbers read as null, a unit without a name is the shape error. */
export function reviewSummary(unit: BusinessUnit) {
  // The declared type is what Trustpilot documents; the reads below hold for any JSON it sends.
  const u = objectOf(unit, SERVICE, 'the business unit')
  const name = text(u.displayName)
  if (name === null) throw shapeError(SERVICE, 'the business unit has no displayName')
  const n = record(u.numberOfReviews)
  const score = record(u.score)
  return {
    site: 'Trustpilot',
    name,
    trust_score: finite(score.trustScore),
    stars: finite(score.stars),
    review_count: finite(n.total),
    distribution: { '1': finite(n.oneStar), '2': finite(n.twoStars), '3': finite(n.threeStars), '4': finite(n.fourStars), '5': finite(n.fiveStars) },
    profile_url: profileUrl(text(record(u.name).identifying)),
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
  return { unit: objectOf(await readJson(res, SERVICE), SERVICE) as unknown as BusinessUnit, url }
}
