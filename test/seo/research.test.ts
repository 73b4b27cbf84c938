import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readConfig } from '../../src/config'
import { basicAuthorization } from '../../src/lib/crypto'
import type { Env } from '../../src/env'
import { createContext } from '../../src/runtime/execute'
import { createLogger } from '../../src/runtime/log'
import { runResearch } from '../../src/seo/research'
import anthropicAnswer from '../fixtures/anthropic-search/messages-web-search.json'
import ideas from '../fixtures/dataforseo-keywords/keyword_ideas.json'
import ranked from '../fixtures/dataforseo-keywords/ranked_keywords.json'
import serp from '../fixtures/dataforseo-keywords/serp.json'
import openaiAnswer from '../fixtures/openai-search/responses-web-search.json'
import perplexityAnswer from '../fixtures/perplexity/sonar-answer.json'
import { ORIGIN, trailgear } from '../fixtures/sites/trailgear'
import { action, createAccount, json, mockFetch, newCaller, request, type Json, type SeenRequest } from '../helpers'
import { createFakeLlm } from '../llm/fake-llm'
import { getAction } from '../../src/actions/registry'

const NAME = 'aeo_seo_research_generate_research_action'
const TOPIC = 'trail running shoes'

function contextWith(accountId: string, extra: Partial<Env> = {}) {
  const e = { ...env, ...extra } as Env
  return createContext(
    { env: e, config: readConfig(e), log: createLogger({}), actions: getAction, waitUntil: () => undefined },
    { account: { id: accountId, teamIds: [] }, requestId: 'req_seo', workflowId: null, signal: new AbortController().signal },
    `run_seo_${crypto.randomUUID()}`,
    false,
    false,
  )
}

const bodyOf = async (req: Request): Promise<Json> => JSON.parse(await req.text())

/** Faithful fakes of the three engines: check method, path, auth and the tool in the body; answer the recorded shapes. */
function engines(opts: { anthropicStatus?: number } = {}) {
  return async (req: Request): Promise<Response | null> => {
    const url = new URL(req.url)
    if (url.host === 'api.perplexity.ai') {
      expect(req.method).toBe('POST')
      expect(url.pathname).toBe('/chat/completions')
      if (req.headers.get('authorization') !== 'Bearer pplx-test') return json({ error: { message: 'Invalid API key', type: 'invalid_api_key', code: 401 } }, 401)
      const b = await bodyOf(req)
      expect(b.model).toBe('sonar')
      expect(b.messages.at(-1).role).toBe('user')
      return json(perplexityAnswer)
    }
    if (url.host === 'api.openai.com' && url.pathname === '/v1/responses') {
      const b = await bodyOf(req)
      if (!Array.isArray(b.tools) || b.tools[0]?.type !== 'web_search') return null
      expect(req.headers.get('authorization')).toBe('Bearer sk-test-openai')
      expect(b.include).toEqual(['web_search_call.action.sources'])
      expect(typeof b.input).toBe('string')
      return json(openaiAnswer)
    }
    if (url.host === 'api.anthropic.com' && url.pathname === '/v1/messages') {
      const b = await bodyOf(req)
      if (!Array.isArray(b.tools) || b.tools[0]?.type !== 'web_search_20250305') return null
      expect(req.headers.get('x-api-key')).toBe('sk-ant-test')
      expect(req.headers.get('anthropic-version')).toBe('2023-06-01')
      expect(b.tools[0]).toMatchObject({ name: 'web_search', max_uses: 3 })
      if (opts.anthropicStatus) return json({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }, opts.anthropicStatus)
      return json(anthropicAnswer)
    }
    return null
  }
}

/** The login and passwords the DataForSEO fake accepts; Basic credentials are UTF-8 (RFC 7617). */
const DFS_CREDENTIALS = ['login@test:pw', 'login@test:pässwörd€🔑']
const basic = (text: string) => `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}`

/** A fake of the DataForSEO endpoints the research calls, checking Basic auth and the task body. */
async function dataforseo(req: Request): Promise<Response | null> {
  const url = new URL(req.url)
  if (url.host !== 'api.dataforseo.com') return null
  expect(DFS_CREDENTIALS.map(basic)).toContain(req.headers.get('authorization'))
  const [task] = await bodyOf(req)
  expect(task).toMatchObject({ location_code: 2840, language_code: 'en' })
  if (url.pathname === '/v3/dataforseo_labs/google/keyword_ideas/live') return json(ideas)
  if (url.pathname === '/v3/dataforseo_labs/google/ranked_keywords/live') {
    expect(task.target).toBe('trailgear.test')
    return json(ranked)
  }
  if (url.pathname === '/v3/serp/google/organic/live/advanced') return json({ ...serp, tasks: [{ ...serp.tasks[0], result: [{ ...serp.tasks[0].result[0], keyword: task.keyword }] }] })
  return json({ status_code: 40400, status_message: 'Not Found.' }, 404)
}

