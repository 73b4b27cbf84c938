import type { CrawledPage } from './site-checks'
import { terms } from './text'

/** A group of pages that target the same primary keyphrase. */
export interface CannibalizationGroup {
  keyphrase: string
  pages: { url: string; title: string; h1: string; score: number; evidence: { in_title: boolean; in_h1: boolean; in_url: boolean; body_mentions: number } }[]
  recommendation: string
}

const FIELD_WEIGHTS = { title: 3, h1: 2.5, url: 2, body: 1.5 }

function ngrams(list: string[], n: number): string[] {
  const out: string[] = []
  for (let i = 0; i + n <= list.length; i++) out.push(list.slice(i, i + n).join(' '))
  return out
}

function phrases(text: string, brand: Set<string>): Set<string> {
  const list = terms(text).filter((t) => !brand.has(t))
  return new Set([...ngrams(list, 1), ...ngrams(list, 2), ...ngrams(list, 3)])
}

/**
 * The primary keyphrase of each page: the 1-3 word phrase with the highest weight over title (3),
 * H1 (2.5), URL slug (2) and body term frequency (up to 1.5), needing a place in at least two of
 * title, H1 and URL; longer phrases get +0.5 per extra word. Terms shared by most titles (the brand)
 * are left out.
 */
export function primaryKeyphrases(pages: CrawledPage[]): Map<string, { phrase: string; score: number; evidence: CannibalizationGroup['pages'][number]['evidence'] }> {
  const titleTermDf = new Map<string, number>()
  for (const p of pages) for (const t of new Set(terms(p.rec.html?.titles[0] ?? ''))) titleTermDf.set(t, (titleTermDf.get(t) ?? 0) + 1)
  const brand = new Set([...titleTermDf.entries()].filter(([, n]) => pages.length >= 4 && n > pages.length * 0.5).map(([t]) => t))
  const out = new Map<string, { phrase: string; score: number; evidence: CannibalizationGroup['pages'][number]['evidence'] }>()
  for (const p of pages) {
    const h = p.rec.html!
    const title = phrases(h.titles[0] ?? '', brand)
    const h1 = phrases(h.headings.find((x) => x.level === 1)?.text ?? '', brand)
    const slug = decodeURIComponent(new URL(p.url).pathname).replace(/[-_/.]+/g, ' ')
    const url = phrases(slug, brand)
    const body = new Map(h.terms)
    const maxBody = Math.max(1, ...h.terms.map(([, n]) => n))
    let best: { phrase: string; score: number; evidence: CannibalizationGroup['pages'][number]['evidence'] } | null = null
    for (const phrase of new Set([...title, ...h1, ...url])) {
      const places = [title.has(phrase), h1.has(phrase), url.has(phrase)]
      if (places.filter(Boolean).length < 2) continue
      const mentions = body.get(phrase) ?? 0
      const words = phrase.split(' ').length
      const score =
        (places[0] ? FIELD_WEIGHTS.title : 0) + (places[1] ? FIELD_WEIGHTS.h1 : 0) + (places[2] ? FIELD_WEIGHTS.url : 0) + FIELD_WEIGHTS.body * (mentions / maxBody) + 0.5 * (words - 1)
      if (!best || score > best.score || (score === best.score && phrase < best.phrase)) {
        best = { phrase, score: Math.round(score * 100) / 100, evidence: { in_title: places[0], in_h1: places[1], in_url: places[2], body_mentions: mentions } }
      }
    }
    if (best) out.set(p.url, best)
  }
  return out
}

/** Groups of two or more indexable pages whose primary keyphrase is the same. */
export function findCannibalization(pages: CrawledPage[]): CannibalizationGroup[] {
  const primary = primaryKeyphrases(pages)
  const groups = new Map<string, CannibalizationGroup['pages']>()
  for (const p of pages) {
    const k = primary.get(p.url)
    if (!k) continue
    if (!groups.has(k.phrase)) groups.set(k.phrase, [])
    groups.get(k.phrase)!.push({
      url: p.url,
      title: p.rec.html!.titles[0] ?? '',
      h1: p.rec.html!.headings.find((x) => x.level === 1)?.text ?? '',
      score: k.score,
      evidence: k.evidence,
    })
  }
  return [...groups.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([keyphrase, list]) => {
      const sorted = list.sort((a, b) => b.score - a.score || a.url.localeCompare(b.url))
      return {
        keyphrase,
        pages: sorted,
        recommendation: `Pick ${sorted[0].url} as the page for "${keyphrase}"; merge or 301-redirect the others into it, or retarget them to distinct intents and link them to it.`,
      }
    })
    .sort((a, b) => b.pages.length - a.pages.length || a.keyphrase.localeCompare(b.keyphrase))
}
