/**
 * Shapes of the Wikidata APIs the research reads, and pure readers over them. The declared types are
 * what Wikidata documents; the readers hold for any JSON it sends (statements, qualifiers and labels
 * of another shape are skipped).
 */
import { finite, isRecord, objectOf, record, objectsOf, text } from '../shape'

export const SERVICE = 'Wikidata'

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
  const bindings = objectsOf(objectOf(objectOf(result, SERVICE, 'the SPARQL result').results, SERVICE, 'SPARQL `results`').bindings, SERVICE, 'SPARQL bindings')
  return bindings.map((b) => text(record(b.item).value)?.split('/').pop() ?? '').filter((id) => /^Q\d+$/.test(id))
}

/** The entities of a wbgetentities answer that are objects with an id, by id (no prototype: ids come from answers). */
export function entitiesOf(body: EntitiesResponse): Record<string, WikidataEntity> {
  const out: Record<string, WikidataEntity> = Object.create(null)
  for (const [id, e] of Object.entries(record(objectOf(body, SERVICE, 'the entities answer').entities))) {
    if (isRecord(e) && typeof e.id === 'string') out[id] = e as unknown as WikidataEntity
  }
  return out
}

/** Statements of a property, best rank first, deprecated ones dropped. */
function statements(entity: WikidataEntity, property: string): Statement[] {
  const listed = record(entity.claims)[property]
  const all = (Array.isArray(listed) ? listed : []).filter(
    (s): s is Statement => isRecord(s) && isRecord(s.mainsnak) && s.rank !== 'deprecated' && s.mainsnak.snaktype !== 'novalue' && isRecord(s.mainsnak.datavalue),
  )
  const preferred = all.filter((s) => s.rank === 'preferred')
  return preferred.length ? preferred : all
}

const timeOf = (v: unknown): string | null => {
  const t = text(record(v).time)
  if (!t) return null
  const m = /^[+-]?(\d{4,})-(\d\d)-(\d\d)/.exec(t)
  if (!m) return null
  const precision = finite(record(v).precision) ?? 11
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
    const pointInTime = record(s.qualifiers).P585
    const asOf = timeOf(record(record(Array.isArray(pointInTime) ? pointInTime[0] : null).datavalue).value)
    if (!best || (asOf && (!best.as_of || asOf > best.as_of))) best = { value: amount, as_of: asOf }
  }
  return best
}

/** Ticker symbols: P249 qualifiers on "stock exchange" (P414) statements, with the exchange id. */
export function tickers(entity: WikidataEntity): { ticker: string; exchange: string | null }[] {
  return statements(entity, 'P414').flatMap((s) =>
    (Array.isArray(record(s.qualifiers).P249) ? (record(s.qualifiers).P249 as unknown[]) : [])
      .map((q) => record(record(q).datavalue).value)
      .filter((v): v is string => typeof v === 'string')
      .map((ticker) => ({ ticker, exchange: (s.mainsnak.datavalue?.value as { id?: string })?.id ?? null })),
  )
}

/** English label (or the first label) of an entity. */
export function labelOf(entity: WikidataEntity | undefined): string | null {
  const labels = record(record(entity).labels)
  return text(record(labels.en).value) ?? text(record(Object.values(labels)[0]).value)
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
