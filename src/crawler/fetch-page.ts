import type { CrawlKind } from '../db/crawl'
import type { GuardedFetch } from '../providers/web/fetch'
import { extractHtml, type HtmlFacts } from '../providers/web/html'
import { normalizeUrl } from './scope'

/** An HTTP `Link` header entry. */
export interface LinkHeader {
  url: string
  rel: string
  hreflang: string | null
}

/** What the crawler keeps of one fetched URL (stored as JSON in the frontier row). */
export interface PageRecord {
  url: string
  kind: CrawlKind
  status: number | null
  contentType: string | null
  /** Redirect target, resolved and normalized. */
  location: string | null
  error: string | null
  xRobotsTag: string[]
  linkHeaders: LinkHeader[]
  lastModified: string | null
  /** Time to the response headers (server response time). */
  fetchMs: number
  /** Time to read and parse the body. */
  parseMs: number
  html: HtmlFacts | null
}

export const PAGE_TIMEOUT_MS = 10_000
export const PAGE_MAX_BYTES = 3 * 1024 * 1024
const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** Parses `Link` header values (`<url>; rel="canonical", <url>; rel=alternate; hreflang=de`). */
export function parseLinkHeader(value: string | null, base: string): LinkHeader[] {
  if (!value) return []
  const out: LinkHeader[] = []
  // Linear on a hostile header: a URL ends at the next "<" as well (RFC 8288 has none inside one),
  // so a run of "<" is not rescanned from each of them; and the parameters are read as before,
  // each up to the next ";" or "," (a quoted "," or ";" ends it there too), without the ambiguous
  // split of `name=value` that could backtrack exponentially.
  const re = /<([^<>]*)>((?:\s*;[^;,]+(?:;[^;,]+)*)?)/g
  for (const m of value.matchAll(re)) {
    const params = new Map<string, string>()
    for (const p of m[2].matchAll(/;\s*([^=;,\s]+)\s*(?:=\s*("([^"]*)"|[^;,]*))?/g)) params.set(p[1].toLowerCase(), (p[3] ?? p[2] ?? '').trim())
    let url = m[1].trim()
    try {
      url = new URL(url, base).toString()
    } catch {
      // keep the raw text: the canonical check reports it as invalid
    }
    out.push({ url, rel: (params.get('rel') ?? '').toLowerCase(), hreflang: params.has('hreflang') ? (params.get('hreflang') ?? '') : null })
  }
  return out
}

/** X-Robots-Tag values, one per header line (Headers joins repeats with ", "). */
function robotsHeader(headers: Headers): string[] {
  const value = headers.get('x-robots-tag')
  return value ? [value] : []
}

/**
 * Fetches one URL without following redirects (each hop is its own frontier entry, so chains are
 * visible) and extracts the audit facts of HTML answers. Network failures become `error` records.
 */
export async function fetchPage(fetcher: GuardedFetch, url: string): Promise<PageRecord> {
  const started = Date.now()
  const record: PageRecord = {
    url,
    kind: 'error',
    status: null,
    contentType: null,
    location: null,
    error: null,
    xRobotsTag: [],
    linkHeaders: [],
    lastModified: null,
    fetchMs: 0,
    parseMs: 0,
    html: null,
  }
  try {
    const res = await fetcher(url, {
      service: new URL(url).hostname,
      timeoutMs: PAGE_TIMEOUT_MS,
      maxBytes: PAGE_MAX_BYTES,
      maxRedirects: 0,
      retries: 1,
      maxRetryAfterMs: 3000,
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
    })
    record.fetchMs = Date.now() - started
    record.status = res.status
    record.contentType = res.headers.get('content-type')
    record.xRobotsTag = robotsHeader(res.headers)
    record.linkHeaders = parseLinkHeader(res.headers.get('link'), url)
    record.lastModified = res.headers.get('last-modified')
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel()
      const location = res.headers.get('location')
      record.kind = 'redirect'
      record.location = location ? normalizeUrl(location, url) : null
      if (!record.location) {
        record.kind = 'error'
        record.error = 'redirect without a usable Location header'
      }
    } else if (res.status >= 400) {
      await res.body?.cancel()
      record.kind = 'error'
      record.error = `HTTP ${res.status}`
    } else if (!/^(text\/html|application\/xhtml\+xml)/i.test(record.contentType ?? 'text/html')) {
      await res.body?.cancel()
      record.kind = 'skipped'
      record.error = `not HTML (${record.contentType})`
    } else {
      record.html = await extractHtml(res, url)
      record.kind = 'html'
    }
  } catch (err) {
    record.kind = 'error'
    record.error = (err as Error).message.slice(0, 300)
  }
  record.parseMs = Date.now() - started - record.fetchMs
  return record
}
