import { z } from 'zod'
import { getModel, isModelConfigured } from '../providers/llm'
import type { ActionContext } from '../runtime/context'
import type { CitationPart } from './citations'
import type { CompetitorPart } from './competitors'
import type { KeywordPart } from './keywords'
import type { ResearchQuestion } from './questions'
import type { SitePage } from './site-pages'
import { errorText, nowIso, type Depth, type Focus, type Provenance } from './types'

/** One piece of evidence a recommendation rests on. */
export interface Evidence {
  id: string
  kind: 'citation_gap' | 'keyword' | 'question' | 'competitor'
  text: string
  measured_by: string
  urls: string[]
}

/** One content piece to write. */
export interface Recommendation {
  title: string
  category: 'aeo' | 'seo'
  content_type: string
  target_keyword: string | null
  target_question: string | null
  outline: string[]
  closes_gap: string
  evidence: Evidence[]
  priority: 'high' | 'medium' | 'low'
  priority_score: number
}

export interface RecommendationPart extends Provenance {
  items: Recommendation[]
}

/** Category weights per focus (same ratios as the content audit: 0.75/0.25, 0.5/0.5, 0.25/0.75). */
const WEIGHTS: Record<Focus, { seo: number; aeo: number }> = {
  seo_focused: { seo: 1, aeo: 1 / 3 },
  aeo_focused: { seo: 1 / 3, aeo: 1 },
  balanced: { seo: 1, aeo: 1 },
}
const COUNT: Record<Depth, number> = { standard: 6, deep: 12 }

const band = (score: number): Recommendation['priority'] => (score >= 50 ? 'high' : score >= 25 ? 'medium' : 'low')

/** The evidence list the recommendations (rule- or model-written) may rest on, with stable ids. */
export function gatherEvidence(citations: CitationPart, keywords: KeywordPart, competitors: CompetitorPart, questions: ResearchQuestion[]): Evidence[] {
  const out: Evidence[] = []
  citations.gaps.forEach((g, i) =>
    out.push({
      id: `G${i + 1}`,
      kind: 'citation_gap',
      text: `"${g.question}": ${g.engines.join(', ')} cited ${g.competitors.slice(0, 5).join(', ')} and not the site`,
      measured_by: g.engines.join(', '),
      urls: g.evidence.flatMap((e) => e.urls).slice(0, 6),
    }),
  )
  keywords.keywords.slice(0, 25).forEach((k, i) =>
    out.push({
      id: `K${i + 1}`,
      kind: 'keyword',
      text: k.measured
        ? `"${k.keyword}": volume ${k.search_volume ?? 'n/a'}, difficulty ${k.keyword_difficulty ?? 'n/a'}, CPC ${k.cpc_usd ?? 'n/a'}, intent ${k.intent ?? 'n/a'}, site ${k.site_ranks ? `ranks #${k.site_position}` : 'does not rank'}`
        : `"${k.keyword}" (unmeasured candidate from ${k.source}); site pages using it in titles/headings: ${k.site_pages.length}`,
      measured_by: k.measured ? keywords.source : 'not measured',
      urls: k.site_url ? [k.site_url] : k.site_pages.slice(0, 3),
    }),
  )
  if (citations.status !== 'ok') {
    questions.forEach((q, i) => out.push({ id: `Q${i + 1}`, kind: 'question', text: `"${q.question}" (not asked: no answer engine answered)`, measured_by: 'not measured', urls: [] }))
  }
  competitors.competitors.slice(0, 10).forEach((c, i) =>
    out.push({
      id: `C${i + 1}`,
      kind: 'competitor',
      text: `${c.domain}: ${c.citations} citations, ${c.serp_appearances} SERP results`,
      measured_by: competitors.source,
      urls: c.examples.map((e) => e.url),
    }),
  )
  return out
}

const answerOutline = (question: string, competitors: string[]) => [
  `Answer "${question}" directly in the first 40-60 words`,
  'Key facts as a short list or table, each with its source',
  competitors.length ? `Cover what the cited pages (${competitors.slice(0, 3).join(', ')}) cover, then add first-hand detail they lack` : 'Add first-hand detail: examples, numbers, screenshots',
  'Related follow-up questions as H2/H3 headings, each answered below it',
  'Author, publication and update dates; FAQPage or HowTo structured data where it fits',
]

