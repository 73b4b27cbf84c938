import { decodeUriPart, terms } from '../lib/text'
import type { HtmlFacts, PageLink } from '../providers/web/html-facts'
import { pageQuestions } from './questions'
import type { CrawledUrl } from './site-checks'

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

/** A URL's path as words; a path that is not valid percent-encoding ("/%ZZ") is read as written. */
function pathWords(url: string): string {
  const path = new URL(url).pathname
  return (decodeUriPart(path) ?? path).replace(/[-_/.]+/g, ' ')
}

/** What the gaps need kept of an indexable page until the whole crawl is read. */
export interface GapPage {
  url: string
  title: string
  h1: string
}

const UNANSWERED_LISTED = 50
const ANCHOR_TEXTS_LISTED = 5

/**
 * The content gaps of a crawl, tallied one page at a time in crawl order: what a page adds is kept
 * as counts and first examples, never its facts, so the tally stays small whatever the pages hold.
 */
export class GapTally {
  /** Two-word terms said at least twice on an indexable page, with those pages. */
  private readonly df = new Map<string, string[]>()
  private readonly sections = new Map<string, { pages: number; words: number }>()
  private readonly missing = new Map<string, { status: number; texts: string[]; from: number; lastFrom: string }>()
  private readonly unanswered: ContentGaps['unanswered_questions'] = []

  /** An indexable page (isPrimary). */
  addPrimary(url: string, h: Pick<HtmlFacts, 'terms' | 'wordCount' | 'headings' | 'lang'>): void {
    for (const [term, count] of h.terms) {
      if (count < 2 || !term.includes(' ')) continue
      const urls = this.df.get(term)
      if (urls) urls.push(url)
      else this.df.set(term, [url])
    }
    const s = sectionOf(url)
    if (s !== '/') {
      const t = this.sections.get(s) ?? { pages: 0, words: 0 }
      t.pages++
      t.words += h.wordCount
      this.sections.set(s, t)
    }
    if (this.unanswered.length < UNANSWERED_LISTED) {
      for (const q of pageQuestions(h)) if (!q.answered && this.unanswered.length < UNANSWERED_LISTED) this.unanswered.push({ question: q.text, url })
    }
  }

  /** Any crawled page's links: the ones to crawled URLs that answered 4xx/5xx are missing pages. */
  addLinks(from: string, links: PageLink[], byUrl: Map<string, CrawledUrl>): void {
    for (const l of links) {
      const t = byUrl.get(l.url)
      if (!t || t.kind !== 'error' || !t.status || t.status < 400) continue
      let m = this.missing.get(t.url)
      if (!m) this.missing.set(t.url, (m = { status: t.status, texts: [], from: 0, lastFrom: '' }))
      if (l.text && m.texts.length < ANCHOR_TEXTS_LISTED && !m.texts.includes(l.text)) m.texts.push(l.text)
      if (m.lastFrom !== from) {
        m.from++
        m.lastFrom = from
      }
    }
  }

  /** The gaps, given every indexable page's title and H1 in crawl order. */
  result(primary: GapPage[]): ContentGaps {
    const minDf = Math.max(3, Math.ceil(primary.length * 0.1))
    const common = [...this.df.entries()].filter(([, urls]) => urls.length >= minDf && urls.length < primary.length * 0.9)
    // A topic a page already targets (its title, H1 or URL says it) is no gap. Only the common
    // terms are looked for, so nothing grows with the pages' texts.
    const wanted = new Set(common.map(([term]) => term))
    const targeted = new Set<string>()
    for (const p of primary) {
      for (const field of [p.title, p.h1, pathWords(p.url)]) {
        const list = terms(field)
        for (let i = 0; i + 1 < list.length; i++) {
          const bigram = `${list[i]} ${list[i + 1]}`
          if (wanted.has(bigram)) targeted.add(bigram)
        }
      }
    }
    const candidates = common.filter(([term]) => !targeted.has(term)).sort((a, b) => b[1].length - a[1].length || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
    const uncovered: ContentGaps['uncovered_topics'] = candidates.slice(0, 15).map(([topic, urls]) => ({ topic, mentioned_on: urls.length, example_pages: urls.slice(0, 5) }))

    const thin: ContentGaps['thin_sections'] = []
    for (const [section, t] of [...this.sections.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      const avg = Math.round(t.words / t.pages)
      if (t.pages <= 2 || avg < 300) thin.push({ section, pages: t.pages, average_words: avg, reason: t.pages <= 2 ? `only ${t.pages} page(s) in the section` : `pages average ${avg} words` })
    }

    return {
      method: GAP_METHOD,
      uncovered_topics: uncovered,
      thin_sections: thin,
      missing_pages: [...this.missing.entries()]
        .map(([url, m]) => ({ url, status: m.status, anchor_texts: m.texts, linked_from: m.from }))
        .sort((a, b) => b.linked_from - a.linked_from || a.url.localeCompare(b.url)),
      unanswered_questions: this.unanswered,
      model_analysis: null,
    }
  }
}
