/** Crunchbase API v4 shapes (autocompletes and organization entity with raised_funding_rounds). */
import { finite, isRecord, objectOf, record, objectsOf, shapeError, text } from '../shape'

export const SERVICE = 'Crunchbase'
export interface Autocomplete {
  count: number
  entities: { identifier: { uuid: string; value: string; permalink: string; entity_def_id: string }; short_description?: string }[]
}

interface Money {
  value?: number
  currency?: string
  value_usd?: number
}

export interface OrganizationEntity {
  properties: { identifier: { value: string; permalink: string }; website_url?: string; funding_total?: Money; num_funding_rounds?: number; last_funding_type?: string }
  cards?: {
    raised_funding_rounds?: {
      identifier: { value: string; permalink?: string }
      announced_on?: string
      investment_type?: string
      money_raised?: Money
      num_investors?: number
      lead_investor_identifiers?: { value: string }[]
    }[]
  }
}

export interface FundingRound {
  name: string
  announced_on: string | null
  type: string | null
  amount_usd: number | null
  amount: number | null
  currency: string | null
  investor_count: number | null
  lead_investors: string[]
}

/** The permalinks of an autocomplete answer's hits, in order (hits without one are skipped). */
export function autocompletePermalinks(body: unknown): string[] {
  return objectsOf(objectOf(body, SERVICE).entities, SERVICE, 'autocompletes entities')
    .map((hit) => text(record(hit.identifier).permalink))
    .filter((p): p is string => p !== null)
}

/** An organization entity with properties and a website that is text (or none); another shape is the shape error. */
export function readOrganization(body: unknown): OrganizationEntity {
  const properties = objectOf(objectOf(body, SERVICE, 'the organization').properties, SERVICE, 'organization properties')
  if (properties.website_url !== undefined && properties.website_url !== null && typeof properties.website_url !== 'string') throw shapeError(SERVICE, 'the organization website_url is not text')
  return body as OrganizationEntity
}

/** The organization a report names: its identifier value and permalink must be text, else the shape error. */
export function namedOrganization(org: OrganizationEntity): OrganizationEntity {
  const identifier = record(record(org.properties).identifier)
  if (typeof identifier.value !== 'string' || typeof identifier.permalink !== 'string') throw shapeError(SERVICE, 'the organization has no identifier value and permalink')
  return org
}

/** Funding totals and rounds, newest first; rounds without a name are skipped, values of another type read as null. */
export function fundingOf(org: OrganizationEntity): { total_usd: number | null; round_count: number | null; last_type: string | null; rounds: FundingRound[] } {
  // The declared type is what Crunchbase documents; the reads below hold for any JSON it sends.
  const cards = record(org.cards)
  const rounds: FundingRound[] = []
  for (const r of objectsOf(cards.raised_funding_rounds, SERVICE, 'raised_funding_rounds')) {
    const name = text(record(r.identifier).value)
    if (name === null) continue
    const money = record(r.money_raised)
    const leads = Array.isArray(r.lead_investor_identifiers) ? r.lead_investor_identifiers : []
    rounds.push({
      name,
      announced_on: text(r.announced_on),
      type: text(r.investment_type),
      amount_usd: finite(money.value_usd),
      amount: finite(money.value),
      currency: text(money.currency),
      investor_count: finite(r.num_investors),
      lead_investors: leads.map((i) => (isRecord(i) ? text(i.value) : null)).filter((v): v is string => v !== null),
    })
  }
  rounds.sort((a, b) => (b.announced_on ?? '').localeCompare(a.announced_on ?? ''))
  const properties = record(org.properties)
  return {
    total_usd: finite(record(properties.funding_total).value_usd),
    round_count: finite(properties.num_funding_rounds) ?? rounds.length,
    last_type: text(properties.last_funding_type),
    rounds,
  }
}