/** Rule-based recommendations straight from the evidence (no model). */
export function ruleRecommendations(topic: string, citations: CitationPart, keywords: KeywordPart, pages: SitePage[], evidence: Evidence[], focus: Focus, depth: Depth): Recommendation[] {
  const w = WEIGHTS[focus]
  const items: Recommendation[] = []
  const answered = Math.max(1, citations.engines.filter((e) => e.status === 'ok').length)
  citations.gaps.forEach((g, i) => {
    const ev = evidence.find((e) => e.id === `G${i + 1}`)!
    const reach = g.engines.length / answered
    const score = Math.round(100 * w.aeo * (0.5 + 0.5 * reach))
    items.push({
      title: g.question.replace(/\?$/, '') + ': a direct, sourced answer',
      category: 'aeo',
      content_type: g.kind === 'comparison' || g.kind === 'best' ? 'comparison guide' : g.kind === 'how_to' ? 'how-to guide' : 'answer page',
      target_keyword: keywords.keywords.find((k) => g.question.toLowerCase().includes(k.keyword.toLowerCase()))?.keyword ?? topic,
      target_question: g.question,
      outline: answerOutline(g.question, g.competitors),
      closes_gap: `Answer engines (${g.engines.join(', ')}) cite ${g.competitors.slice(0, 3).join(', ')} for this question and not the site`,
      evidence: [ev],
      priority: band(score),
      priority_score: score,
    })
  })
  keywords.keywords.forEach((k, i) => {
    const ev = evidence.find((e) => e.id === `K${i + 1}`)
    if (!ev) return
    if (k.measured) {
      if (k.site_position !== null && k.site_position <= 3) return
      const score = Math.round((k.opportunity_score ?? 0) * w.seo)
      items.push({
        title: `${k.keyword[0].toUpperCase()}${k.keyword.slice(1)}: ${k.intent === 'commercial' ? 'comparison and buying guide' : k.intent === 'transactional' ? 'offer page' : 'complete guide'}`,
        category: 'seo',
        content_type: k.site_ranks ? 'improve existing page' : 'new page',
        target_keyword: k.keyword,
        target_question: null,
        outline: [
          `Title and H1 built on "${k.keyword}"`,
          `Cover the ${k.intent ?? 'main'} intent behind the search`,
          'Sections matching the top-ranking pages’ subtopics, plus what they miss',
          'Internal links from related pages of the site',
        ],
        closes_gap: k.site_ranks ? `The site ranks #${k.site_position} (${k.site_url}); a stronger page can move it up` : 'The site does not rank for this keyword',
        evidence: [ev],
        priority: band(score),
        priority_score: score,
      })
    } else if (k.site_pages.length === 0) {
      // Unmeasured: only a coverage signal (no page of the site uses the phrase), so the score stays low-to-medium.
      const score = Math.round(35 * w.seo)
      items.push({
        title: `${k.keyword[0].toUpperCase()}${k.keyword.slice(1)}: a dedicated page`,
        category: 'seo',
        content_type: 'new page',
        target_keyword: k.keyword,
        target_question: null,
        outline: [`Title and H1 built on "${k.keyword}"`, 'Define it, show how it applies, give examples', 'Link it from the related pages of the site'],
        closes_gap: `No crawled page of the site uses "${k.keyword}" in a title or heading (search demand not measured)`,
        evidence: [ev],
        priority: band(score),
        priority_score: score,
      })
    }
  })
  if (citations.status !== 'ok') {
    const siteQuestions = pages.flatMap((p) => p.questions.map((q) => q.toLowerCase()))
    evidence
      .filter((e) => e.kind === 'question')
      .forEach((ev) => {
        const q = ev.text.slice(1, ev.text.indexOf('"', 1))
        if (siteQuestions.some((s) => s.includes(q.toLowerCase().replace(/\?$/, '')))) return
        const score = Math.round(30 * w.aeo)
        items.push({
          title: q.replace(/\?$/, '') + ': a direct answer',
          category: 'aeo',
          content_type: 'answer section or FAQ entry',
          target_keyword: topic,
          target_question: q,
          outline: answerOutline(q, []),
          closes_gap: 'No crawled page of the site answers this question under its own heading (answer engines not measured)',
          evidence: [ev],
          priority: band(score),
          priority_score: score,
        })
      })
  }
  return items.sort((a, b) => b.priority_score - a.priority_score).slice(0, COUNT[depth])
}

