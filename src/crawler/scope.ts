/** Crawl scope: which URLs belong to the audit, and URL normalization for the frontier. */
import { MAX_URL_LENGTH } from '../providers/web/fact-limits'
import { MAX_DECIDED_URL_LENGTH } from '../providers/web/robots-rules'

export type AuditScope = 'full_site' | 'blog_only' | 'custom_path'

/** The resolved scope of one crawl. */
export interface Scope {
  kind: AuditScope
  /** Host without a leading "www.": http/https and www/non-www count as the same site. */
  site: string
  /** Path prefixes a page must start with; empty = the whole site. */
  prefixes: string[]
  /** How the prefixes were found (for the report). */
  reason: string
}

const NON_HTML_EXT =
  /\.(pdf|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp4|m4v|mov|webm|avi|mp3|wav|ogg|flac|zip|gz|tgz|rar|7z|tar|exe|dmg|msi|apk|css|js|mjs|json|xml|rss|atom|txt|csv|xlsx?|docx?|pptx?|woff2?|ttf|otf|eot)$/i

/** Words that mark blog-like sections in URL paths. */
export const BLOG_SEGMENTS = /^(blog|blogs|news|articles?|posts?|insights|stories|journal|magazine|updates|press|weblog|actualites|noticias)$/i

/** The site key of a host: lower-case, without "www.". */
export function siteOf(host: string): string {
  return host.toLowerCase().replace(/^www\./, '')
}

/**
 * Frontier form of a URL: absolute http(s), no fragment, default port dropped; null when not
 * crawlable, as a URL longer than `MAX_URL_LENGTH` is not (each is a stored row and part of a page's facts).
 */
export function normalizeUrl(raw: string, base?: string | URL): string | null {
  let u: URL
  try {
    u = new URL(raw, base)
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  if (u.username || u.password) return null
  u.hash = ''
  const url = u.toString()
  return url.length <= MAX_URL_LENGTH ? url : null
}

/** Whether a URL path looks like a file that is not a web page (images, PDFs, archives ...). */
export function looksNonHtml(url: string): boolean {
  try {
    return NON_HTML_EXT.test(new URL(url).pathname)
  } catch {
    return true
  }
}

/** Whether a URL is on the audited site. */
export function sameSite(scope: Pick<Scope, 'site'>, url: string): boolean {
  try {
    return siteOf(new URL(url).hostname) === scope.site
  } catch {
    return false
  }
}

/** Whether a path is under a prefix ("/docs" covers "/docs" and "/docs/x", not "/docsx"). */
export function underPrefix(path: string, prefix: string): boolean {
  if (prefix === '/' || prefix === '') return true
  const p = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  return path === p || path.startsWith(`${p}/`)
}

/**
 * Whether a path is under any of `prefixes`, as `underPrefix` says of each. A blog_only scope takes
 * its prefixes from the site's own URLs, and "/Blog", "/bLoG" ... are all blog sections: a hostile
 * site gets about 2,800 of them, and testing each against every link cost 20 ms a crawled page.
 * The prefixes are kept by length, so a path is looked up once per distinct length (a dozen).
 */
function underAnyPrefix(path: string, prefixes: string[]): boolean {
  let match = prefixMatchers.get(prefixes)
  if (!match) prefixMatchers.set(prefixes, (match = prefixMatcher(prefixes)))
  return match(path)
}

/** Matchers per prefix list: a scope's list is one array for all the URLs of a crawl step. */
const prefixMatchers = new WeakMap<string[], (path: string) => boolean>()

function prefixMatcher(prefixes: string[]): (path: string) => boolean {
  if (prefixes.some((p) => p === '/' || p === '')) return () => true
  // `underPrefix` without the trailing slash: the path is that text, or it and a "/" start the path.
  const bare = new Set(prefixes.map((p) => (p.endsWith('/') ? p.slice(0, -1) : p)))
  const lengths = [...new Set([...bare].map((b) => b.length))].sort((a, b) => a - b)
  return (path) => {
    for (const n of lengths) {
      if (n > path.length) break
      if ((n === path.length || path.charCodeAt(n) === 47) && bare.has(path.slice(0, n))) return true
    }
    return false
  }
}

/** Whether a URL is in scope: same site and under one of the prefixes. */
export function inScope(scope: Scope, url: string): boolean {
  if (!sameSite(scope, url)) return false
  if (scope.prefixes.length === 0) return true
  return underAnyPrefix(new URL(url).pathname, scope.prefixes)
}

/**
 * Whether a URL is one the crawl should fetch: at most MAX_DECIDED_URL_LENGTH characters (2,048), in
 * scope and not a file by its extension (`inScope` and not `looksNonHtml`, with one parse). Longer
 * URLs are left out like other links: robots.txt decisions are bounded for URLs up to that length
 * only. A page's facts still name links up to MAX_URL_LENGTH (8,192), the longest a server reads.
 */
export function crawlable(scope: Scope, url: string): boolean {
  if (url.length > MAX_DECIDED_URL_LENGTH) return false
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return false
  }
  if (siteOf(u.hostname) !== scope.site) return false
  if (scope.prefixes.length && !underAnyPrefix(u.pathname, scope.prefixes)) return false
  return !NON_HTML_EXT.test(u.pathname)
}

/**
 * The blog sections of a site from the URLs it shows: a first path segment named like a blog
 * ("/blog", "/news", "/articles" ...), the sections that post sitemaps ("post-sitemap.xml",
 * "sitemap-posts.xml") list, and the common section of feed items. Returns path prefixes.
 */
export function blogPrefixes(knownUrls: string[], postSitemapUrls: string[], feedItemUrls: string[], site: string): { prefixes: string[]; reason: string } {
  const found = new Map<string, Set<string>>()
  const add = (prefix: string, why: string) => {
    if (!found.has(prefix)) found.set(prefix, new Set())
    found.get(prefix)!.add(why)
  }
  const firstSegment = (url: string): string | null => {
    try {
      const u = new URL(url)
      if (siteOf(u.hostname) !== site) return null
      const seg = u.pathname.split('/').filter(Boolean)
      return seg.length ? `/${seg[0]}` : null
    } catch {
      return null
    }
  }
  for (const url of knownUrls) {
    const seg = firstSegment(url)
    if (seg && BLOG_SEGMENTS.test(seg.slice(1))) add(seg, 'blog-like URL section')
  }
  const sectionOfGroup = (urls: string[], why: string) => {
    const counts = new Map<string, number>()
    for (const url of urls) {
      const seg = firstSegment(url)
      if (seg) counts.set(seg, (counts.get(seg) ?? 0) + 1)
    }
    for (const [seg, n] of counts) if (n >= Math.max(2, urls.length * 0.2)) add(seg, why)
  }
  sectionOfGroup(postSitemapUrls, 'post sitemap')
  sectionOfGroup(feedItemUrls, 'RSS/Atom feed items')
  const prefixes = [...found.keys()].sort()
  const reason = prefixes.map((p) => `${p} (${[...found.get(p)!].join(', ')})`).join('; ')
  return { prefixes, reason }
}
