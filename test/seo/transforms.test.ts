import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readAnthropicSearch } from '../../src/providers/anthropic-search/transform'
import { readOpenAiSearch } from '../../src/providers/openai-search/transform'
import { readPerplexity } from '../../src/providers/perplexity/transform'
import { compareCitations, competitorsOf, findGaps, type CitationPart, type QuestionCitations, type QuestionEngineResult } from '../../src/seo/citations'
import { competitorLandscape } from '../../src/seo/competitors'
import { domainsOf, registrableDomain } from '../../src/seo/domain'
import type { KeywordPart } from '../../src/seo/keywords'
import { rankedKeywordsFor } from '../../src/providers/dataforseo/client'
import { firstResult, rankedKeywords } from '../../src/providers/dataforseo/transform'
import { UpstreamError } from '../../src/providers/errors'
import type { ActionContext } from '../../src/runtime/context'
import { dataForSeoProvider } from '../../src/seo/keywords/dataforseo'
import { readIdeas, readRankings, readSerp } from '../../src/seo/keywords/dataforseo-transform'
import { opportunityScore } from '../../src/seo/keywords'
import { candidateKeywords } from '../../src/seo/keywords/candidates'
import { templateQuestions } from '../../src/seo/questions'
import anthropicError from '../fixtures/anthropic-search/messages-search-error.json'
import anthropic from '../fixtures/anthropic-search/messages-web-search.json'
import ideas from '../fixtures/dataforseo-keywords/keyword_ideas.json'
import ranked from '../fixtures/dataforseo-keywords/ranked_keywords.json'
import serp from '../fixtures/dataforseo-keywords/serp.json'
import openai from '../fixtures/openai-search/responses-web-search.json'
import perplexity from '../fixtures/perplexity/sonar-answer.json'
import * as before from '../fixtures/before-quad/answers'
import { arrayWork } from '../array-work'

describe('answer engine transforms', () => {
  it('reads Perplexity citations as cited URLs and search results as sources', () => {
    const r = readPerplexity(perplexity)
    expect(r.cited).toEqual(perplexity.citations)
    expect(r.sources).toHaveLength(3)
    expect(r.model).toBe('sonar')
    expect(r.text).toContain('lugged outsole')
  })

  it('reads OpenAI url_citation annotations without the utm tag and keeps the web_search_call sources', () => {
    const r = readOpenAiSearch(openai)
    expect(r.cited).toEqual(['https://www.runrepeat.com/guides/trail-running-shoe-prices', 'https://www.outdoorgearlab.com/topics/shoes-and-boots/best-trail-running-shoes'])
    expect(r.sources).toContain('https://www.reddit.com/r/trailrunning/comments/abc123/budget_shoes/')
    expect(r.model).toBe('gpt-5.4-mini-2026-03-17')
  })

  it('reads Anthropic text citations as cited URLs and web_search_tool_result blocks as sources', () => {
    const r = readAnthropicSearch(anthropic)
    expect(r.cited).toEqual(['https://en.wikipedia.org/wiki/Trail_running', 'https://www.rei.com/learn/expert-advice/trail-running-shoes.html'])
    expect(r.sources).toContain('https://shop.trailgear.co.uk/running/trail-shoes')
    expect(r.text.startsWith("I'll search")).toBe(true)
    expect(r.errors).toEqual([])
  })

  it('reports an Anthropic web search tool error code', () => {
    const r = readAnthropicSearch(anthropicError)
    expect(r.errors).toEqual(['too_many_requests'])
    expect(r.cited).toEqual([])
  })
})

