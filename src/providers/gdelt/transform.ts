/** GDELT DOC 2.0 API `mode=artlist&format=json` response. */
import { objectOf, objectsOf, text } from '../shape'

export const SERVICE = 'GDELT'

export interface ArtList {
  articles?: { url: string; url_mobile?: string; title: string; seendate: string; socialimage?: string; domain: string; language: string; sourcecountry: string }[]
}

export interface NewsArticle {
  title: string
  url: string
  source: string
  published_at: string | null
  language: string
  country: string
}

/** GDELT's "20240115T143000Z" as ISO 8601. */
export function seenDate(s: string): string | null {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(s)
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null
}

/**
 * Articles of an artlist answer, deduplicated by URL and title. Articles without a title (or with an
 * empty one) or URL are skipped; a source, language or country that is not text reads as "" (GDELT always sends them).
 */
export function articlesOf(list: ArtList): NewsArticle[] {
  const seen = new Set<string>()
  const out: NewsArticle[] = []
  // The declared type is what GDELT documents; the reads below hold for any JSON it sends.
  for (const a of objectsOf(objectOf(list, SERVICE).articles, SERVICE, 'articles')) {
    const title = text(a.title)?.trim()
    const url = text(a.url)
    if (!title || !url) continue
    const key = title.toLowerCase()
    if (seen.has(url) || seen.has(key)) continue
    seen.add(url).add(key)
    const published = text(a.seendate)
    out.push({ title, url, source: text(a.domain) ?? '', published_at: published === null ? null : seenDate(published), language: text(a.language) ?? '', country: text(a.sourcecountry) ?? '' })
  }
  return out
}

/** The DOC API query for a company: its name as a phrase, or its domain. */
export function newsQuery(name: string | null, domain: string): string {
  const clean = (name ?? '').replace(/["()]/g, '').trim()
  return clean.length >= 3 ? `"${clean}"` : `"${domain}"`
}
