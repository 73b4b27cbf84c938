import { resolve } from '../providers/dns/client'
import { findCompany, getEntities } from '../providers/wikidata/client'
import { entityValues, labelOf, type WikidataEntity } from '../providers/wikidata/transform'
import { ldOfType, ORGANIZATION_TYPES } from './html'
import { homepage } from './site'
import type { ResearchInputs } from './types'

/** The company's Wikidata item (exact official-website match) with labels of the items it points at. */
export function wikidataCompany(inputs: ResearchInputs): Promise<{ entity: WikidataEntity | null; labels: Record<string, WikidataEntity>; sources: string[]; others: string[] }> {
  return inputs.once('wikidata', async () => {
    const found = await findCompany(inputs.ctx, inputs.domain)
    if (!found.entity) return { entity: null, labels: {}, sources: found.sources, others: found.others }
    const refs = ['P159', 'P452', 'P169', 'P112', 'P414', 'P17'].flatMap((p) => entityValues(found.entity!, p))
    const { entities, url } = await getEntities(inputs.ctx, [...new Set(refs)], 'labels|claims')
    return { entity: found.entity, labels: entities, sources: url ? [...found.sources, url] : found.sources, others: found.others }
  })
}

/** Wikidata facts, or null when the lookup failed (the caller reports why). */
export async function wikidataOrNull(inputs: ResearchInputs): Promise<{ value: Awaited<ReturnType<typeof wikidataCompany>> | null; error: string | null }> {
  try {
    return { value: await wikidataCompany(inputs), error: null }
  } catch (err) {
    return { value: null, error: `Wikidata lookup failed: ${(err as Error).message}` }
  }
}

/** Labels of the items a property points at. */
export function labelsOf(entity: WikidataEntity, labels: Record<string, WikidataEntity>, property: string): string[] {
  return entityValues(entity, property)
    .map((id) => labelOf(labels[id]))
    .filter((l): l is string => !!l)
}

/** MX and TXT records of the domain over DNS-over-HTTPS. */
export function dnsRecords(inputs: ResearchInputs): Promise<{ mx: string[]; txt: string[]; sources: string[] }> {
  return inputs.once('dns', async () => {
    const [mx, txt] = await Promise.all([resolve(inputs.ctx, inputs.domain, 'MX'), resolve(inputs.ctx, inputs.domain, 'TXT')])
    return { mx: mx.records, txt: txt.records, sources: [mx.url, txt.url] }
  })
}

/** The company's name: JSON-LD Organization name, og:site_name, Wikidata label, then the title's first part. */
export async function companyName(inputs: ResearchInputs): Promise<string | null> {
  return inputs.once('name', async () => {
    let home
    try {
      home = await homepage(inputs)
    } catch {
      home = null
    }
    const org = home ? ldOfType([home], ORGANIZATION_TYPES)[0] : undefined
    if (typeof org?.name === 'string' && org.name.trim()) return org.name.trim()
    if (home?.meta['og:site_name']) return home.meta['og:site_name']
    const wd = await wikidataOrNull(inputs)
    const label = wd.value?.entity ? labelOf(wd.value.entity) : null
    if (label) return label
    const title = home?.title?.split(/\s[|\-–—:]\s/)[0]?.trim()
    return title || null
  })
}
