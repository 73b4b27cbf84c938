import type { CrawledPage } from './site-checks'
import { termPairs, terms } from './text'

/** A group of pages that target the same primary keyphrase. */
export interface CannibalizationGroup {
  keyphrase: string
  pages: { url: string; title: string; h1: string; score: number; evidence: { in_title: boolean; in_h1: boolean; in_url: boolean; body_mentions: number } }[]
  recommendation: string
}

const FIELD_WEIGHTS = { title: 3, h1: 2.5, url: 2, body: 1.5 }

/** The last path segment of a URL as words ("/blog/trail-running-shoes" -> "trail running shoes"). */
export function slugOf(url: string): string {
  const segments = new URL(url).pathname.split('/').filter(Boolean)
  let last = segments[segments.length - 1] ?? ''
  try {
    last = decodeURIComponent(last)
  } catch {
    // keep the raw segment
  }
  return last.replace(/\.[a-z0-9]+$/i, '').replace(/[-_.]+/g, ' ')
}

/** 1-3 word phrases of a text: stemmed key -> the words as written. */
function phrases(text: string, brand: Set<string>): Map<string, string> {
  const list = termPairs(text).filter((t) => !brand.has(t.stem))
  const out = new Map<string, string>()
  for (let n = 1; n <= 3; n++) {
    for (let i = 0; i + n <= list.length; i++) {
      const part = list.slice(i, i + n)
      out.set(part.map((t) => t.stem).join(' '), part.map((t) => t.word).join(' '))
    }
  }
  return out
}

/** Body mentions of a phrase from the page's top terms (a trigram counts as its rarer bigram). */
function bodyMentions(phrase: string, body: Map<string, number>): number {
  const w = phrase.split(' ')
  if (w.length < 3) return body.get(phrase) ?? 0
  return Math.min(body.get(`${w[0]} ${w[1]}`) ?? 0, body.get(`${w[1]} ${w[2]}`) ?? 0)
}

interface Target {
  surface: string
  score: number
  evidence: CannibalizationGroup['pages'][number]['evidence']
}

/**
 * The keyphrases each page targets: 2-3 word phrases placed in at least two of its title, H1 and
 * URL slug, weighted title 3, H1 2.5, URL 2 plus body term frequency (up to 1.5). Terms in most
 * titles (the brand) are left out.
 */
export function targetedPhrases(pages: CrawledPage[]): Map<string, Map<string, Target>> {
  const titleTermDf = new Map<string, number>()
  for (const p of pages) for (const t of new Set(terms(p.rec.html?.titles[0] ?? ''))) titleTermDf.set(t, (titleTermDf.get(t) ?? 0) + 1)
  const brand = new Set([...titleTermDf.entries()].filter(([, n]) => pages.length >= 4 && n > pages.length * 0.5).map(([t]) => t))
  const out = new Map<string, Map<string, Target>>()
  for (const p of pages) {
    const h = p.rec.html!
    const title = phrases(h.titles[0] ?? '', brand)
    const h1 = phrases(h.headings.find((x) => x.level === 1)?.text ?? '', brand)
    const url = phrases(slugOf(p.url), brand)
    const body = new Map(h.terms)
    const maxBody = Math.max(1, ...h.terms.map(([, n]) => n))
    const targets = new Map<string, Target>()
    for (const phrase of new Set([...title.keys(), ...h1.keys(), ...url.keys()])) {
      if (!phrase.includes(' ')) continue
      const places = [title.has(phrase), h1.has(phrase), url.has(phrase)]
      if (places.filter(Boolean).length < 2) continue
      const mentions = bodyMentions(phrase, body)
      const score = (places[0] ? FIELD_WEIGHTS.title : 0) + (places[1] ? FIELD_WEIGHTS.h1 : 0) + (places[2] ? FIELD_WEIGHTS.url : 0) + FIELD_WEIGHTS.body * Math.min(1, mentions / maxBody)
      targets.set(phrase, {
        surface: title.get(phrase) ?? h1.get(phrase) ?? url.get(phrase)!,
        score: Math.round(score * 100) / 100,
        evidence: { in_title: places[0], in_h1: places[1], in_url: places[2], body_mentions: mentions },
      })
    }
    out.set(p.url, targets)
  }
  return out
}

/**
 * Groups of two or more indexable pages that target the same keyphrase. A page that places a
 * longer phrase containing the keyphrase as prominently ("trekking pole technique" over "trekking
 * pole") targets that narrower intent instead; a phrase whose pages all sit in a kept group is
 * folded into it.
 */
export function findCannibalization(pages: CrawledPage[]): CannibalizationGroup[] {
  const targeted = targetedPhrases(pages)
  const byPhrase = new Map<string, { url: string; t: Target }[]>()
  const places = (t: Target) => Number(t.evidence.in_title) + Number(t.evidence.in_h1) + Number(t.evidence.in_url)
  for (const p of pages) {
    const mine = targeted.get(p.url) ?? new Map<string, Target>()
    for (const [phrase, t] of mine) {
      // A longer phrase placed as prominently is the page's real (more specific) intent.
      const narrower = [...mine].some(([other, o]) => other !== phrase && ` ${other} `.includes(` ${phrase} `) && places(o) >= places(t))
      if (narrower) continue
      if (!byPhrase.has(phrase)) byPhrase.set(phrase, [])
      byPhrase.get(phrase)!.push({ url: p.url, t })
    }
  }
  const candidates = [...byPhrase.entries()]
    .filter(([, list]) => list.length > 1)
    .sort((a, b) => b[1].length - a[1].length || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
  const kept: { phrase: string; list: { url: string; t: Target }[] }[] = []
  for (const [phrase, list] of candidates) {
    const urls = new Set(list.map((x) => x.url))
    if (kept.some((k) => [...urls].every((u) => k.list.some((x) => x.url === u)))) continue
    kept.push({ phrase, list })
  }
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  return kept
    .map(({ list }) => {
      const sorted = [...list].sort((a, b) => b.t.score - a.t.score || a.url.localeCompare(b.url))
      const keyphrase = sorted[0].t.surface
      const h = (url: string) => byUrl.get(url)!.rec.html!
      return {
        keyphrase,
        pages: sorted.map(({ url, t }) => ({
          url,
          title: h(url).titles[0] ?? '',
          h1: h(url).headings.find((x) => x.level === 1)?.text ?? '',
          score: t.score,
          evidence: t.evidence,
        })),
        recommendation: `Pick ${sorted[0].url} as the page for "${keyphrase}"; merge or 301-redirect the others into it, or retarget them to distinct intents and link them to it.`,
      }
    })
    .sort((a, b) => b.pages.length - a.pages.length || a.keyphrase.localeCompare(b.keyphrase))
}
