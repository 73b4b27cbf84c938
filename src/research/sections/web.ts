import { z } from 'zod'
import { decodeUriPart } from '../../lib/text'
import { getProfile, handleFromUrl } from '../../providers/atproto/profile'
import { dateValue, entityValues, labelOf, latestQuantity, stringValues } from '../../providers/wikidata/transform'
import { ldOfType, ORGANIZATION_TYPES, type PageFacts } from '../html'
import { dnsRecords, labelsOf, wikidataOrNull } from '../shared'
import { homepage, page, pages } from '../site'
import { detectTechnologies } from '../tech'
import { ok, unavailable, type ResearchInputs, type SectionProvider } from '../types'
import { writeWithModel } from './model'

const DAY = 86_400

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null)
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v])

/** A value with the URL it was read from. */
interface Fact<T> {
  value: T
  source: string
}

function fact<T>(value: T | null | undefined, source: string): Fact<T> | null {
  return value === null || value === undefined || value === '' ? null : { value, source }
}

function firstFact<T>(...facts: (Fact<T> | null)[]): Fact<T> | null {
  return facts.find((f) => f !== null) ?? null
}

function addressText(a: unknown): string | null {
  if (typeof a === 'string') return a
  if (!a || typeof a !== 'object') return null
  const o = a as Record<string, unknown>
  const parts = [o.streetAddress, o.addressLocality, o.addressRegion, o.postalCode, typeof o.addressCountry === 'object' ? (o.addressCountry as Record<string, unknown>)?.name : o.addressCountry]
  const text = parts.map(str).filter(Boolean).join(', ')
  return text || null
}

const OverviewSummary = z.object({
  summary: z.string().describe('Two to four sentences describing what the company does, from the material only'),
  cited: z.array(z.string()).describe('Material keys the summary was written from'),
})

/** Description, industry, employees, headquarters, founding: site metadata and JSON-LD, then Wikidata. */
export const companyOverview: SectionProvider = {
  name: 'company_overview',
  ttlSeconds: 7 * DAY,
  async run(inputs) {
    const home = await homepage(inputs)
    const about = await page(inputs, 'about')
    const org = ldOfType([home, ...(about ? [about] : [])], ORGANIZATION_TYPES)[0] ?? {}
    const wd = await wikidataOrNull(inputs)
    const entity = wd.value?.entity ?? null
    const wdUrl = entity ? `https://www.wikidata.org/wiki/${entity.id}` : ''
    const employees = entity ? latestQuantity(entity, 'P1128') : null
    const ldEmployees = str((org.numberOfEmployees as Record<string, unknown>)?.value ?? org.numberOfEmployees)
    const facts = {
      name: firstFact(fact(str(org.name), home.url), fact(home.meta['og:site_name'], home.url), fact(entity ? labelOf(entity) : null, wdUrl)),
      description: firstFact(fact(str(org.description), home.url), fact(home.meta['description'], home.url), fact(home.meta['og:description'], home.url), fact(entity?.descriptions?.en?.value, wdUrl)),
      industry: firstFact(fact(entity ? labelsOf(entity, wd.value!.labels, 'P452') : null, wdUrl), fact(str(org.industry) ? [str(org.industry)!] : null, home.url)),
      employees: firstFact(fact(employees, wdUrl), fact(ldEmployees && Number.isFinite(Number(ldEmployees)) ? { value: Number(ldEmployees), as_of: null } : null, home.url)),
      headquarters: firstFact(fact(entity ? labelsOf(entity, wd.value!.labels, 'P159')[0] : null, wdUrl), fact(addressText(org.address), home.url)),
      founded: firstFact(fact(entity ? dateValue(entity, 'P571') : null, wdUrl), fact(str(org.foundingDate), home.url)),
      legal_name: fact(str(org.legalName), home.url),
      logo: firstFact(fact(str((org.logo as Record<string, unknown>)?.url ?? org.logo), home.url), fact(home.meta['og:image'], home.url)),
      wikidata_id: fact(entity?.id, wdUrl),
      wikipedia_url: fact(entity?.sitelinks?.enwiki?.url, wdUrl),
      official_websites: fact(entity ? stringValues(entity, 'P856') : null, wdUrl),
    }
    const material = Object.fromEntries(
      Object.entries(facts)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, v!.value]),
    )
    if (about?.text) material.about_page_text = about.text.slice(0, 4000)
    const written = await writeWithModel(inputs, 'fast', { schema: OverviewSummary, name: 'company_overview_summary', task: `Summarize the company at ${inputs.domain}.`, material })
    const sources = [home.url, ...(about ? [about.url] : []), ...(wd.value?.sources ?? [])]
    const notes = [wd.error, entity ? null : `No Wikidata item lists ${inputs.domain} as its official website.`, written.note].filter(Boolean)
    return ok({ ...facts, summary: written.object ? { text: written.object.summary, written_from: written.object.cited, model: written.model } : null }, sources, notes.join(' ') || null)
  },
}

