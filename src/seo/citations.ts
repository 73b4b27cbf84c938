import type { ActionContext } from '../runtime/context'
import { registrableDomain } from './domain'
import { ENGINES, type AnswerEngine, type EngineAccess, type EngineId } from './engines'
import type { ResearchQuestion } from './questions'
import { errorText, nowIso, type Provenance } from './types'

/** One engine's answer to one question, as compared. */
export interface QuestionEngineResult {
  engine: EngineId
  status: 'ok' | 'error'
  measured_at: string
  model: string | null
  cited_domains: string[]
  cited_urls: string[]
  site_cited: boolean
  site_urls: string[]
  competitors_cited: string[]
  answer_excerpt: string | null
  note: string
}

export interface QuestionCitations {
  question: string
  kind: string
  results: QuestionEngineResult[]
  /** Engines that cited the site. */
  site_cited_by: EngineId[]
  /** Competitor domains cited by any engine. */
  competitors_cited: string[]
}

/** A question where competitors are cited and the site is not (by any engine that answered). */
export interface CitationGap {
  question: string
  kind: string
  engines: EngineId[]
  competitors: string[]
  evidence: { engine: EngineId; urls: string[] }[]
}

export interface EngineReport extends Provenance {
  engine: EngineId
  label: string
  model: string | null
  questions_asked: number
  questions_answered: number
}

export interface CitationPart extends Provenance {
  engines: EngineReport[]
  questions: QuestionCitations[]
  gaps: CitationGap[]
  /** Share of answered (question, engine) pairs that cite the site; null when nothing answered. */
  site_citation_rate: number | null
}

const CONCURRENCY = 6

/** Runs `fn` over items with at most `limit` at once, keeping order. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++
        out[i] = await fn(items[i])
      }
    }),
  )
  return out
}

/** Compares the cited URLs of one answer with the site's registrable domain. */
export function compareCitations(citedUrls: string[], siteDomain: string): { cited_domains: string[]; site_cited: boolean; site_urls: string[]; competitors: string[] } {
  // A Set, not a list search: an engine's answer may cite tens of thousands of domains.
  const domains = new Set<string>()
  const site_urls: string[] = []
  for (const url of citedUrls) {
    const d = registrableDomain(url)
    if (!d) continue
    domains.add(d)
    if (d === siteDomain) site_urls.push(url)
  }
  const cited_domains = [...domains]
  return { cited_domains, site_cited: site_urls.length > 0, site_urls, competitors: cited_domains.filter((d) => d !== siteDomain) }
}

/** The competitors of one question: every domain any of its answers cites as a competitor, first seen first. */
export function competitorsOf(results: Pick<QuestionEngineResult, 'competitors_cited'>[]): string[] {
  const competitors = new Set<string>()
  for (const r of results) for (const d of r.competitors_cited) competitors.add(d)
  return [...competitors]
}

/** Gaps: questions where at least one engine cited competitors and none cited the site. */
export function findGaps(questions: QuestionCitations[]): CitationGap[] {
  const gaps: CitationGap[] = []
  for (const q of questions) {
    if (q.site_cited_by.length > 0 || q.competitors_cited.length === 0) continue
    const withCompetitors = q.results.filter((r) => r.status === 'ok' && r.competitors_cited.length > 0)
    gaps.push({
      question: q.question,
      kind: q.kind,
      engines: withCompetitors.map((r) => r.engine),
      competitors: q.competitors_cited,
      evidence: withCompetitors.map((r) => ({ engine: r.engine, urls: r.cited_urls.slice(0, 8) })),
    })
  }
  return gaps.sort((a, b) => b.engines.length - a.engines.length || b.competitors.length - a.competitors.length)
}

/**
 * Asks every question to every configured answer engine and compares the cited domains with the
 * site's. An engine that fails is reported as `error` with its message; the others still count.
 */
