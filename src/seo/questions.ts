import { z } from 'zod'
import { getModel, isModelConfigured } from '../providers/llm'
import type { ActionContext } from '../runtime/context'
import { errorText, nowIso, type Depth, type Provenance } from './types'

/** A question people ask answer engines about the topic. */
export interface ResearchQuestion {
  question: string
  /** Kind of intent: definition, how_to, comparison, best, cost, problem, trend ... */
  kind: string
}

export interface QuestionSet extends Provenance {
  items: ResearchQuestion[]
}

/** How many questions each depth asks. */
export const QUESTION_COUNT: Record<Depth, number> = { standard: 5, deep: 12 }

const TEMPLATES: { kind: string; text: (t: string, year: number) => string; deep?: boolean }[] = [
  { kind: 'definition', text: (t) => `What is ${t}?` },
  { kind: 'how_to', text: (t) => `How does ${t} work?` },
  { kind: 'best', text: (t, y) => `What are the best ${t} options in ${y}?` },
  { kind: 'cost', text: (t) => `How much does ${t} cost?` },
  { kind: 'comparison', text: (t) => `What are the alternatives to ${t}, and how do they compare?` },
  { kind: 'how_to', text: (t) => `How do I get started with ${t}?`, deep: true },
  { kind: 'benefits', text: (t) => `What are the benefits and drawbacks of ${t}?`, deep: true },
  { kind: 'problem', text: (t) => `What are common mistakes to avoid with ${t}?`, deep: true },
  { kind: 'selection', text: (t) => `How do I choose the right ${t}?`, deep: true },
  { kind: 'trend', text: (t, y) => `What are the latest trends in ${t} in ${y}?`, deep: true },
  { kind: 'audience', text: (t) => `Who should use ${t}?`, deep: true },
  { kind: 'metrics', text: (t) => `How do you measure the results of ${t}?`, deep: true },
  { kind: 'examples', text: (t) => `What are real examples of ${t}?`, deep: true },
]

/** Deterministic questions from the topic: what/how/best/cost/vs for standard, broader ones added for deep. */
export function templateQuestions(topic: string, depth: Depth, year = new Date().getUTCFullYear()): ResearchQuestion[] {
  const t = topic.trim().replace(/(?<![?.!])[?.!]+$/, '')
  const pool = TEMPLATES.filter((x) => depth === 'deep' || !x.deep)
  return pool.slice(0, QUESTION_COUNT[depth]).map((x) => ({ kind: x.kind, question: x.text(t, year) }))
}

const ModelQuestions = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().describe('The question as a person would type it into an AI assistant'),
        kind: z.string().describe('definition, how_to, comparison, best, cost, problem, trend, selection, benefits ...'),
      }),
    )
    .describe('Distinct, realistic questions'),
})

/**
 * The questions asked to answer engines: written by the model layer when one is configured (realistic
 * phrasing, informed by the site's own headings), else the deterministic templates. A model failure
 * falls back to the templates and says so.
 */
export async function researchQuestions(ctx: ActionContext, topic: string, depth: Depth, siteHints: string[]): Promise<QuestionSet> {
  const count = QUESTION_COUNT[depth]
  const fallback = (note: string): QuestionSet => ({ status: 'ok', source: 'templates', measured_at: nowIso(), note, items: templateQuestions(topic, depth) })
  if (!(await isModelConfigured(ctx))) return fallback('Deterministic question templates (no model configured)')
  try {
    const model = await getModel(ctx, 'fast')
    const { object } = await model.generateObject({
      schema: ModelQuestions,
      name: 'research_questions',
      system:
        'You write the questions real people ask AI assistants (ChatGPT, Perplexity, Claude) about a topic, in their own words. Cover different intents: definitions, how-to, comparisons, best-of lists, costs, problems. No brand names unless the topic has them. One question per item.',
      prompt: [
        `Topic: ${topic}`,
        `Write ${count} questions${depth === 'deep' ? ', broad: include adjacent sub-topics, buyer and practitioner questions' : ' on the core of the topic'}.`,
        siteHints.length ? `The website being researched covers (headings): ${siteHints.slice(0, 25).join(' | ')}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    })
    const seen = new Set<string>()
    const items = object.questions
      .map((q) => ({ question: q.question.trim().slice(0, 300), kind: (q.kind.trim() || 'other').slice(0, 40) }))
      .filter((q) => q.question.length > 3 && !seen.has(q.question.toLowerCase()) && seen.add(q.question.toLowerCase()))
      .slice(0, count)
    if (items.length === 0) return fallback('The model returned no usable question; deterministic templates used')
    return { status: 'ok', source: `model:${model.info.id}`, measured_at: nowIso(), note: `${items.length} questions written by ${model.info.id} (${model.info.provider})`, items }
  } catch (err) {
    return fallback(`The model could not write questions (${errorText(err)}); deterministic templates used`)
  }
}