const ProductSummary = z.object({
  summary: z.string().describe('What the company sells and to whom, from the material only'),
  products: z.array(z.object({ name: z.string(), description: z.string() })).describe('Products or plans named in the material'),
  cited: z.array(z.string()).describe('Material keys used'),
})

/** Products and offers from JSON-LD, the products and pricing pages, with on-site and review-site ratings. */
export const productSummary: SectionProvider = {
  name: 'product_summary',
  ttlSeconds: 7 * DAY,
  after: ['reviews'],
  async run(inputs) {
    const home = await homepage(inputs)
    const extra = await pages(inputs, ['products', 'pricing'])
    const all = [home, ...extra]
    const products = ldOfType(all, ['Product', 'SoftwareApplication', 'Service', 'WebApplication', 'MobileApplication']).map((p) => {
      const rating = (p.aggregateRating ?? null) as Record<string, unknown> | null
      const offers = arr(p.offers).map((o) => o as Record<string, unknown>)
      return {
        name: str(p.name),
        description: str(p.description),
        category: str(p.applicationCategory ?? p.category),
        offers: offers.map((o) => ({ price: str(o.price), currency: str(o.priceCurrency), name: str(o.name) })),
        rating: rating ? { value: Number(rating.ratingValue) || null, count: Number(rating.ratingCount ?? rating.reviewCount) || null, best: Number(rating.bestRating) || 5 } : null,
      }
    })
    const pricing = extra.find((p) => /pric|plan/i.test(p.url))
    const pagesRead = extra.map((p) => ({ url: p.url, title: p.title, headings: p.headings.slice(0, 20) }))
    const reviews = inputs.results.reviews?.status === 'ok' ? inputs.results.reviews.data : null
    if (!products.length && !pagesRead.length && !home.meta.description) return unavailable(`No product data found on ${inputs.domain} (no Product JSON-LD, products or pricing page).`, [home.url])
    const material = {
      homepage_description: home.meta.description ?? null,
      homepage_headings: home.headings.slice(0, 15),
      products,
      product_pages: pagesRead,
      pricing_text: pricing?.text.slice(0, 3000) ?? null,
    }
    const written = await writeWithModel(inputs, 'fast', { schema: ProductSummary, name: 'product_summary', task: `Summarize the products of ${inputs.domain}.`, material })
    return ok(
      {
        products,
        pages: pagesRead,
        review_ratings: reviews,
        summary: written.object ? { text: written.object.summary, products: written.object.products, written_from: written.object.cited, model: written.model } : null,
      },
      [home.url, ...extra.map((p) => p.url), ...(inputs.results.reviews?.status === 'ok' ? inputs.results.reviews.sources : [])],
      written.note,
    )
  },
}

const SOCIAL: [string, RegExp][] = [
  ['linkedin', /(^|\.)linkedin\.com$/],
  ['x', /(^|\.)(twitter|x)\.com$/],
  ['facebook', /(^|\.)facebook\.com$/],
  ['instagram', /(^|\.)instagram\.com$/],
  ['youtube', /(^|\.)youtube\.com$/],
  ['github', /^github\.com$/],
  ['tiktok', /(^|\.)tiktok\.com$/],
  ['bluesky', /^bsky\.app$/],
  ['threads', /(^|\.)threads\.net$/],
  ['mastodon', /^(mastodon\.social|fosstodon\.org|hachyderm\.io)$/],
]

/** Social profile links of a page (share links and personal profiles left out). */
export function socialProfiles(p: PageFacts): { network: string; url: string }[] {
  const out = new Map<string, { network: string; url: string }>()
  for (const l of p.links) {
    let u: URL
    try {
      u = new URL(l.href)
    } catch {
      continue
    }
    const hit = SOCIAL.find(([, re]) => re.test(u.hostname.toLowerCase()))
    if (!hit || /\/(share|sharer|intent|in)\b/i.test(u.pathname) || u.pathname.length <= 1) continue
    if (!out.has(hit[0])) out.set(hit[0], { network: hit[0], url: l.href })
  }
  return [...out.values()]
}

