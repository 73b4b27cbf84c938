import { jsonSize } from '../lib/json-size'
import { phrasesOf, slugWords, terms } from '../lib/text'

/** A group of pages that target the same primary keyphrase. */
export interface CannibalizationGroup {
  keyphrase: string
  pages: {
    url: string
    title: string
    h1: string
    /** The keyphrase as this page writes it (in its title or H1). */
    phrase_on_page: string
    score: number
    /** Where the page places the phrase, and how often its main text says it (adjacent words, stemmed). */
    evidence: { in_title: boolean; in_h1: boolean; in_url: boolean; body_mentions: number }
  }[]
  recommendation: string
}

/** What keyphrase targeting reads of an indexable page: its first title, its first H1 and its body's phrase counts. */
export interface KeyphrasePage {
  url: string
  title: string
  h1: string
  phraseCounts: [string, number][]
}

/**
 * How much of the groups a report lists: a group's strongest pages, and the largest groups within a
 * byte budget. A site of hundreds of pages each sharing phrases with the next made tens of megabytes
 * of groups (each page listed with its title and H1 in every group it is in); real sites' groups
 * are a few pages each and take kilobytes.
 */
export const GROUP_PAGES_LISTED = 50
export const GROUPS_MAX_BYTES = 2 * 1024 * 1024

const FIELD_WEIGHTS = { title: 3, h1: 2.5, url: 2, body: 1.5 }

interface Target {
  /** Whether the phrase is reported: its words stand side by side on the page. */
  reportable: boolean
  surface: string
  score: number
  evidence: CannibalizationGroup['pages'][number]['evidence']
}

/**
 * The keyphrases each page targets: 2-3 word phrases placed in at least two of its title, H1 and
 * URL slug, weighted title 3, H1 2.5, URL 2 plus body mentions (up to 1.5). A phrase is a run of
 * adjacent words as the page writes them: a term in most titles (the brand) may sit inside one but
 * not start or end it, and is never dropped from it, so no phrase joins words the page never puts
 * side by side.
 */
export function targetedPhrases(pages: KeyphrasePage[]): Map<string, Map<string, Target>> {
  const titleTermDf = new Map<string, number>()
  for (const p of pages) for (const t of new Set(terms(p.title))) titleTermDf.set(t, (titleTermDf.get(t) ?? 0) + 1)
  const brand = new Set([...titleTermDf.entries()].filter(([, n]) => pages.length >= 4 && n > pages.length * 0.5).map(([t]) => t))
  const out = new Map<string, Map<string, Target>>()
  for (const p of pages) {
    const fields = [p.title, p.h1, slugWords(p.url)]
    const [title, h1, url] = fields.map((f) => phrasesOf(f, brand))
    // Phrases read across stopwords ("choose a sleeping bag" -> "choose sleeping bag"): never
    // reported, only there to show that a page targets a narrower intent than a phrase inside it.
    const [looseTitle, looseH1, looseUrl] = fields.map((f) => phrasesOf(f, brand, true))
    const body = new Map(p.phraseCounts)
    const maxBody = Math.max(1, ...p.phraseCounts.map(([, n]) => n))
    const targets = new Map<string, Target>()
    for (const phrase of new Set([...looseTitle.keys(), ...looseH1.keys(), ...looseUrl.keys()])) {
      if (title.has(phrase) || h1.has(phrase) || url.has(phrase)) continue
      const places = [looseTitle.has(phrase), looseH1.has(phrase), looseUrl.has(phrase)]
      if (places.filter(Boolean).length < 2) continue
      targets.set(phrase, { reportable: false, surface: '', score: 0, evidence: { in_title: places[0], in_h1: places[1], in_url: places[2], body_mentions: 0 } })
    }
    for (const phrase of new Set([...title.keys(), ...h1.keys(), ...url.keys()])) {
      const places = [title.has(phrase), h1.has(phrase), url.has(phrase)]
      // Two places, so at least one is text on the page (the title or the H1).
      if (places.filter(Boolean).length < 2) continue
      const mentions = body.get(phrase) ?? 0
      const score = (places[0] ? FIELD_WEIGHTS.title : 0) + (places[1] ? FIELD_WEIGHTS.h1 : 0) + (places[2] ? FIELD_WEIGHTS.url : 0) + FIELD_WEIGHTS.body * Math.min(1, mentions / maxBody)
      targets.set(phrase, {
        reportable: true,
        surface: title.get(phrase) ?? h1.get(phrase)!,
        score: Math.round(score * 100) / 100,
        evidence: { in_title: places[0], in_h1: places[1], in_url: places[2], body_mentions: mentions },
      })
    }
    out.set(p.url, targets)
  }
  return out
}

