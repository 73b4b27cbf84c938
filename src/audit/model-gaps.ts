import { z } from 'zod'
import { getModel, isModelConfigured } from '../providers/llm'
import type { ActionContext } from '../runtime/context'
import type { ContentGaps, ModelGapAnalysis } from './gaps'

const GapSchema = z.object({
  summary: z.string().describe('Two or three sentences on what the site covers thinly or not at all'),
  gaps: z
    .array(
      z.object({
        topic: z.string(),
        why: z.string().describe('Why readers or answer engines would look for it, from the evidence'),
        suggested_page: z.string().describe('Title of the page that would close the gap'),
        evidence: z.array(z.string()).describe('Ids of the evidence items (E1, E2 ...) it rests on'),
      }),
    )
    .max(10),
})

/** Numbered evidence lines from the deterministic analysis, so the model can only cite what the crawl found. */
function evidence(gaps: ContentGaps, titles: string[]): string[] {
  const lines: string[] = []
  for (const t of gaps.uncovered_topics.slice(0, 15)) lines.push(`topic "${t.topic}" is mentioned on ${t.mentioned_on} pages but no page targets it`)
  for (const s of gaps.thin_sections.slice(0, 10)) lines.push(`section /${s.section} has ${s.pages} pages, ${s.average_words} words on average (${s.reason})`)
  for (const m of gaps.missing_pages.slice(0, 10)) lines.push(`linked page ${m.url} is missing (status ${m.status ?? 'none'}), linked as ${m.anchor_texts.map((a) => `"${a}"`).join(', ')}`)
  for (const q of gaps.unanswered_questions.slice(0, 10)) lines.push(`question heading "${q.question}" on ${q.url} has no direct answer`)
  for (const t of titles.slice(0, 40)) lines.push(`page title: ${t}`)
  return lines.map((l, i) => `E${i + 1}: ${l}`)
}

/**
 * Asks the configured model for a gap analysis grounded in the crawl, or null when no model is
 * configured. Evidence ids the model invents are dropped, and a gap left without evidence goes too.
 */
export async function modelGapAnalysis(ctx: ActionContext, gaps: ContentGaps, site: string, titles: string[]): Promise<ModelGapAnalysis | null> {
  if (!(await isModelConfigured(ctx))) return null
  const lines = evidence(gaps, titles)
  try {
    const model = await getModel(ctx, 'quality')
    const { object, model: info } = await model.generateObject({
      schema: GapSchema,
      name: 'content_gap_analysis',
      system:
        'You are a content strategist. From the numbered evidence about one website, name the topics it covers thinly or not at all. ' +
        'Use only the evidence; cite evidence ids for every gap; do not invent facts, numbers or pages.',
      prompt: `Website: ${site}\n\nEvidence:\n${lines.join('\n')}`,
    })
    const known = new Set(lines.map((l) => l.slice(0, l.indexOf(':'))))
    const grounded = object.gaps.map((g) => ({ ...g, evidence: g.evidence.filter((e) => known.has(e)) })).filter((g) => g.evidence.length > 0)
    return { written_by_model: true, status: 'ok', model: info.id, summary: object.summary, gaps: grounded, note: null }
  } catch (err) {
    return { written_by_model: true, status: 'error', model: null, summary: null, gaps: [], note: `The model-written analysis failed: ${(err as Error).message}` }
  }
}