/** Technology signals from the homepage and DNS, detected once per run. */
async function detection(inputs: ResearchInputs) {
  return inputs.once('detection', async () => {
    const home = await homepage(inputs)
    let dns: { mx: string[]; txt: string[]; sources: string[] } = { mx: [], txt: [], sources: [] }
    let dnsError: string | null = null
    try {
      dns = await dnsRecords(inputs)
    } catch (err) {
      dnsError = `DNS lookups failed: ${(err as Error).message}`
    }
    return { home, dns, dnsError, found: detectTechnologies({ page: home, mx: dns.mx, txt: dns.txt }) }
  })
}

/** Technologies by category, social profiles and public follower counts (AT Protocol). */
export const technologyStack: SectionProvider = {
  name: 'technology_stack',
  ttlSeconds: 3 * DAY,
  async run(inputs) {
    const { home, dns, dnsError, found } = await detection(inputs)
    const byCategory: Record<string, string[]> = {}
    for (const t of found) (byCategory[t.category] ??= []).push(t.name)
    const profiles = socialProfiles(home)
    const sources = [home.url, ...dns.sources]
    const social = await Promise.all(
      profiles.map(async (p) => {
        const handle = p.network === 'bluesky' ? handleFromUrl(p.url) : null
        if (!handle) return { ...p, followers: null, followers_source: null }
        try {
          const { profile, url } = await getProfile(inputs.ctx, handle)
          if (profile) sources.push(url)
          return { ...p, handle: profile?.handle ?? handle, followers: profile?.followersCount ?? null, posts: profile?.postsCount ?? null, followers_source: profile ? url : null }
        } catch {
          return { ...p, followers: null, followers_source: null }
        }
      }),
    )
    const note = [dnsError, 'Follower counts are shown only where a public API gives them (Bluesky/AT Protocol).'].filter(Boolean).join(' ')
    return ok({ categories: byCategory, technology_count: found.length, social_profiles: social }, sources, note)
  },
}

/** Detailed detection with evidence from headers, cookies, scripts, meta, markup, MX and TXT records. */
export const detectedTechnologies: SectionProvider = {
  name: 'detected_technologies',
  ttlSeconds: 3 * DAY,
  async run(inputs) {
    const { home, dns, dnsError, found } = await detection(inputs)
    const verification = dns.txt.map((t) => /^([A-Za-z0-9_.-]+?)[-_]?(?:site|domain)?[-_]?verification[=:]/i.exec(t)?.[0]).filter(Boolean)
    return ok(
      {
        technologies: found,
        dns: { mx: dns.mx, spf: dns.txt.filter((t) => t.startsWith('v=spf1')), verification_records: verification },
        signals_read: { headers: Object.keys(home.headers).length, cookies: home.cookies.length, scripts: home.scripts.length },
      },
      [home.url, ...dns.sources],
      dnsError,
    )
  },
}

/** One leader as the people section lists them. */
export interface Person {
  name: string
  title: string | null
  profile_urls: string[]
  source: string
}

/**
 * The people section's leaders by lower-cased name: the first spelling, source and title given, and
 * the profile URLs of every sighting. A person seen again gets the URLs not yet listed, found in a Set
 * kept beside the list: rebuilding the list on each sighting cost the square of the links a page
 * gives one name (34 s of CPU for a team page of 1.2 MB).
 */
export class PeopleFound {
  private readonly byName = new Map<string, { person: Person; seen: Set<string> | null }>()

  /** One sighting; a person seen once keeps its URLs as given, from the second sighting on each is listed once. */
  add(name: string | null, title: string | null, urls: string[], source: string): void {
    if (!name) return
    const key = name.toLowerCase()
    const prior = this.byName.get(key)
    if (!prior) {
      this.byName.set(key, { person: { name, title, profile_urls: urls, source }, seen: null })
      return
    }
    const { person } = prior
    person.title ??= title
    if (!prior.seen) {
      prior.seen = new Set(person.profile_urls)
      person.profile_urls = [...prior.seen]
    }
    for (const url of urls) {
      if (prior.seen.has(url)) continue
      prior.seen.add(url)
      person.profile_urls.push(url)
    }
  }

  /** Everyone seen, in the order first seen. */
  list(): Person[] {
    return [...this.byName.values()].map((p) => p.person)
  }
}