/**
 * For each phrase inside another of the page's targeted phrases (its words a run of that phrase's
 * words), how many places the widest such phrase holds: one pass over the phrases, each of at most
 * three words, where comparing every pair cost the square of a page's phrases (a 2,000-character
 * title and URL slug give about 1,500, and a crawl of such pages took minutes).
 */
function widestAround(mine: Map<string, Target>, places: (t: Target) => number): Map<string, number> {
  const out = new Map<string, number>()
  for (const [other, o] of mine) {
    const words = other.split(' ')
    const n = places(o)
    for (let from = 0; from < words.length; from++) {
      for (let to = from + 1; to <= words.length; to++) {
        if (from === 0 && to === words.length) continue
        const inner = words.slice(from, to).join(' ')
        if ((out.get(inner) ?? -1) < n) out.set(inner, n)
      }
    }
  }
  return out
}

/**
 * Groups of two or more indexable pages that target the same keyphrase. A page that places a
 * longer phrase containing the keyphrase as prominently ("trekking pole technique" over "trekking
 * pole") targets that narrower intent instead; a phrase whose pages all sit in a kept group is
 * folded into it.
 */
export function findCannibalization(pages: KeyphrasePage[]): CannibalizationGroup[] {
  const targeted = targetedPhrases(pages)
  const byPhrase = new Map<string, { url: string; t: Target }[]>()
  const places = (t: Target) => Number(t.evidence.in_title) + Number(t.evidence.in_h1) + Number(t.evidence.in_url)
  for (const p of pages) {
    const mine = targeted.get(p.url) ?? new Map<string, Target>()
    const within = widestAround(mine, places)
    for (const [phrase, t] of mine) {
      if (!t.reportable) continue
      // A longer phrase placed as prominently is the page's real (more specific) intent.
      if ((within.get(phrase) ?? -1) >= places(t)) continue
      if (!byPhrase.has(phrase)) byPhrase.set(phrase, [])
      byPhrase.get(phrase)!.push({ url: p.url, t })
    }
  }
  const candidates = [...byPhrase.entries()]
    .filter(([, list]) => list.length > 1)
    .sort((a, b) => b[1].length - a[1].length || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
  const kept: { phrase: string; list: { url: string; t: Target }[] }[] = []
  // Each kept group's pages as a Set, and the groups holding each page: whether a candidate's pages
  // all sit in one group is asked of the groups holding its rarest page, never by scanning every
  // group's list for every page (1,000 pages sharing phrases took 28 s in Node).
  const keptUrls: Set<string>[] = []
  const groupsOf = new Map<string, number[]>()
  for (const [phrase, list] of candidates) {
    const urls = new Set(list.map((x) => x.url))
    const pagesOf = [...urls]
    let rarest = groupsOf.get(pagesOf[0]) ?? []
    for (const u of pagesOf) {
      if (rarest.length === 0) break
      const groups = groupsOf.get(u) ?? []
      if (groups.length < rarest.length) rarest = groups
    }
    if (rarest.some((g) => pagesOf.every((u) => keptUrls[g].has(u)))) continue
    kept.push({ phrase, list })
    keptUrls.push(urls)
    for (const u of pagesOf) {
      const groups = groupsOf.get(u)
      if (groups) groups.push(kept.length - 1)
      else groupsOf.set(u, [kept.length - 1])
    }
  }
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const groups = kept
    .map(({ list }) => {
      const sorted = [...list].sort((a, b) => b.t.score - a.t.score || a.url.localeCompare(b.url))
      const keyphrase = sorted[0].t.surface
      const page = (url: string) => byUrl.get(url)!
      const listed = sorted.slice(0, GROUP_PAGES_LISTED)
      const unlisted = sorted.length > listed.length ? ` ${sorted.length} pages target it; the ${listed.length} strongest are listed.` : ''
      return {
        keyphrase,
        pages: listed.map(({ url, t }) => ({
          url,
          title: page(url).title,
          h1: page(url).h1,
          phrase_on_page: t.surface,
          score: t.score,
          evidence: t.evidence,
        })),
        recommendation: `Pick ${sorted[0].url} as the page for "${keyphrase}"; merge or 301-redirect the others into it, or retarget them to distinct intents and link them to it.${unlisted}`,
        size: sorted.length,
      }
    })
    .sort((a, b) => b.size - a.size || a.keyphrase.localeCompare(b.keyphrase))
  const out: CannibalizationGroup[] = []
  let bytes = 2
  for (const { size: _, ...group } of groups) {
    bytes += jsonSize(group) + 1
    if (bytes > GROUPS_MAX_BYTES) break
    out.push(group)
  }
  return out
}