const ALL_KEYS = { PERPLEXITY_API_KEY: 'pplx-test', OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-ant-test' }
const hostsOf = (seen: SeenRequest[]) => new Set(seen.map((r) => new URL(r.url).host))

describe('aeo_seo_research_generate_research_action without engines, model or keyword provider', () => {
  it('answers inline with unavailable parts named by their settings, unmeasured candidates and rule-based recommendations', async () => {
    const seen = mockFetch(trailgear)
    const { token } = await newCaller()
    const res = await action(NAME, { topic: 'sleeping bag', website_url: `${ORIGIN}/` }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const r = res.body.response
    expect(r.site_domain).toBe('trailgear.test')
    expect(r.site_pages.status).toBe('ok')
    expect(r.site_pages.pages.length).toBeGreaterThan(3)
    expect(r.site_pages.pages_fetched).toBeLessThanOrEqual(20)
    expect(hostsOf(seen)).toEqual(new Set(['www.trailgear.test']))

    expect(r.ai_citations.status).toBe('unavailable')
    expect(r.ai_citations.note).toContain('PERPLEXITY_API_KEY')
    expect(r.ai_citations.engines.map((e: Json) => [e.engine, e.status])).toEqual([
      ['perplexity', 'unavailable'],
      ['openai_web_search', 'unavailable'],
      ['anthropic_web_search', 'unavailable'],
    ])
    expect(r.ai_citations.gaps).toEqual([])
    expect(r.questions.source).toBe('templates')
    expect(r.questions.items).toHaveLength(5)

    const kw = r.keyword_opportunities
    expect(kw.status).toBe('unavailable')
    expect(kw.measured).toBe(false)
    expect(kw.note).toContain('DATAFORSEO_LOGIN')
    expect(kw.keywords[0].keyword).toBe('sleeping bag')
    expect(kw.keywords.length).toBeGreaterThan(1)
    for (const k of kw.keywords) {
      expect(k).toMatchObject({ measured: false, search_volume: null, keyword_difficulty: null, cpc_usd: null, site_ranks: null, opportunity_score: null })
    }
    expect(kw.keywords.some((k: Json) => k.site_pages.length > 0)).toBe(true)

    expect(r.competitor_landscape.status).toBe('unavailable')
    expect(r.content_recommendations.source).toBe('rules')
    expect(r.content_recommendations.items.length).toBeGreaterThan(0)
    for (const item of r.content_recommendations.items) expect(item.evidence.length).toBeGreaterThan(0)
    expect(r.measurements.map((m: Json) => m.part)).toEqual([
      'site_pages',
      'questions',
      'keyword_opportunities',
      'ai_citations.perplexity',
      'ai_citations.openai_web_search',
      'ai_citations.anthropic_web_search',
      'competitor_landscape',
      'content_recommendations',
    ])
  })

  it('rejects a bad research_depth, a missing topic and a private website_url with 400s naming the field', async () => {
    const { token } = await newCaller()
    const depth = await action(NAME, { topic: TOPIC, website_url: 'https://example.com', research_depth: 'extreme' }, token)
    expect(depth.status).toBe(400)
    expect(JSON.stringify(depth.body)).toContain('research_depth')
    const topic = await action(NAME, { website_url: 'https://example.com' }, token)
    expect(topic.status).toBe(400)
    expect(JSON.stringify(topic.body)).toContain('topic')
    const local = await action(NAME, { topic: TOPIC, website_url: 'http://127.0.0.1/' }, token)
    expect(local.status).toBe(400)
  })
})

describe('aeo_seo_research with answer engines', () => {
  it('asks every question to the three engines and reports citations, gaps and competitors by registrable domain', async () => {
    const accountId = await createAccount()
    const rec = { category: 'aeo', content_type: 'guide', target_keyword: TOPIC, target_question: '', outline: ['a', 'b', 'c', 'd'], closes_gap: 'rei.com is cited' }
    const llm = createFakeLlm({
      keys: { openai: 'sk-test-openai', anthropic: 'sk-ant-test' },
      respond: (call) =>
        call.schemaName === 'content_recommendations'
          ? {
              object: {
                recommendations: [
                  { ...rec, title: 'Grounded piece', evidence_ids: ['C1', 'X9'] },
                  { ...rec, title: 'Ungrounded piece', evidence_ids: ['X1'] },
                ],
              },
            }
          : undefined,
    })
    const seen = mockFetch(trailgear, engines(), (req) => llm.handle(req))
    const report = await runResearch(contextWith(accountId, ALL_KEYS), { topic: TOPIC, website_url: `${ORIGIN}/`, research_depth: 'standard', optimization_focus: 'aeo_focused' })

    const n = report.questions.items.length
    expect(report.questions.source).toBe('model:gpt-5.4-nano')
    expect(report.ai_citations.status).toBe('ok')
    expect(report.ai_citations.engines.map((e) => [e.engine, e.status, e.questions_answered])).toEqual([
      ['perplexity', 'ok', n],
      ['openai_web_search', 'ok', n],
      ['anthropic_web_search', 'ok', n],
    ])
    expect(seen.filter((r) => r.url === 'https://api.perplexity.ai/chat/completions')).toHaveLength(n)

    const q = report.ai_citations.questions[0]
    const byEngine = Object.fromEntries(q.results.map((r) => [r.engine, r]))
    expect(byEngine.perplexity.site_cited).toBe(true)
    expect(byEngine.perplexity.site_urls).toEqual(['https://blog.trailgear.test/trail-shoes-guide'])
    expect(byEngine.openai_web_search.cited_domains).toEqual(['runrepeat.com', 'outdoorgearlab.com'])
    expect(byEngine.anthropic_web_search.competitors_cited).toEqual(['wikipedia.org', 'rei.com'])
    expect(q.site_cited_by).toEqual(['perplexity'])
    // Perplexity cites the site on every question, so no question is a gap.
    expect(report.ai_citations.gaps).toEqual([])
    expect(report.ai_citations.site_citation_rate).toBeCloseTo(1 / 3, 3)

    const top = report.competitor_landscape.competitors
    expect(top[0]).toMatchObject({ domain: 'rei.com', citations: 2 * n })
    expect(top.map((c) => c.domain)).not.toContain('trailgear.test')
    expect(top[0].examples.length).toBeGreaterThan(0)
    expect(report.content_recommendations.source).toBe('model:gpt-5.4')
    const recPrompt = llm.calls.find((c) => c.schemaName === 'content_recommendations')!.prompt
    expect(recPrompt).toContain('C1 [competitor')
    expect(report.content_recommendations.items.map((i) => i.title)).toEqual(['Grounded piece'])
    expect(report.content_recommendations.items[0].evidence.map((e) => e.id)).toEqual(['C1'])
    for (const m of report.measurements) expect(m.measured_at === null || !Number.isNaN(Date.parse(m.measured_at))).toBe(true)
  })

  it('still reports the other engines when one fails, and finds gaps where only competitors are cited', async () => {
    const accountId = await createAccount()
    mockFetch(trailgear, engines({ anthropicStatus: 500 }))
    const report = await runResearch(
      contextWith(accountId, { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: 'https://api.openai.com/v1' }),
      {
        topic: TOPIC,
        website_url: `${ORIGIN}/`,
        research_depth: 'standard',
        optimization_focus: 'balanced',
      },
      undefined,
    )
    const status = Object.fromEntries(report.ai_citations.engines.map((e) => [e.engine, e.status]))
    expect(status).toEqual({ perplexity: 'unavailable', openai_web_search: 'ok', anthropic_web_search: 'error' })
    const anthropic = report.ai_citations.engines.find((e) => e.engine === 'anthropic_web_search')!
    expect(anthropic.note).toContain('500')
    expect(report.ai_citations.status).toBe('ok')
    // OpenAI cites only competitors: every question is a gap.
    expect(report.ai_citations.gaps).toHaveLength(report.questions.items.length)
    expect(report.ai_citations.gaps[0]).toMatchObject({ engines: ['openai_web_search'], competitors: ['runrepeat.com', 'outdoorgearlab.com'] })
    expect(report.measurements.find((m) => m.part === 'ai_citations.anthropic_web_search')!.status).toBe('error')
  })

  it('writes rule-based recommendations from the gaps, each with its evidence, when the model fails', async () => {
    const accountId = await createAccount()
    mockFetch(trailgear, engines(), (req) => (new URL(req.url).host === 'api.openai.com' ? json({ error: { message: 'bad', type: 'invalid_request_error' } }, 400) : null))
    const report = await runResearch(contextWith(accountId, { OPENAI_API_KEY: 'sk-test-openai' }), {
      topic: TOPIC,
      website_url: `${ORIGIN}/`,
      research_depth: 'standard',
      optimization_focus: 'aeo_focused',
    })
    expect(report.questions.source).toBe('templates')
    expect(report.questions.note).toContain('could not write questions')
    const recs = report.content_recommendations
    expect(recs.source).toBe('rules')
    expect(recs.items[0]).toMatchObject({ category: 'aeo', priority: 'high' })
    expect(recs.items[0].evidence[0].kind).toBe('citation_gap')
    expect(recs.items[0].outline.length).toBeGreaterThan(2)
  })
})

describe('aeo_seo_research with a keyword data provider', () => {
  it('measures keywords with DataForSEO, marks where the site ranks and ranks SERP competitors', async () => {
    const accountId = await createAccount()
    const seen = mockFetch(trailgear, dataforseo)
    const report = await runResearch(contextWith(accountId, { DATAFORSEO_LOGIN: 'login@test', DATAFORSEO_PASSWORD: 'pw' }), {
      topic: TOPIC,
      website_url: `${ORIGIN}/`,
      research_depth: 'standard',
      optimization_focus: 'seo_focused',
    })
    const kw = report.keyword_opportunities
    expect(kw).toMatchObject({ status: 'ok', source: 'dataforseo', measured: true })
    const clean = kw.keywords.find((k) => k.keyword === 'how to clean trail running shoes')!
    expect(clean).toMatchObject({ measured: true, search_volume: 480, keyword_difficulty: 9, intent: 'informational', intent_source: 'provider', site_ranks: true, site_position: 7 })
    expect(kw.keywords.find((k) => k.keyword === TOPIC)).toMatchObject({ site_ranks: false, cpc_usd: 1.42, search_volume: 74000 })
    expect(kw.serps).toHaveLength(3)
    expect(seen.filter((r) => r.url.endsWith('/serp/google/organic/live/advanced'))).toHaveLength(3)
    const comp = report.competitor_landscape
    expect(comp.status).toBe('ok')
    expect(comp.competitors.slice(0, 2).map((c) => [c.domain, c.serp_appearances])).toEqual([
      ['rei.com', 3],
      ['runnersworld.com', 3],
    ])
    expect(comp.competitors.map((c) => c.domain)).not.toContain('trailgear.test')
    // seo_focused: the measured keyword pieces outrank the unmeasured answer pieces.
    expect(report.content_recommendations.items[0]).toMatchObject({ category: 'seo', target_keyword: TOPIC })
    expect(report.content_recommendations.items[0].evidence[0].measured_by).toBe('dataforseo')
  })
})

describe('aeo_seo_research with a DataForSEO password past Latin-1', () => {
  it('encodes any login and password as the UTF-8 bytes of "login:password"', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (login, password) => {
        const value = basicAuthorization(login, password)
        expect(value).toMatch(/^Basic [A-Za-z0-9+/]*={0,2}$/)
        const bytes = Uint8Array.from(atob(value.slice('Basic '.length)), (c) => c.charCodeAt(0))
        expect(bytes).toEqual(new TextEncoder().encode(`${login}:${password}`))
      }),
      { numRuns: 2000 },
    )
  })
  it('sends it as UTF-8 Basic credentials instead of failing the call', async () => {
    const accountId = await createAccount()
    mockFetch(trailgear, dataforseo)
    const report = await runResearch(contextWith(accountId, { DATAFORSEO_LOGIN: 'login@test', DATAFORSEO_PASSWORD: 'pässwörd€🔑' }), {
      topic: TOPIC,
      website_url: `${ORIGIN}/`,
      research_depth: 'standard',
      optimization_focus: 'seo_focused',
    })
    expect(report.keyword_opportunities).toMatchObject({ status: 'ok', source: 'dataforseo', measured: true })
  })
})

describe('aeo_seo_research deep runs', () => {
  it('queues a deep run that asks twelve questions and reads up to thirty pages', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const started = await action(NAME, { topic: TOPIC, website_url: `${ORIGIN}/`, research_depth: 'deep' }, token, { prefer: 'respond-async' })
    expect(started.status, JSON.stringify(started.body)).toBe(202)
    let run: Json
    for (let i = 0; i < 20; i++) {
      run = (await request('GET', `/v1/runs/${started.body.response.run_id}?wait=20`, { token })).body.response
      if (run.state === 'succeeded' || run.state === 'failed') break
    }
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.output.research_depth).toBe('deep')
    expect(run.output.questions.items).toHaveLength(12)
    expect(run.output.site_pages.pages_fetched).toBeLessThanOrEqual(30)
  })
})
