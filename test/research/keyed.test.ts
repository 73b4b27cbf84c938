import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { readConfig } from '../../src/config'
import type { Env } from '../../src/env'
import { buildReport } from '../../src/research/report'
import type { SectionName } from '../../src/research/types'
import { createContext } from '../../src/runtime/execute'
import { createLogger } from '../../src/runtime/log'
import { mockFetch, request, newCaller } from '../helpers'
import { createFakeLlm } from '../llm/fake-llm'
import { DOMAIN, KEYS, keyedUpstreams, openUpstreams, PNG } from './fakes'
import { getAction } from '../../src/actions/registry'
import { takeScreenshot } from '../../src/providers/screenshot/client'
import type { ActionContext } from '../../src/runtime/context'

/** A context as the runtime builds it, with extra settings (the Worker's bindings are fixed per test run). */
function contextWith(overrides: Partial<Env>, accountId: string) {
  const e = { ...env, ...overrides } as Env
  const ctx = createContext(
    { env: e, config: readConfig(e), log: createLogger({ test: 'research' }), actions: getAction, waitUntil: () => undefined },
    { account: { id: accountId, teamIds: [] }, requestId: 'req_test', workflowId: null, signal: new AbortController().signal },
    `run_keyed${crypto.randomUUID().replace(/-/g, '')}`,
    false,
  )
  // Steps are memoized in run_steps, which needs a run row; these direct runs have none.
  ctx.step = (_name, fn) => fn()
  return ctx
}

