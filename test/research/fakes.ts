import { SECTION_NAMES } from '../../src/research/types'
import type { Env } from '../../src/env'
import { json } from '../helpers'
import bskyProfile from '../fixtures/bluesky/profile.json'
import cbAutocomplete from '../fixtures/crunchbase/autocomplete.json'
import cbOrganization from '../fixtures/crunchbase/organization.json'
import rankedKeywords from '../fixtures/dataforseo/ranked_keywords.json'
import dnsMx from '../fixtures/dns/mx.json'
import dnsTxt from '../fixtures/dns/txt.json'
import companyFacts from '../fixtures/edgar/companyfacts.json'
import artlist from '../fixtures/gdelt/artlist.json'
import greenhouse from '../fixtures/jobs/greenhouse.json'
import trancoRanks from '../fixtures/tranco/ranks.json'
import trustpilot from '../fixtures/trustpilot/find.json'
import wdEntities from '../fixtures/wikidata/entities.json'
import wdLabels from '../fixtures/wikidata/labels.json'
import wdSparql from '../fixtures/wikidata/sparql.json'

export const DOMAIN = 'acmerobotics.example'

/** The keyed providers' settings, as the fakes of keyedUpstreams expect them. */
export const KEYS = {
  DATAFORSEO_LOGIN: 'login@acme.test',
  DATAFORSEO_PASSWORD: 'dfs-pass',
  TRUSTPILOT_API_KEY: 'tp-key',
  CRUNCHBASE_API_KEY: 'cb-key',
  CF_ACCOUNT_ID: 'cf-acct',
  CF_BROWSER_RENDERING_TOKEN: 'cf-token',
  CONTACT_EMAIL: 'research@acme.test',
} satisfies Partial<Env>

/** `section_<name>: false` for every report section but the given ones. */
export const sectionsOffExcept = (...keep: string[]) => Object.fromEntries(SECTION_NAMES.filter((s) => !keep.includes(s)).map((s) => [`section_${s}`, false]))
const ORIGIN = `https://${DOMAIN}`

const ld = (o: unknown) => `<script type="application/ld+json">${JSON.stringify(o)}</script>`

const page = (title: string, head: string, body: string) => `<!doctype html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`

/** The fixture company site: Acme Robotics. */
export const SITE: Record<string, string> = {
  '/': page(
    'Acme Robotics | Warehouse robots that pick, pack and ship',
    `<meta name="description" content="Acme Robotics builds autonomous warehouse robots for e-commerce fulfilment.">
     <meta property="og:site_name" content="Acme Robotics"><meta property="og:image" content="${ORIGIN}/og.png">
     <meta name="generator" content="WordPress 6.6">
     <link rel="alternate" type="application/rss+xml" title="Acme blog" href="/feed.xml">
     <link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">
     <script src="https://www.googletagmanager.com/gtm.js?id=GTM-ABC123"></script>
     <script src="https://js.stripe.com/v3/"></script>
     <script src="/wp-content/themes/acme/app.js"></script>
     ${ld({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Acme Robotics', url: ORIGIN, foundingDate: '2011', logo: `${ORIGIN}/logo.png`, address: { '@type': 'PostalAddress', streetAddress: '1 Market St', addressLocality: 'San Francisco', addressRegion: 'CA', postalCode: '94105', addressCountry: 'US' }, contactPoint: [{ '@type': 'ContactPoint', contactType: 'sales', telephone: '+1-415-555-0100', email: 'sales@acmerobotics.example' }], founder: [{ '@type': 'Person', name: 'John Doe' }] })}`,
    `<nav><a href="/about-us">About</a> <a href="/leadership">Leadership</a> <a href="/careers">Careers</a> <a href="/contact">Contact</a> <a href="/pricing">Pricing</a></nav>
     <h1>Warehouse robots that pick, pack and ship</h1><p>Acme robots work alongside people in 200 warehouses.</p>
     <footer><a href="https://twitter.com/acmerobotics">X</a> <a href="https://www.linkedin.com/company/acme-robotics">LinkedIn</a>
     <a href="https://bsky.app/profile/acmerobotics.example">Bluesky</a> <a href="https://twitter.com/intent/tweet?text=hi">Share</a></footer>`,
  ),
  '/about-us': page('About Acme', '', '<h1>About us</h1><p>Founded in 2011 in San Francisco, Acme Robotics automates order fulfilment.</p>'),
  '/leadership': page(
    'Leadership',
    ld({ '@context': 'https://schema.org', '@type': 'Person', name: 'Jane Roe', jobTitle: 'Chief Executive Officer', sameAs: ['https://www.linkedin.com/in/janeroe'] }),
    '<h2>Jane Roe</h2><p>CEO</p><a href="https://www.linkedin.com/in/janeroe">LinkedIn</a><h2>Max Mustermann</h2><a href="https://www.linkedin.com/in/maxm">Max Mustermann</a>',
  ),
  '/careers': page('Careers', '', '<h1>Join us</h1><p>See our <a href="https://boards.greenhouse.io/acmerobotics">open roles</a>.</p>'),
  '/contact': page(
    'Contact',
    '',
    '<h1>Contact</h1><p><a href="mailto:hello@acmerobotics.example">Email us</a> or call <a href="tel:+1-415-555-0199">+1 415 555 0199</a></p><p><a href="mailto:%ZZ">Broken link</a> <a href="tel:%E0">Broken number</a></p>',
  ),
  '/pricing': page(
    'Pricing',
    ld({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Acme Picker',
      description: 'Autonomous picking robot',
      offers: { '@type': 'Offer', price: '1999', priceCurrency: 'USD', name: 'Monthly lease' },
      aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.6', reviewCount: '87' },
    }),
    '<h1>Pricing</h1><h2>Picker lease</h2><p>$1,999 per robot per month.</p>',
  ),
}

