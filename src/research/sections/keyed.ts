import { dataForSeoMissing, rankedKeywordsFor, RANKED_KEYWORDS_URL } from '../../providers/dataforseo/client'
import { rankedKeywords } from '../../providers/dataforseo/transform'
import { organizationByDomain } from '../../providers/crunchbase/client'
import { fundingOf } from '../../providers/crunchbase/transform'
import { findBusinessUnit, reviewSummary } from '../../providers/trustpilot/client'
import { ok, unavailable, type SectionProvider } from '../types'

const DAY = 86_400

/** Keywords the domain ranks for, with volume, CPC and positions (DataForSEO Labs). */
export const searchKeywords: SectionProvider = {
  name: 'search_keywords',
  ttlSeconds: 7 * DAY,
  missing: (ctx) => dataForSeoMissing(ctx.env),
  async run(inputs) {
    const body = await rankedKeywordsFor(inputs.ctx, inputs.domain)
    const data = rankedKeywords(body)
    if (!data.keywords.length) return unavailable(`DataForSEO has no ranked keywords for ${inputs.domain} (Google, United States, English).`, [RANKED_KEYWORDS_URL])
    return ok(
      { provider: 'DataForSEO Labs', location: 'United States', language: 'en', ...data },
      [RANKED_KEYWORDS_URL],
      "Search volumes and CPC are monthly Google Ads estimates; estimated_traffic is DataForSEO's estimate, not measured visits.",
    )
  },
}

/** Review-site summary and rating (Trustpilot). */
export const reviews: SectionProvider = {
  name: 'reviews',
  ttlSeconds: 3 * DAY,
  missing: (ctx) => (ctx.env.TRUSTPILOT_API_KEY ? null : 'TRUSTPILOT_API_KEY'),
  async run(inputs) {
    const { unit, url } = await findBusinessUnit(inputs.ctx, inputs.domain)
    if (!unit) return unavailable(`Trustpilot has no business profile for ${inputs.domain}.`, [url])
    const summary = reviewSummary(unit)
    return ok({ sites: [summary] }, summary.profile_url === null ? [url] : [url, summary.profile_url])
  },
}

/** Funding rounds and investors (Crunchbase), matched by website domain. */
export const fundingHistory: SectionProvider = {
  name: 'funding_history',
  ttlSeconds: 7 * DAY,
  missing: (ctx) => (ctx.env.CRUNCHBASE_API_KEY ? null : 'CRUNCHBASE_API_KEY'),
  async run(inputs) {
    const { org, sources } = await organizationByDomain(inputs.ctx, inputs.domain)
    if (!org) return unavailable(`No Crunchbase organization has ${inputs.domain} as its website.`, sources)
    const funding = fundingOf(org)
    if (!funding.rounds.length && funding.total_usd === null) return unavailable(`Crunchbase lists no funding for ${org.properties.identifier.value}.`, sources)
    return ok({ organization: org.properties.identifier.value, crunchbase_url: `https://www.crunchbase.com/organization/${org.properties.identifier.permalink}`, ...funding }, sources)
  },
}
