/** Crunchbase API v4 shapes (autocompletes and organization entity with raised_funding_rounds). */
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

/** Funding totals and rounds, newest first. */
export function fundingOf(org: OrganizationEntity): { total_usd: number | null; round_count: number | null; last_type: string | null; rounds: FundingRound[] } {
  const rounds = (org.cards?.raised_funding_rounds ?? []).map((r) => ({
    name: r.identifier.value,
    announced_on: r.announced_on ?? null,
    type: r.investment_type ?? null,
    amount_usd: r.money_raised?.value_usd ?? null,
    amount: r.money_raised?.value ?? null,
    currency: r.money_raised?.currency ?? null,
    investor_count: r.num_investors ?? null,
    lead_investors: (r.lead_investor_identifiers ?? []).map((i) => i.value),
  }))
  rounds.sort((a, b) => (b.announced_on ?? '').localeCompare(a.announced_on ?? ''))
  return {
    total_usd: org.properties.funding_total?.value_usd ?? null,
    round_count: org.properties.num_funding_rounds ?? rounds.length,
    last_type: org.properties.last_funding_type ?? null,
    rounds,
  }
}