export const FEED = `<?xml version="1.0"?><rss version="2.0"><channel><title>Acme blog</title>
<item><title>Acme Picker 2 launches</title><link>${ORIGIN}/blog/picker-2</link><pubDate>Tue, 15 Sep 2026 10:00:00 GMT</pubDate></item>
<item><title><![CDATA[Our Series B & what's next]]></title><link>${ORIGIN}/blog/series-b</link><pubDate>Wed, 12 Sep 2018 09:00:00 GMT</pubDate></item>
</channel></rss>`

/** Answers the fixture site's pages (404 elsewhere on it). */
export function siteHandler(req: Request): Response | null {
  const url = new URL(req.url)
  if (url.hostname !== DOMAIN) return null
  if (url.pathname === '/feed.xml') return new Response(FEED, { headers: { 'content-type': 'application/rss+xml' } })
  const html = SITE[url.pathname]
  if (!html) return new Response('<h1>Not found</h1>', { status: 404, headers: { 'content-type': 'text/html' } })
  const headers = new Headers({ 'content-type': 'text/html; charset=utf-8', server: 'cloudflare', 'cf-ray': '8abc-SFO', 'strict-transport-security': 'max-age=31536000' })
  headers.append('set-cookie', '__cf_bm=abc; Path=/; HttpOnly')
  headers.append('set-cookie', 'hubspotutk=def; Path=/')
  return new Response(html, { headers })
}

/** Options to break or change individual upstreams. */
export interface UpstreamOptions {
  /** Status for an upstream by name to answer with instead of its payload. */
  fail?: Partial<Record<'tranco' | 'gdelt' | 'wikidata' | 'greenhouse' | 'dns' | 'site', number>>
}

function failing(name: keyof NonNullable<UpstreamOptions['fail']>, opts: UpstreamOptions): Response | null {
  const status = opts.fail?.[name]
  return status ? new Response(`${name} is down`, { status }) : null
}

/**
 * Faithful fakes of every open upstream the research reads, checking method, path and query the way
 * the real APIs route them.
 */
