import { pageQuestions } from './questions'
import type { CrawledPage } from './site-checks'
import { terms } from '../lib/text'

/** A gap analysis written by a model from the crawl's own evidence, marked as such. */
export interface ModelGapAnalysis {
  written_by_model: true
  status: 'ok' | 'error'
  model: string | null
  summary: string | null
  gaps: { topic: string; why: string; suggested_page: string; evidence: string[] }[]
  note: string | null
}

/** Deterministic content-gap analysis computed from the crawl. */
export interface ContentGaps {
  method: string
  /** Two-word topics many pages mention but no page targets (in its title, H1 or URL). */
  uncovered_topics: { topic: string; mentioned_on: number; example_pages: string[] }[]
  /** URL sections with few pages or little text. */
  thin_sections: { section: string; pages: number; average_words: number; reason: string }[]
  /** Topics the site links to whose pages are missing (4xx/5xx). */
  missing_pages: { url: string; status: number | null; anchor_texts: string[]; linked_from: number }[]
  /** Question headings across the site that get no direct answer. */
  unanswered_questions: { question: string; url: string }[]
  /** A model-written gap analysis (marked `written_by_model`) when a model is configured; null otherwise. */
  model_analysis: ModelGapAnalysis | null
}

export const GAP_METHOD =
  'uncovered_topics: two-word phrases said at least twice in the main text of at least max(3, 10% of) the indexable pages (and not nearly all of them) that no page has in its title, H1 or URL; ' +
  'thin_sections: first URL path segments with at most 2 pages or under 300 words per page on average; ' +
  'missing_pages: internal link targets that answered 4xx/5xx, with the anchor texts that name them; ' +
  'unanswered_questions: question-shaped headings without a direct answer below.'

function sectionOf(url: string): string {
  const seg = new URL(url).pathname.split('/').filter(Boolean)
  return seg.length > 1 ? `/${seg[0]}/` : '/'
}

/** Computes the deterministic content gaps of a crawl (indexable pages `primary`, all crawled `all`). */
export function findGaps(primary: CrawledPage[], all: CrawledPage[]): ContentGaps {
  const targeted = new Set<string>()
  for (const p of primary) {
    const h = p.rec.html!
    const fields = [h.titles[0] ?? '', h.headings.find((x) => x.level === 1)?.text ?? '', decodeURIComponent(new URL(p.url).pathname).replace(/[-_/.]+/g, ' ')]
    for (const field of fields) {
      const list = terms(field)
      for (let i = 0; i < list.length; i++) {
        targeted.add(list[i])
        if (i + 1 < list.length) targeted.add(`${list[i]} ${list[i + 1]}`)
      }
    }
  }
  const df = new Map<string, string[]>()
  for (const p of primary) {
    for (const [term, count] of p.rec.html!.terms) {
      if (count < 2 || !term.includes(' ')) continue
      if (!df.has(term)) df.set(term, [])
      df.get(term)!.push(p.url)
    }
  }
  const minDf = Math.max(3, Math.ceil(primary.length * 0.1))
  const candidates = [...df.entries()]
    .filter(([term, urls]) => urls.length >= minDf && urls.length < primary.length * 0.9 && !targeted.has(term))
    .sort((a, b) => b[1].length - a[1].length || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
  const uncovered: ContentGaps['uncovered_topics'] = []
  for (const [topic, urls] of candidates) {
    uncovered.push({ topic, mentioned_on: urls.length, example_pages: urls.slice(0, 5) })
    if (uncovered.length >= 15) break
  }

  const sections = new Map<string, CrawledPage[]>()
  for (const p of primary) {
    const s = sectionOf(p.url)
    if (s === '/') continue
    if (!sections.has(s)) sections.set(s, [])
    sections.get(s)!.push(p)
  }
  const thin: ContentGaps['thin_sections'] = []
  for (const [section, pages] of [...sections.entries()].sort()) {
    const avg = Math.round(pages.reduce((s, p) => s + p.rec.html!.wordCount, 0) / pages.length)
    if (pages.length <= 2 || avg < 300) {
      thin.push({ section, pages: pages.length, average_words: avg, reason: pages.length <= 2 ? `only ${pages.length} page(s) in the section` : `pages average ${avg} words` })
    }
  }

  const missing = new Map<string, { status: number | null; texts: Set<string>; from: Set<string> }>()
  const byUrl = new Map(all.map((p) => [p.url, p]))
  for (const p of all) {
    for (const l of p.rec.html?.links ?? []) {
      const t = byUrl.get(l.url)
      if (!t || t.rec.kind !== 'error' || !t.rec.status || t.rec.status < 400) continue
      if (!missing.has(l.url)) missing.set(l.url, { status: t.rec.status, texts: new Set(), from: new Set() })
      const m = missing.get(l.url)!
      if (l.text) m.texts.add(l.text)
      m.from.add(p.url)
    }
  }

  const unanswered: ContentGaps['unanswered_questions'] = []
  for (const p of primary) for (const q of pageQuestions(p.rec.html!)) if (!q.answered && unanswered.length < 50) unanswered.push({ question: q.text, url: p.url })

  return {
    method: GAP_METHOD,
    uncovered_topics: uncovered,
    thin_sections: thin,
    missing_pages: [...missing.entries()]
      .map(([url, m]) => ({ url, status: m.status, anchor_texts: [...m.texts].slice(0, 5), linked_from: m.from.size }))
      .sort((a, b) => b.linked_from - a.linked_from || a.url.localeCompare(b.url)),
    unanswered_questions: unanswered,
    model_analysis: null,
  }
}