export async function citationGaps(ctx: ActionContext, questions: ResearchQuestion[], siteDomain: string, engines: readonly AnswerEngine[] = ENGINES): Promise<CitationPart> {
  const configured: { engine: AnswerEngine; access: EngineAccess }[] = []
  const reports: EngineReport[] = []
  for (const engine of engines) {
    const access = await engine.access(ctx)
    if (access) configured.push({ engine, access })
    else
      reports.push({
        engine: engine.id,
        label: engine.label,
        status: 'unavailable',
        source: engine.id,
        measured_at: null,
        note: `Not configured: set ${engine.setting}`,
        model: null,
        questions_asked: 0,
        questions_answered: 0,
      })
  }
  if (configured.length === 0) {
    return {
      status: 'unavailable',
      source: 'answer_engines',
      measured_at: null,
      note: `No answer engine configured: set ${engines.map((e) => e.setting).join(', ')} (OpenAI and Anthropic keys connected to the account count too). The questions below were not asked.`,
      engines: reports,
      questions: questions.map((q) => ({ question: q.question, kind: q.kind, results: [], site_cited_by: [], competitors_cited: [] })),
      gaps: [],
      site_citation_rate: null,
    }
  }
  const pairs = questions.flatMap((q, qi) => configured.map((c) => ({ qi, q, c })))
  const answers = await pool(pairs, CONCURRENCY, async ({ q, c }): Promise<QuestionEngineResult> => {
    try {
      const a = await c.engine.ask(ctx, c.access, q.question)
      const cmp = compareCitations(a.cited_urls, siteDomain)
      return {
        engine: c.engine.id,
        status: 'ok',
        measured_at: nowIso(),
        model: a.model,
        cited_domains: cmp.cited_domains,
        cited_urls: a.cited_urls.slice(0, 20),
        site_cited: cmp.site_cited,
        site_urls: cmp.site_urls,
        competitors_cited: cmp.competitors,
        answer_excerpt: a.answer_excerpt,
        note: a.cited_urls.length ? `${a.cited_urls.length} cited URLs` : 'answered without citations',
      }
    } catch (err) {
      return {
        engine: c.engine.id,
        status: 'error',
        measured_at: nowIso(),
        model: c.access.model,
        cited_domains: [],
        cited_urls: [],
        site_cited: false,
        site_urls: [],
        competitors_cited: [],
        answer_excerpt: null,
        note: errorText(err),
      }
    }
  })
  const perQuestion: QuestionCitations[] = questions.map((q, qi) => {
    const results = answers.filter((_, i) => pairs[i].qi === qi)
    return { question: q.question, kind: q.kind, results, site_cited_by: results.filter((r) => r.site_cited).map((r) => r.engine), competitors_cited: competitorsOf(results) }
  })
  for (const { engine, access } of configured) {
    const mine = answers.filter((a) => a.engine === engine.id)
    const ok = mine.filter((a) => a.status === 'ok')
    const last =
      mine
        .map((a) => a.measured_at)
        .sort()
        .at(-1) ?? nowIso()
    const firstError = mine.find((a) => a.status === 'error')?.note
    reports.push({
      engine: engine.id,
      label: engine.label,
      status: ok.length ? 'ok' : 'error',
      source: engine.id,
      measured_at: last,
      note: ok.length === mine.length ? `${ok.length} questions answered (key: ${access.keySource})` : `${ok.length} of ${mine.length} questions answered; first failure: ${firstError}`,
      model: ok[0]?.model ?? access.model,
      questions_asked: mine.length,
      questions_answered: ok.length,
    })
  }
  reports.sort((a, b) => engines.findIndex((e) => e.id === a.engine) - engines.findIndex((e) => e.id === b.engine))
  const answered = answers.filter((a) => a.status === 'ok')
  const anyOk = answered.length > 0
  const gaps = findGaps(perQuestion)
  return {
    status: anyOk ? 'ok' : 'error',
    source: 'answer_engines',
    measured_at: nowIso(),
    note: anyOk
      ? `${questions.length} questions asked to ${configured.map((c) => c.engine.id).join(', ')}; ${answered.length} of ${answers.length} answers received; domains compared by registrable domain (${siteDomain})`
      : `Every answer engine call failed (${reports
          .filter((r) => r.status === 'error')
          .map((r) => `${r.engine}: ${r.note}`)
          .join('; ')})`,
    engines: reports,
    questions: perQuestion,
    gaps,
    site_citation_rate: anyOk ? Math.round((answered.filter((a) => a.site_cited).length / answered.length) * 1000) / 1000 : null,
  }
}