export function openUpstreams(opts: UpstreamOptions = {}) {
  return (req: Request): Response | null => {
    const url = new URL(req.url)
    const q = url.searchParams
    if (url.hostname === DOMAIN) return failing('site', opts) ?? siteHandler(req)
    if (url.hostname === 'cloudflare-dns.com' && url.pathname === '/dns-query') {
      if (req.headers.get('accept') !== 'application/dns-json') return new Response('bad accept', { status: 415 })
      if (q.get('name') !== DOMAIN) return json({ Status: 3 })
      return failing('dns', opts) ?? json(q.get('type') === 'MX' ? dnsMx : q.get('type') === 'TXT' ? dnsTxt : { Status: 0 })
    }
    if (url.hostname === 'query.wikidata.org' && url.pathname === '/sparql') {
      const query = q.get('query') ?? ''
      if (failing('wikidata', opts)) return failing('wikidata', opts)
      return json(query.includes(`<https://www.${DOMAIN}/>`) && query.includes('wdt:P856') ? wdSparql : { head: { vars: ['item'] }, results: { bindings: [] } })
    }
    if (url.hostname === 'www.wikidata.org' && url.pathname === '/w/api.php' && q.get('action') === 'wbgetentities') {
      const ids = (q.get('ids') ?? '').split('|')
      if (ids.includes('Q999001')) return json(wdEntities)
      return json(wdLabels)
    }
    if (url.hostname === 'api.gdeltproject.org' && url.pathname === '/api/v2/doc/doc') {
      if (q.get('mode') !== 'artlist' || q.get('format') !== 'json') return new Response('Invalid mode', { status: 200 })
      return failing('gdelt', opts) ?? json(q.get('query') === '"Acme Robotics"' ? artlist : {})
    }
    if (url.hostname === 'boards-api.greenhouse.io' && url.pathname === '/v1/boards/acmerobotics/jobs') return failing('greenhouse', opts) ?? json(greenhouse)
    if (url.hostname === 'tranco-list.eu' && url.pathname === `/api/ranks/domain/${DOMAIN}`) return failing('tranco', opts) ?? json(trancoRanks)
    if (url.hostname === 'public.api.bsky.app' && url.pathname === '/xrpc/app.bsky.actor.getProfile') {
      return q.get('actor') === DOMAIN ? json(bskyProfile) : json({ error: 'InvalidRequest', message: 'Profile not found' }, 400)
    }
    if (url.hostname === 'data.sec.gov' && url.pathname === '/api/xbrl/companyfacts/CIK0009990001.json') {
      if (!/@/.test(req.headers.get('user-agent') ?? '')) return new Response('Undeclared automated tool', { status: 403 })
      return json(companyFacts)
    }
    return null
  }
}

/** Fakes of the keyed upstreams (DataForSEO, Trustpilot, Crunchbase, Browser Rendering), checking credentials. */
export function keyedUpstreams() {
  return async (req: Request): Promise<Response | null> => {
    const url = new URL(req.url)
    if (url.hostname === 'api.dataforseo.com' && url.pathname === '/v3/dataforseo_labs/google/ranked_keywords/live') {
      if (req.method !== 'POST') return json({ status_code: 40501, status_message: 'Method not allowed' }, 405)
      if (req.headers.get('authorization') !== `Basic ${btoa('login@acme.test:dfs-pass')}`) return json({ status_code: 40100, status_message: 'Unauthorized' }, 401)
      const body = (await req.json()) as { target: string }[]
      if (!Array.isArray(body) || body[0]?.target !== DOMAIN) return json({ status_code: 40501, status_message: 'Invalid Field: target' })
      return json(rankedKeywords)
    }
    if (url.hostname === 'api.trustpilot.com' && url.pathname === '/v1/business-units/find') {
      if (req.headers.get('apikey') !== 'tp-key') return json({ message: 'Unauthorized' }, 401)
      return url.searchParams.get('name') === DOMAIN ? json(trustpilot) : json({ message: 'Not found' }, 404)
    }
    if (url.hostname === 'api.crunchbase.com') {
      if (req.headers.get('x-cb-user-key') !== 'cb-key') return json([{ code: 'LA401', message: 'Unauthorized' }], 401)
      if (url.pathname === '/api/v4/autocompletes' && url.searchParams.get('collection_ids') === 'organizations') return json(cbAutocomplete)
      if (url.pathname === '/api/v4/entities/organizations/acme-robotics' && url.searchParams.get('card_ids') === 'raised_funding_rounds') return json(cbOrganization)
      if (url.pathname.startsWith('/api/v4/entities/organizations/'))
        return json({ properties: { identifier: { value: 'Other', permalink: 'other' }, website_url: 'https://other.example' }, cards: {} })
    }
    if (url.hostname === 'api.cloudflare.com' && url.pathname === '/client/v4/accounts/cf-acct/browser-rendering/screenshot') {
      if (req.method !== 'POST' || req.headers.get('authorization') !== 'Bearer cf-token') return json({ success: false, errors: [{ code: 10000, message: 'Authentication error' }] }, 401)
      const body = (await req.json()) as { url?: string }
      if (body.url !== `https://${DOMAIN}/`) return json({ success: false, errors: [{ message: 'bad url' }] }, 400)
      return new Response(PNG, { headers: { 'content-type': 'image/png' } })
    }
    return null
  }
}

/** A 1x1 PNG. */
export const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))