describe('DataForSEO transforms', () => {
  it('reads keyword ideas with volume, difficulty, CPC and intent, leaving missing numbers null', () => {
    const { result, error } = firstResult(ideas as never)
    expect(error).toBeNull()
    const list = readIdeas(result as never)
    expect(list[0]).toEqual({ keyword: 'trail running shoes', search_volume: 74000, keyword_difficulty: 67, cpc_usd: 1.42, competition: 1, intent: 'commercial' })
    expect(list[2].cpc_usd).toBeNull()
  })

  it('reads organic rankings and SERP organic results, skipping paid and feature items', () => {
    expect(readRankings(firstResult(ranked as never).result as never)).toEqual([{ keyword: 'how to clean trail running shoes', position: 7, url: 'https://www.trailgear.test/blog/clean-trail-shoes' }])
    const s = readSerp('trail running shoes', firstResult(serp as never).result as never)
    expect(s.results.map((r) => r.position)).toEqual([1, 2, 3])
  })

  it('turns a task error into a message and "no results" into an empty result', () => {
    expect(firstResult({ status_code: 20000, status_message: 'Ok.', tasks: [{ status_code: 40501, status_message: 'Invalid Field: keywords.', result: null }] }).error).toBe('Invalid Field: keywords.')
    expect(firstResult({ status_code: 20000, status_message: 'Ok.', tasks: [{ status_code: 40102, status_message: 'No Search Results.', result: null }] })).toEqual({ result: null, error: null })
  })

  it('company research and SEO research read any DataForSEO answer alike: the same result or the same refusal', async () => {
    const ctxAnswering = (res: () => Response) => ({ env: { DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p' }, config: {}, fetch: async () => res() }) as unknown as ActionContext
    const outcome = async (read: () => Promise<unknown>) => {
      try {
        await read()
        return 'read'
      } catch (err) {
        return err instanceof UpstreamError ? `${err.kind}: ${err.message}` : err instanceof Error ? `${err.name}: ${err.message}` : 'thrown'
      }
    }
    const code = fc.constantFrom<unknown>(20000, 40102, 40501, 50000, null, '20000')
    const task = fc.record({
      status_code: code,
      status_message: fc.option(fc.constantFrom('Ok.', 'No Search Results.', 'Invalid Field.'), { nil: undefined }),
      result: fc.constantFrom<unknown>(null, [], [null], [{ items: [] }]),
    })
    const envelope = fc.record({
      status_code: code,
      status_message: fc.option(fc.constantFrom('Ok.', 'Internal error.'), { nil: undefined }),
      tasks: fc.oneof(fc.constant([]), fc.array(task, { minLength: 1, maxLength: 2 }), fc.constant(null)),
    })
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 401, 429, 500), envelope, async (status, body) => {
        const res = () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
        const research = await outcome(async () => rankedKeywords(await rankedKeywordsFor(ctxAnswering(res), 'acme.test')))
        const seo = await outcome(() => dataForSeoProvider.rankings(ctxAnswering(res), 'acme.test', 10))
        expect(research).toBe(seo)
      }),
      { numRuns: 300 },
    )
  })

  it('scores opportunity from volume, difficulty and the site position, and gives none without volume', () => {
    expect(opportunityScore(null, 10, null)).toBeNull()
    expect(opportunityScore(74000, 67, null)!).toBeLessThan(opportunityScore(74000, 10, null)!)
    expect(opportunityScore(2900, 28, 2)!).toBeLessThan(opportunityScore(2900, 28, null)!)
  })

  it('reads any metric DataForSEO sends as a number from 0 up or none, so every score is a number from 0 to 100', () => {
    const metric = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-1, -5, 0, null, '12', Number.MAX_VALUE))
    fc.assert(
      fc.property(metric, metric, metric, metric, metric, (volume, difficulty, cpc, competition, rank) => {
        const [idea] = readIdeas({ items: [{ keyword: 'k', keyword_info: { search_volume: volume, cpc, competition }, keyword_properties: { keyword_difficulty: difficulty } }] } as never)
        const [ranking] = readRankings({ items: [{ keyword_data: { keyword: 'k' }, ranked_serp_element: { serp_item: { type: 'organic', rank_group: rank, url: 'https://a.test/' } } }] } as never)
        for (const v of [idea.search_volume, idea.keyword_difficulty, idea.cpc_usd, idea.competition, ranking.position]) expect(v === null || (Number.isFinite(v) && v >= 0)).toBe(true)
        const score = opportunityScore(idea.search_volume, idea.keyword_difficulty, ranking.position)
        expect(score === null || (Number.isInteger(score) && score >= 0 && score <= 100)).toBe(true)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('registrable domains and gaps', () => {
  it('compares hosts by registrable domain, multi-part and private suffixes included', () => {
    expect(registrableDomain('https://blog.example.co.uk/x')).toBe('example.co.uk')
    expect(registrableDomain('https://www.example.com.au')).toBe('example.com.au')
    expect(registrableDomain('https://alice.github.io/post')).toBe('alice.github.io')
    expect(registrableDomain('https://shop.trailgear.test/a')).toBe('trailgear.test')
    expect(registrableDomain('not a url at all')).toBeNull()
  })

  it('marks the site cited when any subdomain of it is cited, and lists the other domains as competitors', () => {
    const r = compareCitations(['https://blog.trailgear.test/a', 'https://www.rei.com/b', 'https://rei.com/c', 'https://shop.trailgear.co.uk/x'], 'trailgear.test')
    expect(r.site_cited).toBe(true)
    expect(r.competitors).toEqual(['rei.com', 'trailgear.co.uk'])
  })

  it('calls a question a gap only when competitors are cited and the site is not', () => {
    const q = (question: string, site: string[], competitors: string[]): QuestionCitations => ({
      question,
      kind: 'x',
      site_cited_by: site as never,
      competitors_cited: competitors,
      results: [
        {
          engine: 'perplexity',
          status: 'ok',
          measured_at: '',
          model: 'sonar',
          cited_domains: competitors,
          cited_urls: competitors.map((d) => `https://${d}/`),
          site_cited: site.length > 0,
          site_urls: [],
          competitors_cited: competitors,
          answer_excerpt: '',
          note: '',
        },
      ],
    })
    const gaps = findGaps([q('a?', [], ['rei.com']), q('b?', ['perplexity'], ['rei.com']), q('c?', [], [])])
    expect(gaps.map((g) => g.question)).toEqual(['a?'])
    expect(gaps[0].evidence).toEqual([{ engine: 'perplexity', urls: ['https://rei.com/'] }])
  })
})

describe('questions and candidates without a model or provider', () => {
  it('asks five core questions for standard and twelve broader ones for deep', () => {
    const std = templateQuestions('trail running shoes', 'standard', 2026)
    const deep = templateQuestions('trail running shoes', 'deep', 2026)
    expect(std).toHaveLength(5)
    expect(std[0].question).toBe('What is trail running shoes?')
    expect(deep).toHaveLength(12)
    expect(deep.slice(0, 5)).toEqual(std)
  })

  it('derives candidate keywords from the topic and the site headings that share its words', () => {
    const pages = [
      { url: 'https://x.test/a', title: 'Trail shoes for mud', h1: 'Trail shoes for mud', headings: ['Why lug depth matters?'], terms: [], questions: ['How do trail shoes fit?'], word_count: 500 },
      { url: 'https://x.test/b', title: 'Waterproof trail shoes', h1: null, headings: ['Contact us'], terms: [], questions: [], word_count: 300 },
    ]
    const c = candidateKeywords('trail shoes', pages, 10)
    expect(c[0]).toEqual({ keyword: 'trail shoes', source: 'topic', site_pages: ['https://x.test/a', 'https://x.test/b'] })
    const words = c.map((x) => x.keyword)
    expect(words).toContain('waterproof trail shoes')
    expect(words).toContain('how do trail shoes fit?')
    expect(words).not.toContain('contact us')
  })
})

describe('template questions in linear time', () => {
  it('drops the closing punctuation of a topic as before', () => {
    const before = (topic: string) => topic.trim().replace(/[?.!]+$/, '')
    // No spaces: a topic trimmed again after its punctuation is cut would not be the old reading.
    const topic = fc.string({ unit: fc.constantFrom(...'trail-shoes?.!'), minLength: 1, maxLength: 20 })
    fc.assert(
      fc.property(topic, (t) => {
        expect(templateQuestions(t, 'deep', 2026)).toEqual(templateQuestions(before(t), 'deep', 2026))
      }),
      { numRuns: 1000 },
    )
  })

  it('returns on a long hostile topic', () => {
    expect(templateQuestions(`a${'!'.repeat(100_000)}b`, 'standard', 2026).length).toBeGreaterThan(0)
  })
})

describe('answer engine citations in linear work', () => {
  // URLs that repeat, differ only by OpenAI's tag, share a registrable domain, belong to the site, or are no URL.
  const URLS = [
    'https://a.test/1',
    'https://a.test/1?utm_source=openai',
    'https://www.a.test/2',
    'http://b.test/x',
    'https://shop.c.co.uk/y',
    'https://site.test/p',
    'https://blog.site.test/q?utm_source=openai&x=1',
    'ftp://d.test/',
    'not a url',
  ]
  const url = fc.option(fc.constantFrom(...URLS), { nil: undefined })
  const urls = fc.array(fc.constantFrom(...URLS), { maxLength: 12 })
  const domain = fc.constantFrom('a.test', 'b.test', 'c.co.uk', 'site.test', 'd.test')
  const engine = fc.constantFrom('perplexity', 'openai_web_search', 'anthropic_web_search') as fc.Arbitrary<QuestionEngineResult['engine']>
  const distinct = (n: number) => Array.from({ length: n }, (_, i) => `https://d${i}.test/page`)
  const N = 5000

  const anthropicBody = fc.record({
    model: fc.option(fc.constant('claude'), { nil: undefined }),
    content: fc.array(
      fc.oneof(
        fc.record({
          type: fc.constant('text'),
          text: fc.string({ maxLength: 5 }),
          citations: fc.option(fc.array(fc.record({ type: fc.constantFrom('web_search_result_location', 'char_location'), url }), { maxLength: 6 })),
        }),
        fc.record({
          type: fc.constant('web_search_tool_result'),
          content: fc.oneof(
            fc.array(fc.record({ type: fc.constantFrom('web_search_result', 'other'), url }), { maxLength: 6 }),
            fc.record({ error_code: fc.option(fc.constant('max_uses_exceeded'), { nil: undefined }) }),
          ),
        }),
        fc.record({ type: fc.constant('server_tool_use') }),
      ),
      { maxLength: 6 },
    ),
  })
  const openAiBody = fc.record({
    model: fc.option(fc.constant('gpt'), { nil: undefined }),
    output: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('web_search_call'), action: fc.record({ sources: fc.array(fc.record({ url }), { maxLength: 6 }) }) }),
        fc.record({
          type: fc.constant('message'),
          content: fc.array(
            fc.record({
              type: fc.constantFrom('output_text', 'refusal'),
              text: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
              annotations: fc.array(fc.record({ type: fc.constantFrom('url_citation', 'file_citation'), url: fc.constantFrom(...URLS) }), { maxLength: 6 }),
            }),
            { maxLength: 3 },
          ),
        }),
      ),
      { maxLength: 6 },
    ),
  })

  it('reads answers as before: the same cited and consulted URLs, in the same order', () => {
    fc.assert(
      fc.property(anthropicBody, (body) => {
        expect(readAnthropicSearch(body as never)).toEqual(before.readAnthropicSearch(body as never))
      }),
      { numRuns: 500 },
    )
    fc.assert(
      fc.property(openAiBody, (body) => {
        expect(readOpenAiSearch(body as never)).toEqual(before.readOpenAiSearch(body as never))
      }),
      { numRuns: 500 },
    )
  })

  it('compares citations and gathers competitors as before', () => {
    fc.assert(
      fc.property(urls, domain, (cited, site) => {
        expect(compareCitations(cited, site)).toEqual(before.compareCitations(cited, site))
        expect(domainsOf(cited)).toEqual(before.compareCitations(cited, '').cited_domains)
      }),
      { numRuns: 500 },
    )
    fc.assert(
      fc.property(fc.array(fc.record({ competitors_cited: fc.array(domain, { maxLength: 6 }) }), { maxLength: 4 }), (results) => {
        expect(competitorsOf(results)).toEqual(before.competitorsOf(results))
      }),
      { numRuns: 500 },
    )
  })

  it('ranks competitors as before', () => {
    const result = fc.record({ engine, status: fc.constantFrom('ok', 'error'), cited_urls: urls, competitors_cited: fc.array(domain, { maxLength: 5 }) })
    const question = fc.record({ question: fc.constantFrom('q1?', 'q2?', 'q3?'), results: fc.array(result, { maxLength: 3 }) })
    const serp = fc.record({ keyword: fc.constantFrom('k1', 'k2'), results: fc.array(fc.record({ position: fc.nat(20), url: fc.constantFrom(...URLS), title: fc.constant(null) }), { maxLength: 5 }) })
    fc.assert(
      fc.property(fc.array(question, { maxLength: 4 }), fc.constantFrom('ok', 'error'), fc.array(serp, { maxLength: 3 }), domain, (questions, status, serps, site) => {
        const citations = { status, questions } as unknown as CitationPart
        const keywords = { source: 'dataforseo', serps } as unknown as KeywordPart
        const { measured_at: _now, ...got } = competitorLandscape(citations, keywords, site)
        const { measured_at: _then, ...want } = before.competitorLandscape(citations, keywords, site)
        expect(got).toEqual(want)
      }),
      { numRuns: 500 },
    )
  })

  // Failed before: each list was deduplicated by searching itself, so an answer (up to 5 MB, about
  // 80,000 distinct URLs) cost the square of its URLs: here about 12.5 million elements compared a
  // list (16 s of CPU for 5 MB in Node).
  it(`reads answers of ${N} distinct cited and consulted URLs in linear work`, async () => {
    const cites = distinct(N)
    const anthropicBody = {
      content: [
        { type: 'text', text: 'x', citations: cites.map((u) => ({ type: 'web_search_result_location', url: u })) },
        { type: 'web_search_tool_result', content: cites.map((u) => ({ type: 'web_search_result', url: `${u}/2` })) },
      ],
    }
    const anthropicWork = await arrayWork(() => readAnthropicSearch(anthropicBody as never))
    expect(anthropicWork.result.sources).toHaveLength(2 * N)
    expect(anthropicWork.work).toBeLessThanOrEqual(3 * N)
    const openAiBody = {
      output: [
        { type: 'web_search_call', action: { sources: cites.map((u) => ({ url: `${u}/2` })) } },
        { type: 'message', content: [{ type: 'output_text', text: 'x', annotations: cites.map((u) => ({ type: 'url_citation', url: u })) }] },
      ],
    }
    const openAiWork = await arrayWork(() => readOpenAiSearch(openAiBody))
    expect(openAiWork.result.sources).toHaveLength(2 * N)
    expect(openAiWork.work).toBeLessThanOrEqual(3 * N)
  })

  // Failed before: the domains of one answer, and the competitors of one question, were
  // deduplicated by searching the list so far (2.3 s for three answers of 20,000 domains in Node).
  it(`compares answers citing ${N} distinct domains in linear work`, async () => {
    const cited = distinct(N)
    const compared = await arrayWork(() => compareCitations(cited, 'site.test'))
    expect(compared.result.competitors).toHaveLength(N)
    expect(compared.work).toBeLessThanOrEqual(3 * N)
    const domains = await arrayWork(() => domainsOf(cited))
    expect(domains.result).toHaveLength(N)
    expect(domains.work).toBeLessThanOrEqual(3 * N)
    const results = [0, 1, 2].map((k) => ({ competitors_cited: cited.map((u) => `${k}${registrableDomain(u)}`) }))
    const gathered = await arrayWork(() => competitorsOf(results))
    expect(gathered.result).toHaveLength(3 * N)
    expect(gathered.work).toBeLessThanOrEqual(2 * 3 * N)
  })

  // Failed before: every competitor domain searched its answer's kept URLs (up to 20), parsing
  // each one's domain again: 20 parses a domain, 2.5 s for 15 answers of 20,000 domains in Node.
  it("finds each competitor's example URL without searching the answer again", async () => {
    const cited = distinct(N)
    const results = [0, 1, 2].map((k) => ({
      engine: ['perplexity', 'openai_web_search', 'anthropic_web_search'][k],
      status: 'ok',
      cited_urls: cited.slice(k, k + 20),
      competitors_cited: cited.map((u) => registrableDomain(u)!),
    }))
    const citations = { status: 'ok', questions: [{ question: 'q?', results }] } as unknown as CitationPart
    const keywords = { source: 'none', serps: [] } as unknown as KeywordPart
    const landscape = await arrayWork(() => competitorLandscape(citations, keywords, 'site.test'))
    // Every domain is cited three times; d0's URL is kept by one answer, d1's by two (an example once).
    expect(landscape.result.competitors[0]).toMatchObject({ domain: 'd0.test', citations: 3, examples: [{ url: cited[0], via: 'perplexity: "q?"' }] })
    expect(landscape.result.competitors[1].examples.map((e) => e.url)).toEqual([cited[1]])
    // Per competitor and answer: its engines and question (a few each) and its examples (at most four).
    expect(landscape.work).toBeLessThanOrEqual(3 * N * 12)
  })
})
