import type { ActionContext } from '../runtime/context'
import { citationGaps, type CitationPart } from './citations'
import { competitorLandscape, type CompetitorPart } from './competitors'
import { registrableDomain } from './domain'
import { ENGINES, type AnswerEngine } from './engines'
import { keywordOpportunities, type KeywordPart } from './keywords'
import { researchQuestions, type QuestionSet } from './questions'
import { contentRecommendations, type RecommendationPart } from './recommendations'
import { crawlSitePages, type SitePage, type SitePages } from './site-pages'
import { nowIso, type Depth, type Focus, type Provenance } from './types'

export interface ResearchInput {
  topic: string
  website_url: string
  research_depth: Depth
  optimization_focus: Focus
}

/** One line of the measurement log: what was measured, by what, when. */
export interface MeasurementLine extends Provenance {
  part: string
}

export interface ResearchReport {
  topic: string
  website_url: string
  site_domain: string
  research_depth: Depth
  optimization_focus: Focus
  generated_at: string
  measurements: MeasurementLine[]
  site_pages: Omit<SitePages, 'pages'> & { pages: Pick<SitePage, 'url' | 'title'>[] }
  questions: QuestionSet
  keyword_opportunities: KeywordPart
  ai_citations: CitationPart
  competitor_landscape: CompetitorPart
  content_recommendations: RecommendationPart
}

/** Pages read from the site per depth. */
export const SITE_PAGES: Record<Depth, number> = { standard: 20, deep: 30 }

/** Runs the research. `step` lets a queued run keep finished phases across retries. */
export async function runResearch(
  ctx: ActionContext,
  input: ResearchInput,
  step: <T>(name: string, fn: () => Promise<T>) => Promise<T> = (_n, fn) => fn(),
  engines: readonly AnswerEngine[] = ENGINES,
): Promise<ResearchReport> {
  const depth = input.research_depth
  const siteDomain = registrableDomain(input.website_url) ?? new URL(input.website_url).hostname
  await ctx.progress({ phase: 'reading_site' })
  const site = await step('site_pages', () => crawlSitePages(ctx.fetch, input.website_url, SITE_PAGES[depth]))
  const hints = [...new Set(site.pages.flatMap((p) => [p.title ?? '', ...p.headings]).filter(Boolean))]
  await ctx.progress({ phase: 'questions_and_keywords', pages_read: site.pages.length })
  const [questions, keywords] = await Promise.all([
    step('questions', () => researchQuestions(ctx, input.topic, depth, hints)),
    step('keywords', () => keywordOpportunities(ctx, input.topic, input.website_url, site.pages, depth)),
  ])
  await ctx.progress({ phase: 'asking_answer_engines', questions: questions.items.length })
  const citations = await step('citations', () => citationGaps(ctx, questions.items, siteDomain, engines))
  const competitors = competitorLandscape(citations, keywords, siteDomain)
  await ctx.progress({ phase: 'recommendations' })
  const recommendations = await step('recommendations', () =>
    contentRecommendations(ctx, {
      topic: input.topic,
      websiteUrl: input.website_url,
      focus: input.optimization_focus,
      depth,
      citations,
      keywords,
      competitors,
      questions: questions.items,
      pages: site.pages,
    }),
  )
  const line = (part: string, p: Provenance): MeasurementLine => ({ part, status: p.status, source: p.source, measured_at: p.measured_at, note: p.note })
  return {
    topic: input.topic,
    website_url: input.website_url,
    site_domain: siteDomain,
    research_depth: depth,
    optimization_focus: input.optimization_focus,
    generated_at: nowIso(),
    measurements: [
      line('site_pages', site),
      line('questions', questions),
      line('keyword_opportunities', keywords),
      ...citations.engines.map((e) => line(`ai_citations.${e.engine}`, e)),
      line('competitor_landscape', competitors),
      line('content_recommendations', recommendations),
    ],
    site_pages: { ...site, pages: site.pages.map((p) => ({ url: p.url, title: p.title })) },
    questions,
    keyword_opportunities: keywords,
    ai_citations: citations,
    competitor_landscape: competitors,
    content_recommendations: recommendations,
  }
}