/** Leaders from JSON-LD Person entries, Wikidata CEO and founders, and profile links on the team page. */
export const people: SectionProvider = {
  name: 'people',
  ttlSeconds: 7 * DAY,
  async run(inputs) {
    const home = await homepage(inputs)
    const team = await pages(inputs, ['team', 'about'])
    const found = new PeopleFound()
    for (const p of [home, ...team]) {
      for (const person of ldOfType([p], ['Person']))
        found.add(
          str(person.name),
          str(person.jobTitle),
          arr(person.sameAs)
            .map(str)
            .filter((u): u is string => !!u),
          p.url,
        )
      for (const org of ldOfType([p], ['Organization', 'Corporation'])) {
        for (const f of arr(org.founder)) found.add(str((f as Record<string, unknown>)?.name ?? f), 'Founder', [], p.url)
      }
    }
    const wd = await wikidataOrNull(inputs)
    const entity = wd.value?.entity
    if (entity) {
      const wdUrl = `https://www.wikidata.org/wiki/${entity.id}`
      for (const [prop, title] of [
        ['P169', 'Chief executive officer'],
        ['P112', 'Founder'],
      ] as const) {
        for (const id of entityValues(entity, prop)) {
          const person = wd.value!.labels[id]
          const linkedin = person ? stringValues(person, 'P6634').map((h) => `https://www.linkedin.com/in/${h}`) : []
          found.add(labelOf(person), title, linkedin, wdUrl)
        }
      }
    }
    const profileLinks = team.flatMap((p) =>
      p.links.filter((l) => /linkedin\.com\/in\//i.test(l.href)).map((l) => ({ url: l.href, text: l.text && !/linkedin/i.test(l.text) ? l.text : null, source: p.url })),
    )
    for (const l of profileLinks) if (l.text) found.add(l.text, null, [l.url], l.source)
    const list = found.list()
    const unmatched = profileLinks.filter((l) => !l.text).map((l) => ({ url: l.url, source: l.source }))
    const sources = [home.url, ...team.map((p) => p.url), ...(entity ? wd.value!.sources : [])]
    if (!list.length && !unmatched.length)
      return unavailable(`No leadership data found: no Person JSON-LD or profile links on ${inputs.domain}'s team/about pages and no Wikidata CEO or founders.`, sources)
    return ok({ people: list, unnamed_profile_links: unmatched }, sources, wd.error)
  },
}

/** Contact points, emails, phones, address and contact page. */
export const contact: SectionProvider = {
  name: 'contact',
  ttlSeconds: 7 * DAY,
  async run(inputs) {
    const home = await homepage(inputs)
    const contactPage = await page(inputs, 'contact')
    const all = [home, ...(contactPage ? [contactPage] : [])]
    const orgs = ldOfType(all, ORGANIZATION_TYPES)
    const points = [...orgs.flatMap((o) => arr(o.contactPoint)), ...ldOfType(all, ['ContactPoint'])].map((c) => {
      const o = c as Record<string, unknown>
      return { type: str(o.contactType), telephone: str(o.telephone), email: str(o.email), url: str(o.url), languages: arr(o.availableLanguage).map(str).filter(Boolean) }
    })
    const emails = new Set<string>()
    const phones = new Set<string>()
    for (const p of all)
      for (const l of p.links) {
        // A link that is not valid percent-encoding names no address: left out.
        const email = l.href.startsWith('mailto:') ? decodeUriPart(l.href.slice(7).split('?')[0]) : null
        if (email) emails.add(email.toLowerCase())
        const phone = l.href.startsWith('tel:') ? decodeUriPart(l.href.slice(4)) : null
        if (phone) phones.add(phone.trim())
      }
    for (const c of points) if (c.email) emails.add(c.email.replace(/^mailto:/, '').toLowerCase())
    for (const o of orgs) {
      if (str(o.email))
        emails.add(
          str(o.email)!
            .replace(/^mailto:/, '')
            .toLowerCase(),
        )
      if (str(o.telephone)) phones.add(str(o.telephone)!)
    }
    const addresses = [...new Set(orgs.map((o) => addressText(o.address)).filter((a): a is string => !!a))]
    const data = { contact_page: contactPage?.url ?? null, contact_points: points, emails: [...emails], phones: [...phones], addresses, social_profiles: socialProfiles(home) }
    if (!data.contact_page && !points.length && !emails.size && !phones.size && !addresses.length) return unavailable(`No contact details found on ${inputs.domain}.`, [home.url])
    return ok(
      data,
      all.map((p) => p.url),
    )
  },
}