describe('keyed and composed research sections', () => {
  it('reads keywords, reviews, funding, financials and a screenshot when their settings are present', async () => {
    const { accountId, token } = await newCaller('Keyed')
    const seen = mockFetch(openUpstreams(), keyedUpstreams())
    const sections: SectionName[] = ['search_keywords', 'reviews', 'funding_history', 'financials', 'homepage_screenshot', 'visual_timeline', 'product_summary']
    const report = await buildReport(contextWith(KEYS, accountId), DOMAIN, sections, false)
    const s = report.sections

    expect(s.search_keywords?.data).toMatchObject({
      total: 2,
      organic_count: 2,
      keywords: [{ keyword: 'warehouse robots', search_volume: 2900, cpc_usd: 6.15, position: 3, type: 'organic' }, { keyword: 'acme robotics' }],
    })
    expect(s.reviews?.data).toEqual({ sites: [expect.objectContaining({ site: 'Trustpilot', trust_score: 4.4, stars: 4.5, review_count: 318 })] })
    expect(s.product_summary?.data).toMatchObject({ review_ratings: { sites: [{ site: 'Trustpilot' }] } })
    expect(s.funding_history?.data).toMatchObject({
      organization: 'Acme Robotics',
      total_usd: 140000000,
      rounds: [{ name: 'Series B - Acme Robotics', lead_investors: ['Sample Capital'] }, { announced_on: '2015-06-01' }],
    })

    expect(s.financials?.status).toBe('ok')
    expect(s.financials?.data).toMatchObject({ cik: '0009990001', matched_via: 'Wikidata SEC CIK (P5531)', public_float: { value_usd: 2600000000, as_of: '2024-06-30' } })
    const fy2024 = (s.financials?.data as { annual: Record<string, unknown>[] }).annual[0]
    expect(fy2024).toMatchObject({ fiscal_year: 2024, revenue_usd: 500000000, net_income_usd: 50000000, net_margin: 0.1, operating_margin: 0.15, gross_margin: 0.4 })
    const edgar = seen.find((r) => r.url.startsWith('https://data.sec.gov/'))!
    expect(edgar.headers.get('user-agent')).toContain('research@acme.test')

    expect(s.homepage_screenshot?.data).toMatchObject({ content_type: 'image/png', page_url: `https://${DOMAIN}/`, bytes: PNG.byteLength })
    const png = await request('GET', (s.homepage_screenshot?.data as { url: string }).url, { token })
    expect(png.status).toBe(200)
    expect(png.headers.get('content-type')).toBe('image/png')

    const kinds = (s.visual_timeline?.data as { milestones: { kind: string; date: string }[] }).milestones.map((m) => `${m.date} ${m.kind}`)
    expect(kinds[0]).toBe('2011-03-15 founding')
    expect(kinds).toEqual(expect.arrayContaining(['2015-06-01 funding', '2018-09-12 funding', '2024-12-31 financials', '2026-10-12 news', '2026-09-15 blog']))
    const dates = kinds.map((k) => k.slice(0, 10))
    expect([...dates].sort()).toEqual(dates)
    expect(report.summary.error).toEqual([])
  })

  it('says which setting is missing and does not call the keyed upstream', async () => {
    const { accountId } = await newCaller('Keyed missing')
    const seen = mockFetch(openUpstreams(), keyedUpstreams())
    const report = await buildReport(contextWith({ DATAFORSEO_LOGIN: 'login@acme.test' }, accountId), DOMAIN, ['search_keywords', 'homepage_screenshot'], false)
    expect(report.sections.search_keywords).toMatchObject({ status: 'unavailable', note: 'Not configured: set DATAFORSEO_PASSWORD.' })
    expect(report.sections.homepage_screenshot).toMatchObject({ status: 'unavailable', note: 'Not configured: set CF_ACCOUNT_ID.' })
    expect(seen).toHaveLength(0)
  })

  it('reports a rejected key as an error of that section only', async () => {
    const { accountId } = await newCaller('Keyed rejected')
    mockFetch(openUpstreams(), keyedUpstreams())
    const report = await buildReport(contextWith({ ...KEYS, TRUSTPILOT_API_KEY: 'wrong' }, accountId), DOMAIN, ['reviews', 'web_traffic'], false)
    expect(report.sections.reviews).toMatchObject({ status: 'error', note: 'Trustpilot rejected TRUSTPILOT_API_KEY' })
    expect(report.sections.web_traffic?.status).toBe('ok')
  })

  it('writes overview, product summary and competitors with the model, citing the sections they came from', async () => {
    const { accountId } = await newCaller('Model parts')
    const llm = createFakeLlm({ keys: { openai: 'sk-test-openai' } })
    mockFetch((req) => llm.handle(req), openUpstreams())
    const report = await buildReport(contextWith({ OPENAI_API_KEY: 'sk-test-openai' }, accountId), DOMAIN, ['company_overview', 'competitors'], false)
    const overview = report.sections.company_overview?.data as { summary: { text: string; written_from: string[]; model: string } }
    expect(overview.summary).toMatchObject({ text: expect.any(String), model: expect.stringContaining('openai') })
    const comp = report.sections.competitors
    expect(comp?.status).toBe('ok')
    expect((comp?.data as { written_from: string[] }).written_from).toEqual(['company_overview', 'product_summary'])
    expect(comp?.sources).toContain(`https://${DOMAIN}/`)
    expect(report.sections.product_summary).toBeUndefined()
    const names = llm.calls.map((c) => c.schemaName).sort()
    expect(names).toEqual(['company_overview_summary', 'competitors', 'product_summary'])
    const competitorCall = llm.calls.find((c) => c.schemaName === 'competitors')!
    expect(competitorCall.prompt).toContain('Acme Picker')
  })

  it('reports a model answer of the wrong shape as the competitors section’s upstream error, not as an unexpected failure', async () => {
    const { accountId } = await newCaller('Model shape')
    const llm = createFakeLlm({ keys: { openai: 'sk-test-openai' }, respond: (call) => (call.schemaName === 'competitors' ? { object: { competitors: [null], caveat: 'none' } } : undefined) })
    mockFetch((req) => llm.handle(req), openUpstreams())
    const errors = vi.spyOn(console, 'error')
    const report = await buildReport(contextWith({ OPENAI_API_KEY: 'sk-test-openai' }, accountId), DOMAIN, ['competitors'], false)
    expect(report.sections.competitors).toMatchObject({ status: 'error', note: 'OpenAI answered with output that does not match the requested JSON schema' })
    expect(errors.mock.calls.flat().join('\n')).not.toContain('research section failed')
  })

  it.each([
    ['text/html; charset=utf-8', 'text/html'],
    [null, 'no content type'],
  ])('reports a screenshot success that is no image (%s) as a wrong answer, not as "answered 200: <body>"', async (type, shown) => {
    const headers: Record<string, string> = type ? { 'content-type': type } : {}
    const ctx = {
      env: { CF_ACCOUNT_ID: 'cf-acct', CF_BROWSER_RENDERING_TOKEN: 'cf-token' },
      fetch: async () => new Response(type ? '<html>sign in</html>' : null, { headers }),
    } as unknown as ActionContext
    await expect(takeScreenshot(ctx, `https://${DOMAIN}/`)).rejects.toMatchObject({
      name: 'UpstreamError',
      kind: 'invalid',
      message: `Cloudflare Browser Rendering answered with ${shown}, not an image`,
    })
  })
})
