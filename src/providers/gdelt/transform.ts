/** GDELT DOC 2.0 API `mode=artlist&format=json` response. */
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

/** Articles of an artlist answer, deduplicated by URL and title. */
export function articlesOf(list: ArtList): NewsArticle[] {
  const seen = new Set<string>()
  const out: NewsArticle[] = []
  for (const a of list.articles ?? []) {
    const key = a.title.trim().toLowerCase()
    if (seen.has(a.url) || seen.has(key)) continue
    seen.add(a.url).add(key)
    out.push({ title: a.title.trim(), url: a.url, source: a.domain, published_at: seenDate(a.seendate), language: a.language, country: a.sourcecountry })
  }
  return out
}

/** The DOC API query for a company: its name as a phrase, or its domain. */
export function newsQuery(name: string | null, domain: string): string {
  const clean = (name ?? '').replace(/["()]/g, '').trim()
  return clean.length >= 3 ? `"${clean}"` : `"${domain}"`
}
