import { stem, termPairs } from '../../lib/text'
import type { SitePage } from '../site-pages'

/** A keyword candidate from the topic or the site's own pages: no metrics, nothing measured. */
export interface CandidateKeyword {
  keyword: string
  source: 'topic' | 'site_headings' | 'site_questions'
  /** Site pages whose title or headings hold the phrase. */
  site_pages: string[]
}

const MAX_PAGES_LISTED = 5

/** Word n-grams (2-3 content words, in order) of a heading. */
function phrases(text: string): string[] {
  const ws = termPairs(text).map((t) => t.word)
  const out: string[] = []
  for (let n = 2; n <= 3; n++) for (let i = 0; i + n <= ws.length; i++) out.push(ws.slice(i, i + n).join(' '))
  return out
}

/**
 * Candidate keywords: the topic, then 2-3 word phrases of the site's titles and headings and its
 * question headings that share a word with the topic (ranked by how many pages hold them). When no
 * heading relates to the topic, the site's most repeated heading phrases are offered instead.
 */
export function candidateKeywords(topic: string, pages: SitePage[], limit: number): CandidateKeyword[] {
  const topicStems = new Set(termPairs(topic).map((t) => t.stem))
  const related = (phrase: string) => termPairs(phrase).some((t) => topicStems.has(stem(t.word)))
  const byPhrase = new Map<string, { source: CandidateKeyword['source']; pages: Set<string> }>()
  const note = (phrase: string, source: CandidateKeyword['source'], url: string) => {
    const key = phrase.toLowerCase().replace(/\s+/g, ' ').trim()
    if (!key) return
    if (!byPhrase.has(key)) byPhrase.set(key, { source, pages: new Set() })
    byPhrase.get(key)!.pages.add(url)
  }
  for (const p of pages) {
    for (const h of new Set([p.title ?? '', p.h1 ?? '', ...p.headings])) for (const ph of phrases(h)) note(ph, 'site_headings', p.url)
    for (const q of p.questions) if (q.length <= 120) note(q.replace(/\s+/g, ' '), 'site_questions', p.url)
  }
  const topicKey = topic.toLowerCase().replace(/\s+/g, ' ').trim()
  const ranked = [...byPhrase.entries()].filter(([k]) => k !== topicKey).sort((a, b) => b[1].pages.size - a[1].pages.size || a[0].localeCompare(b[0]))
  let chosen = ranked.filter(([k]) => related(k))
  // Phrases on nearly every page are navigation or the brand, not topics.
  const everywhere = (n: number) => pages.length >= 4 && n >= pages.length * 0.8
  if (chosen.length === 0) chosen = ranked.filter(([, v]) => v.pages.size >= 2 && !everywhere(v.pages.size))
  const out: CandidateKeyword[] = [{ keyword: topic.trim(), source: 'topic', site_pages: byPhrase.get(topicKey) ? [...byPhrase.get(topicKey)!.pages].slice(0, MAX_PAGES_LISTED) : [] }]
  for (const [keyword, v] of chosen) {
    if (out.length >= limit) break
    if (everywhere(v.pages.size)) continue
    // Drop a 2-word phrase when a kept 3-word phrase holding it covers the same pages.
    if (out.some((o) => o.keyword.includes(keyword) && o.site_pages.length >= Math.min(v.pages.size, MAX_PAGES_LISTED))) continue
    out.push({ keyword, source: v.source, site_pages: [...v.pages].slice(0, MAX_PAGES_LISTED) })
  }
  return out
}

/** Search intent read from a phrase's wording alone (a heuristic, labelled as such in the output). */
export function intentFromWording(phrase: string): 'informational' | 'commercial' | 'transactional' | null {
  const p = phrase.toLowerCase()
  if (/\b(buy|price|pricing|cost|cheap|discount|coupon|order|hire|quote)\b/.test(p)) return 'transactional'
  if (/\b(best|top|vs|versus|review|reviews|compare|comparison|alternatives?)\b/.test(p)) return 'commercial'
  if (/\b(what|how|why|when|who|guide|tutorial|examples?|tips|ideas)\b|\?$/.test(p)) return 'informational'
  return null
}
