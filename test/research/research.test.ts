import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request, type SeenRequest } from '../helpers'
import { DOMAIN, openUpstreams, sectionsOffExcept } from './fakes'

const NAME = 'company_research_v2_run_full_research'

const hostsOf = (seen: SeenRequest[]) => [...new Set(seen.map((r) => new URL(r.url).hostname))].sort()

describe('company_research_v2_run_full_research', () => {
  it('builds a full report for the fixture company from open sources, with keyed sections naming their settings', async () => {
    const { token } = await newCaller('Research full')
    mockFetch(openUpstreams())
    const res = await action(NAME, { domain: `https://www.${DOMAIN.toUpperCase()}./` }, token)
    expect(res.status).toBe(200)
    const report = res.body.response
    expect(report.domain).toBe(DOMAIN)
    expect(Object.keys(report.sections)).toHaveLength(16)
    for (const s of Object.values(report.sections) as { fetched_at: string; duration_ms: number; sources: string[] }[]) {
      expect(Date.parse(s.fetched_at)).toBeGreaterThan(0)
      expect(s.duration_ms).toBeGreaterThanOrEqual(0)
      expect(Array.isArray(s.sources)).toBe(true)
    }
    const sec = report.sections

    expect(sec.company_overview.status).toBe('ok')
    expect(sec.company_overview.data.name).toEqual({ value: 'Acme Robotics', source: `https://${DOMAIN}/` })
    expect(sec.company_overview.data.employees.value).toEqual({ value: 1200, as_of: '2024-12-31' })
    expect(sec.company_overview.data.headquarters.value).toBe('San Francisco')
    expect(sec.company_overview.data.industry.value).toEqual(['robotics'])
    expect(sec.company_overview.data.founded.value).toBe('2011-03-15')
    expect(sec.company_overview.data.summary).toBeNull()
    expect(sec.company_overview.note).toContain('OPENAI_API_KEY')
    expect(sec.company_overview.sources).toContain(`https://${DOMAIN}/about-us`)

    const tech = sec.detected_technologies.data.technologies.map((t: { name: string }) => t.name)
    expect(tech).toEqual(expect.arrayContaining(['WordPress', 'Google Tag Manager', 'Stripe', 'Cloudflare', 'HubSpot', 'Google Workspace', 'SendGrid', 'Atlassian', 'Slack', 'Google Fonts', 'HSTS']))
    expect(sec.detected_technologies.data.dns.mx).toEqual(['aspmx.l.google.com.', 'alt1.aspmx.l.google.com.'])
    expect(sec.technology_stack.data.categories.Payments).toEqual(['Stripe'])
    const bsky = sec.technology_stack.data.social_profiles.find((p: { network: string }) => p.network === 'bluesky')
    expect(bsky).toMatchObject({ followers: 4821, followers_source: expect.stringContaining('app.bsky.actor.getProfile') })
    expect(sec.technology_stack.data.social_profiles.map((p: { network: string }) => p.network).sort()).toEqual(['bluesky', 'linkedin', 'x'])

    expect(sec.people.status).toBe('ok')
    const jane = sec.people.data.people.find((p: { name: string }) => p.name === 'Jane Roe')
    expect(jane).toMatchObject({ title: 'Chief Executive Officer', profile_urls: ['https://www.linkedin.com/in/janeroe'] })
    expect(sec.people.data.people.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['John Doe', 'Max Mustermann']))

    // The contact page also links "mailto:%ZZ" and "tel:%E0", which are not valid percent-encoding: left out (before, they failed the section).
    expect(sec.contact.status).toBe('ok')
    expect(sec.contact.data.emails.sort()).toEqual(['hello@acmerobotics.example', 'sales@acmerobotics.example'])
    expect(sec.contact.data.phones).toContain('+1-415-555-0199')
    expect(sec.contact.data.addresses).toEqual(['1 Market St, San Francisco, CA, 94105, US'])
    expect(sec.contact.data.contact_page).toBe(`https://${DOMAIN}/contact`)

    expect(sec.product_summary.data.products[0]).toMatchObject({ name: 'Acme Picker', rating: { value: 4.6, count: 87, best: 5 } })

    expect(sec.job_openings.data.count).toBe(2)
    expect(sec.job_openings.data.boards).toEqual([{ kind: 'greenhouse', token: 'acmerobotics' }])
    expect(sec.job_openings.sources).toContain('https://boards-api.greenhouse.io/v1/boards/acmerobotics/jobs')

    expect(sec.news.data.articles).toHaveLength(2)
    expect(sec.news.data.articles[0]).toMatchObject({ title: 'Acme Robotics opens Texas plant', published_at: '2026-10-12T09:15:00Z', source: 'news.example.org' })
    expect(sec.news.data.company_posts[1].title).toBe("Our Series B & what's next")

    expect(sec.web_traffic.data).toMatchObject({ metric: 'rank', latest_rank: 48210, latest_date: '2026-11-01', best_rank: 47950 })
    expect(sec.web_traffic.note).toContain('not a count of visits')

    expect(sec.financials).toMatchObject({ status: 'unavailable', note: expect.stringContaining('CONTACT_EMAIL') })
    expect(sec.search_keywords).toMatchObject({ status: 'unavailable', note: expect.stringContaining('DATAFORSEO_LOGIN') })
    expect(sec.reviews).toMatchObject({ status: 'unavailable', note: expect.stringContaining('TRUSTPILOT_API_KEY') })
    expect(sec.funding_history).toMatchObject({ status: 'unavailable', note: expect.stringContaining('CRUNCHBASE_API_KEY') })
    expect(sec.homepage_screenshot).toMatchObject({ status: 'unavailable', note: expect.stringContaining('CF_ACCOUNT_ID') })
    expect(sec.competitors).toMatchObject({ status: 'unavailable', note: expect.stringContaining('OPENAI_API_KEY') })

    expect(sec.visual_timeline.status).toBe('ok')
    expect(sec.visual_timeline.data.milestones[0]).toMatchObject({ date: '2011-03-15', label: 'Founded', kind: 'founding' })
    const svg = await request('GET', sec.visual_timeline.data.url, { token })
    expect(svg.status).toBe(200)
    expect(svg.headers.get('content-type')).toBe('image/svg+xml')
    expect(svg.body).toContain('<svg')
    expect(svg.body).toContain('Acme Robotics')
    expect(report.summary.error).toEqual([])
  })

  it('serves a cached report inline without fetching, and force_refresh fetches and rewrites it', async () => {
    const { token } = await newCaller('Research cache')
    const first = mockFetch(openUpstreams())
    const body = { domain: DOMAIN, section_news: true, section_web_traffic: true }
    const only = sectionsOffExcept('news', 'web_traffic')
    const miss = await action(NAME, { ...body, ...only }, token)
    expect(miss.status).toBe(200)
    expect(miss.body.response.cache.hits).toEqual([])
    expect(hostsOf(first)).toEqual(['acmerobotics.example', 'api.gdeltproject.org', 'tranco-list.eu'])

    const second = mockFetch(openUpstreams())
    const hit = await action(NAME, { ...body, ...only }, token, { prefer: 'wait=0' })
    expect(hit.status).toBe(200)
    expect(second).toHaveLength(0)
    expect(hit.body.response.cache.hits.sort()).toEqual(['news', 'web_traffic'])
    expect(hit.body.response.sections.news.cached).toBe(true)
    expect(hit.body.response.sections.news.fetched_at).toBe(miss.body.response.sections.news.fetched_at)

    const third = mockFetch(openUpstreams())
    const refreshed = await action(NAME, { ...body, ...only, force_refresh: true }, token)
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.response.cache).toEqual({ hits: [], refreshed: true })
    expect(third.some((r) => r.url.startsWith('https://tranco-list.eu/'))).toBe(true)
    expect(refreshed.body.response.sections.web_traffic.fetched_at > miss.body.response.sections.web_traffic.fetched_at).toBe(true)

    const fourth = mockFetch(openUpstreams())
    const after = await action(NAME, { ...body, ...only }, token, { prefer: 'wait=0' })
    expect(fourth).toHaveLength(0)
    expect(after.body.response.sections.web_traffic.fetched_at).toBe(refreshed.body.response.sections.web_traffic.fetched_at)
  })

  it('keeps the report when one source fails: the failing section is an error, the rest are ok', async () => {
    const { token } = await newCaller('Research partial')
    mockFetch(openUpstreams({ fail: { tranco: 400, greenhouse: 500, dns: 400 } }))
    const res = await action(NAME, { domain: DOMAIN, section_visual_timeline: false }, token)
    expect(res.status).toBe(200)
    const sec = res.body.response.sections
    expect(sec.web_traffic).toMatchObject({ status: 'error', data: null, note: 'Tranco answered 400' })
    expect(sec.job_openings).toMatchObject({ status: 'error', note: expect.stringContaining('Greenhouse answered 500') })
    expect(sec.detected_technologies.status).toBe('ok')
    expect(sec.detected_technologies.note).toContain('DNS lookups failed')
    expect(sec.company_overview.status).toBe('ok')
    expect(res.body.response.summary.error.sort()).toEqual(['job_openings', 'web_traffic'])
  })

  it('reports every section as an error, not a 500, when the website cannot be reached', async () => {
    const { token } = await newCaller('Research down')
    mockFetch(openUpstreams({ fail: { site: 404 } }))
    const res = await action(NAME, { domain: DOMAIN, section_news: false, section_web_traffic: false, section_financials: false }, token)
    expect(res.status).toBe(200)
    expect(res.body.response.sections.company_overview).toMatchObject({ status: 'error', note: expect.stringContaining('did not answer with an HTML page') })
  })

  it.each([
    ['an IP address', '93.184.216.34'],
    ['a URL with a path', 'https://example.com/about'],
    ['a non-domain', 'not a domain'],
    ['a single label', 'localhost'],
    ['a port', 'example.com:8080'],
    ['another scheme', 'ftp://example.com'],
  ])('answers 400 naming domain for %s', async (_label, domain) => {
    const { token } = await newCaller('Research validation')
    const res = await action(NAME, { domain }, token)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    expect(res.body.details[0].path).toBe('/domain')
  })
})

describe('company research artifacts', () => {
  it('serves an artifact only to the account that owns it', async () => {
    const owner = await newCaller('Artifact owner')
    const other = await newCaller('Artifact other')
    mockFetch(openUpstreams())
    const res = await action(NAME, { domain: DOMAIN, section_news: false, section_company_overview: true }, owner.token)
    const url = res.body.response.sections.visual_timeline.data.url
    expect((await request('GET', url, { token: other.token })).status).toBe(404)
    expect((await request('GET', url, {})).status).toBe(401)
    expect((await request('GET', '/v1/artifacts/art_doesnotexist', { token: owner.token })).status).toBe(404)
  })
})
