import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readAnthropicSearch } from '../../src/providers/anthropic-search/transform'
import { readOpenAiSearch } from '../../src/providers/openai-search/transform'
import { readPerplexity } from '../../src/providers/perplexity/transform'
import { compareCitations, findGaps, type QuestionCitations } from '../../src/seo/citations'
import { registrableDomain } from '../../src/seo/domain'
import { firstResult, readIdeas, readRankings, readSerp } from '../../src/seo/keywords/dataforseo-transform'
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