const ModelRecs = z.object({
  recommendations: z.array(
    z.object({
      title: z.string().describe('Working title of the piece'),
      category: z.enum(['aeo', 'seo']).describe('aeo: to be cited by answer engines; seo: to rank in search'),
      content_type: z.string().describe('guide, comparison, answer page, FAQ, landing page, update of an existing page ...'),
      target_keyword: z.string().describe('Keyword from the evidence, or empty'),
      target_question: z.string().describe('Question from the evidence, or empty'),
      outline: z.array(z.string()).describe('4-7 section headings or steps'),
      closes_gap: z.string().describe('Which gap this closes, in one sentence, from the evidence'),
      evidence_ids: z.array(z.string()).describe('Ids of the evidence items (G1, K2, C3 ...) this rests on'),
    }),
  ),
})

/**
 * Content recommendations: written by the model layer when configured, grounded in the gathered
 * evidence (each must cite evidence ids, unknown ids are dropped, items without evidence are
 * dropped); rule-based from the gaps otherwise. Priorities are always computed here, from the focus.
 */
export async function contentRecommendations(
  ctx: ActionContext,
  args: {
    topic: string
    websiteUrl: string
    focus: Focus
    depth: Depth
    citations: CitationPart
    keywords: KeywordPart
    competitors: CompetitorPart
    questions: ResearchQuestion[]
    pages: SitePage[]
  },
): Promise<RecommendationPart> {
  const evidence = gatherEvidence(args.citations, args.keywords, args.competitors, args.questions)
  const rules = (note: string): RecommendationPart => ({
    status: 'ok',
    source: 'rules',
    measured_at: nowIso(),
    note,
    items: ruleRecommendations(args.topic, args.citations, args.keywords, args.pages, evidence, args.focus, args.depth),
  })
  if (!(await isModelConfigured(ctx))) return rules('Rule-based recommendations from the gaps and keywords (no model configured)')
  if (evidence.length === 0) return rules('No evidence to ground a model on; rule-based recommendations')
  try {
    const model = await getModel(ctx, 'quality')
    const w = WEIGHTS[args.focus]
    const { object } = await model.generateObject({
      schema: ModelRecs,
      name: 'content_recommendations',
      system:
        'You are an SEO and answer-engine-optimization strategist. Recommend concrete content pieces for the website. Use only the evidence given: every recommendation must cite the ids of the evidence it rests on, and must not invent numbers, rankings or competitors. Unmeasured keywords must not be described as having search volume.',
      prompt: [
        `Website: ${args.websiteUrl}`,
        `Topic: ${args.topic}`,
        `Optimization focus: ${args.focus}. Write ${COUNT[args.depth]} recommendations.`,
        `Existing pages (titles): ${
          args.pages
            .map((p) => p.title)
            .filter(Boolean)
            .slice(0, 30)
            .join(' | ') || 'unknown'
        }`,
        'Evidence:',
        ...evidence.map((e) => `${e.id} [${e.kind}, measured by ${e.measured_by}] ${e.text}`),
      ].join('\n'),
    })
    const byId = new Map(evidence.map((e) => [e.id, e]))
    const items: Recommendation[] = []
    for (const r of object.recommendations) {
      const ev = [...new Set(r.evidence_ids)].map((id) => byId.get(id.trim())).filter((e): e is Evidence => !!e)
      if (!ev.length || !r.title.trim()) continue
      const strength = ev.some((e) => e.kind === 'citation_gap') ? 1 : ev.some((e) => e.kind === 'keyword' && e.measured_by !== 'not measured') ? 0.8 : 0.5
      const score = Math.round(100 * (r.category === 'aeo' ? w.aeo : w.seo) * strength * (0.6 + 0.1 * Math.min(4, ev.length)))
      items.push({
        title: r.title.trim(),
        category: r.category,
        content_type: r.content_type,
        target_keyword: r.target_keyword.trim() || null,
        target_question: r.target_question.trim() || null,
        outline: r.outline.slice(0, 10),
        closes_gap: r.closes_gap,
        evidence: ev,
        priority: band(Math.min(100, score)),
        priority_score: Math.min(100, score),
      })
    }
    if (!items.length) return rules(`${model.info.id} gave no recommendation grounded in the evidence; rule-based recommendations`)
    items.sort((a, b) => b.priority_score - a.priority_score)
    return {
      status: 'ok',
      source: `model:${model.info.id}`,
      measured_at: nowIso(),
      note: `Written by ${model.info.id} from ${evidence.length} evidence items; each cites its evidence; priorities computed from the focus`,
      items: items.slice(0, COUNT[args.depth]),
    }
  } catch (err) {
    return rules(`The model could not write recommendations (${errorText(err)}); rule-based recommendations`)
  }
}
