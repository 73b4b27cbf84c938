/** Shapes of the Wikidata APIs the research reads, and pure readers over them. */

export interface SparqlResult {
  results: { bindings: Record<string, { type: string; value: string }>[] }
}

interface Snak {
  snaktype?: string
  datavalue?: { type: string; value: unknown }
}

export interface Statement {
  mainsnak: Snak
  rank?: 'preferred' | 'normal' | 'deprecated'
  qualifiers?: Record<string, Snak[]>
}

export interface WikidataEntity {
  id: string
  labels?: Record<string, { value: string }>
  descriptions?: Record<string, { value: string }>
  claims?: Record<string, Statement[]>
  sitelinks?: Record<string, { title: string; url?: string }>
}

export interface EntitiesResponse {
  entities: Record<string, WikidataEntity>
}

/** The candidate official websites a domain may be recorded as (scheme, www, trailing slash). */
export function websiteVariants(domain: string): string[] {
  const out: string[] = []
  for (const scheme of ['https', 'http']) for (const host of [domain, `www.${domain}`]) for (const slash of ['/', '']) out.push(`${scheme}://${host}${slash}`)
  return out
}

/** SPARQL that finds items whose official website (P856) is exactly one of the domain's variants. */
export function websiteQuery(domain: string): string {
  const values = websiteVariants(domain)
    .map((u) => `<${u}>`)
    .join(' ')
  return `SELECT DISTINCT ?item WHERE { VALUES ?site { ${values} } ?item wdt:P856 ?site . } LIMIT 5`
}

/** Q-ids from a SPARQL result with an ?item column. */
export function itemIds(result: SparqlResult): string[] {
  return result.results.bindings.map((b) => b.item?.value.split('/').pop() ?? '').filter((id) => /^Q\d+$/.test(id))
}

/** Statements of a property, best rank first, deprecated ones dropped. */
function statements(entity: WikidataEntity, property: string): Statement[] {
  const all = (entity.claims?.[property] ?? []).filter((s) => s.rank !== 'deprecated' && s.mainsnak.snaktype !== 'novalue' && s.mainsnak.datavalue)
  const preferred = all.filter((s) => s.rank === 'preferred')
  return preferred.length ? preferred : all
}

const timeOf = (v: unknown): string | null => {
  const t = (v as { time?: string; precision?: number })?.time
  if (!t) return null
  const m = /^[+-]?(\d{4,})-(\d\d)-(\d\d)/.exec(t)
  if (!m) return null
  const precision = (v as { precision?: number }).precision ?? 11
  if (precision <= 9) return m[1]
  if (precision === 10) return `${m[1]}-${m[2]}`
  return `${m[1]}-${m[2]}-${m[3]}`
}

/** String values of a property (URLs, ids). */
export function stringValues(entity: WikidataEntity, property: string): string[] {
  return statements(entity, property)
    .map((s) => s.mainsnak.datavalue?.value)
    .filter((v): v is string => typeof v === 'string')
}

/** Entity ids a property points at. */
export function entityValues(entity: WikidataEntity, property: string): string[] {
  return statements(entity, property)
    .map((s) => (s.mainsnak.datavalue?.value as { id?: string })?.id)
    .filter((v): v is string => typeof v === 'string')
}

/** The first date value of a property, at its precision ("1998", "1998-09" or "1998-09-04"). */
export function dateValue(entity: WikidataEntity, property: string): string | null {
  for (const s of statements(entity, property)) {
    const d = timeOf(s.mainsnak.datavalue?.value)
    if (d) return d
  }
  return null
}

/** The most recent quantity of a property (by its P585 "point in time" qualifier), with that date. */
export function latestQuantity(entity: WikidataEntity, property: string): { value: number; as_of: string | null } | null {
  let best: { value: number; as_of: string | null } | null = null
  for (const s of statements(entity, property)) {
    const amount = Number((s.mainsnak.datavalue?.value as { amount?: string })?.amount)
    if (!Number.isFinite(amount)) continue
    const asOf = timeOf(s.qualifiers?.P585?.[0]?.datavalue?.value)
    if (!best || (asOf && (!best.as_of || asOf > best.as_of))) best = { value: amount, as_of: asOf }
  }
  return best
}

/** Ticker symbols: P249 qualifiers on "stock exchange" (P414) statements, with the exchange id. */
export function tickers(entity: WikidataEntity): { ticker: string; exchange: string | null }[] {
  return statements(entity, 'P414').flatMap((s) =>
    (s.qualifiers?.P249 ?? [])
      .map((q) => q.datavalue?.value)
      .filter((v): v is string => typeof v === 'string')
      .map((ticker) => ({ ticker, exchange: (s.mainsnak.datavalue?.value as { id?: string })?.id ?? null })),
  )
}

/** English label (or the first label) of an entity. */
export function labelOf(entity: WikidataEntity | undefined): string | null {
  if (!entity?.labels) return null
  return entity.labels.en?.value ?? Object.values(entity.labels)[0]?.value ?? null
}

/** Host of a URL without www., lower-cased. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname
      .toLowerCase()
      .replace(/^www\./, '')
      .replace(/(?<!\.)\.+$/, '')
  } catch {
    return null
  }
}
