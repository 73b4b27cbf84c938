import type { CrawlKind } from '../db/crawl'
import { jsonPrefix } from '../lib/json-size'
import { cutChars } from '../lib/text'
import { MAX_URL_LENGTH, within } from '../providers/web/fact-limits'
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

/**
 * Bytes of JSON a page record (`JSON.stringify`, as a crawl stores it) takes at most, whatever the
 * page and its headers: its facts (HTML_FACTS_MAX_BYTES, fact-limits.ts), its URL and redirect
 * target (at most MAX_URL_LENGTH characters, which a frontier URL is, of at most 2 bytes of JSON
 * each), the header fields within HEADER_LIMITS and the fixed fields. D1 takes 2,000,000 bytes a
 * value, and 100 such rows are well within the 50 MB it answers a query with.
 */
export const PAGE_FACTS_MAX_BYTES = 320 * 1024

/** Bytes of JSON each header field keeps at most (a prefix), and the Link header entries together. */
const HEADER_LIMITS = { contentType: 256, lastModified: 256, xRobotsTag: 2048, linkRel: 256, linkHreflang: 128, linkHeaders: 8192 }
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
  return value ? [jsonPrefix(value, HEADER_LIMITS.xRobotsTag)] : []
}

/** Link header entries as a record keeps them: a URL too long to crawl is left out, never cut (it would name another page). */
function keptLinkHeaders(links: LinkHeader[]): LinkHeader[] {
  const kept = links
    .filter((l) => l.url.length <= MAX_URL_LENGTH)
    .map((l) => ({ url: l.url, rel: jsonPrefix(l.rel, HEADER_LIMITS.linkRel), hreflang: l.hreflang === null ? null : jsonPrefix(l.hreflang, HEADER_LIMITS.linkHreflang) }))
  return within(kept, HEADER_LIMITS.linkHeaders)
}

function headerPrefix(value: string | null, limit: number): string | null {
  return value === null ? null : jsonPrefix(value, limit)
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
    const contentType = res.headers.get('content-type')
    record.contentType = headerPrefix(contentType, HEADER_LIMITS.contentType)
    record.xRobotsTag = robotsHeader(res.headers)
    record.linkHeaders = keptLinkHeaders(parseLinkHeader(res.headers.get('link'), url))
    record.lastModified = headerPrefix(res.headers.get('last-modified'), HEADER_LIMITS.lastModified)
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
    } else if (!/^(text\/html|application\/xhtml\+xml)/i.test(contentType ?? 'text/html')) {
      await res.body?.cancel()
      record.kind = 'skipped'
      record.error = `not HTML (${record.contentType})`
    } else {
      record.html = await extractHtml(res, url)
      record.kind = 'html'
    }
  } catch (err) {
    record.kind = 'error'
    record.error = cutChars((err as Error).message, 300)
  }
  record.parseMs = Date.now() - started - record.fetchMs
  return record
}
