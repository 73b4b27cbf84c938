import type { PageRecord } from '../crawler/fetch-page'
import { descriptionLength, titleLength } from '../providers/web/html'
import type { Finding } from './checks'
import { isValidHreflang } from './langs'
import { pageQuestions } from './questions'

/** Search-engine crawlers whose bot-specific robots directives decide indexability. */
const SEARCH_BOTS = ['robots', 'googlebot', 'bingbot', 'slurp', 'duckduckbot', 'yandex', 'baiduspider', 'applebot']
const STALE_MS = 548 * 24 * 3600 * 1000

/** Whether a robots directive list forbids indexing (noindex, none, or a past unavailable_after). */
function blocksIndexing(directives: string, now: number): boolean {
  return directives
    .toLowerCase()
    .split(',')
    .map((d) => d.trim())
    .some((d) => {
      if (d === 'noindex' || d === 'none') return true
      if (d.startsWith('unavailable_after:')) {
        const when = Date.parse(d.slice('unavailable_after:'.length).trim())
        return Number.isFinite(when) && when < now
      }
      return false
    })
}

/** Splits an X-Robots-Tag value into directives per user agent ("*" when none is named). */
export function parseXRobotsTag(value: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  let agent = '*'
  for (const raw of value.split(',')) {
    let part = raw.trim()
    // The value starts at a non-space, so the spaces before it have one owner and a value with a line
    // break fails at once (as `\s*(.*)$` did, after trying each split of the spaces).
    const m = /^([a-z0-9_-]+)\s*:\s*((?:\S.*)?)$/i.exec(part)
    if (m && m[1].toLowerCase() !== 'unavailable_after') {
      agent = m[1].toLowerCase()
      part = m[2].trim()
    }
    if (!part) continue
    if (!out.has(agent)) out.set(agent, [])
    out.get(agent)!.push(part)
  }
  return out
}

/** Reasons a page is kept out of search indexes by its own meta tags and headers. */
export function indexBlockers(rec: PageRecord, now: number): string[] {
  const reasons: string[] = []
  for (const m of rec.html?.metaRobots ?? []) {
    if (SEARCH_BOTS.includes(m.name) && blocksIndexing(m.content, now)) reasons.push(`<meta name="${m.name}" content="${m.content}">`)
  }
  for (const header of rec.xRobotsTag) {
    for (const [agent, parts] of parseXRobotsTag(header)) {
      if ((agent === '*' || SEARCH_BOTS.includes(agent)) && blocksIndexing(parts.join(','), now)) reasons.push(`X-Robots-Tag: ${agent === '*' ? '' : `${agent}: `}${parts.join(', ')}`)
    }
  }
  return reasons
}

function isAbsolute(raw: string): boolean {
  try {
    new URL(raw)
    return true
  } catch {
    return false
  }
}

function registrableDomain(host: string): string {
  return host.toLowerCase().split('.').slice(-2).join('.')
}

/** Canonical problems with Lighthouse's rules; `target` is the single canonical URL when valid. */
export function canonicalCheck(rec: PageRecord): { problem: string | null; target: string | null } {
  const raw = [...(rec.html?.canonicals ?? []), ...rec.linkHeaders.filter((l) => l.rel.split(/\s+/).includes('canonical')).map((l) => l.url)]
  if (raw.length === 0) return { problem: null, target: null }
  const resolved = new Set<string>()
  for (const r of raw) {
    try {
      resolved.add(new URL(r, rec.url).toString())
    } catch {
      return { problem: `Invalid canonical URL (${r})`, target: null }
    }
  }
  if (resolved.size > 1) return { problem: `Multiple conflicting canonical URLs (${[...resolved].join(', ')})`, target: null }
  const relative = raw.find((r) => !isAbsolute(r))
  if (relative !== undefined) return { problem: `Relative canonical URL (${relative}); use an absolute URL`, target: null }
  const target = new URL([...resolved][0])
  const page = new URL(rec.url)
  if (registrableDomain(target.hostname) !== registrableDomain(page.hostname)) return { problem: `Canonical points to another domain (${target})`, target: null }
  const hreflangUrls = new Set([...(rec.html?.hreflangs ?? []).map((h) => h.href), ...rec.linkHeaders.filter((l) => l.hreflang !== null).map((l) => l.url)])
  if (hreflangUrls.has(target.toString()) && target.toString() !== page.toString()) return { problem: `Canonical points to a language alternate (${target})`, target: null }
  if (target.origin === page.origin && target.pathname === '/' && page.pathname !== '/') return { problem: `Canonical points to the site root (${target}) instead of equivalent content`, target: null }
  return { problem: null, target: target.toString() }
}

/** Invalid hreflang annotations in <head> and Link headers. */
export function hreflangProblems(rec: PageRecord): string[] {
  const out: string[] = []
  const entries = [
    ...(rec.html?.hreflangs ?? []).map((h) => ({ ...h, from: 'link' })),
    ...rec.linkHeaders.filter((l) => l.hreflang !== null && l.rel.split(/\s+/).includes('alternate')).map((l) => ({ lang: l.hreflang!, href: l.url, from: 'header' })),
  ]
  for (const e of entries) {
    if (!isValidHreflang(e.lang)) out.push(`Unexpected language code "${e.lang}"${e.from === 'header' ? ' (Link header)' : ''}`)
    else if (e.href === null || e.href.trim() === '') out.push(`hreflang="${e.lang}" has no href`)
    else if (!isAbsolute(e.href)) out.push(`hreflang="${e.lang}" href is relative (${e.href})`)
  }
  return out
}

function parseDate(value: string | null): number | null {
  if (!value) return null
  const t = Date.parse(value)
  return Number.isFinite(t) ? t : null
}

/**
 * When a page was last changed: the newest date the page itself shows (modified or published),
 * else its sitemap lastmod, else its Last-Modified header.
 */
export function pageDate(rec: PageRecord, sitemapLastmod: string | undefined): number | null {
  const own = [rec.html?.modified ?? null, rec.html?.published ?? null].map(parseDate).filter((d): d is number => d !== null)
  if (own.length) return Math.max(...own)
  return parseDate(sitemapLastmod ?? null) ?? parseDate(rec.lastModified)
}

const ARTICLE_TYPES = new Set(['Article', 'BlogPosting', 'NewsArticle', 'TechArticle', 'Report', 'ScholarlyArticle', 'HowTo'])
const ARTICLE_PATH = /\/(blog|blogs|news|articles?|posts?|insights|stories|journal|magazine|guides|learn)\/[^/]+/i

/** Whether a page reads as an article (authorship, dates and Q&A structure are asked of these). */
export function isArticle(rec: PageRecord): boolean {
  const h = rec.html
  if (!h) return false
  return h.jsonLd.types.some((t) => ARTICLE_TYPES.has(t)) || (h.openGraph['og:type'] ?? '').toLowerCase() === 'article' || ARTICLE_PATH.test(new URL(rec.url).pathname)
}

/**
 * Words of main content under which a page is thin by default: the "Low Content Pages" threshold
 * of Screaming Frog's SEO Spider (200 words), the crawler most site audits are checked against.
 */
export const THIN_CONTENT_WORDS = 200

/**
 * Checks of one page that need nothing but the page itself. `home` marks the start page (thin
 * content and article checks are not asked of it); `thinWords` is the thin-content threshold.
 */
export function pageFindings(rec: PageRecord, opts: { now: number; home: boolean; sitemapLastmod?: string; thinWords?: number }): Finding[] {
  const thinWords = opts.thinWords ?? THIN_CONTENT_WORDS
  const f: Finding[] = []
  if (rec.kind === 'error') {
    f.push({ check: 'http-status', message: rec.status ? `HTTP ${rec.status}` : `Not reachable: ${rec.error ?? 'unknown error'}` })
    return f
  }
  const h = rec.html
  if (rec.kind !== 'html' || !h) return f

  // Lengths of the whole title and description: the facts may keep only a prefix of a long one.
  const titleChars = titleLength(h)
  if (!h.titles.length || !h.titles[0].trim()) f.push({ check: 'document-title', message: 'The page has no <title> or an empty one' })
  else if (titleChars < 10 || titleChars > 65) f.push({ check: 'title-length', message: `Title is ${titleChars} characters`, details: h.titles[0] })

  const desc = h.metaDescriptions[0]
  const descChars = descriptionLength(h)
  if (desc === undefined || descChars === 0) f.push({ check: 'meta-description', message: desc === undefined ? 'No <meta name="description">' : 'The meta description is empty' })
  else if (descChars < 50 || descChars > 165) f.push({ check: 'meta-description-length', message: `Description is ${descChars} characters` })

  const blockers = indexBlockers(rec, opts.now)
  if (blockers.length) f.push({ check: 'noindex', message: `Blocked from indexing by ${blockers.join(' and ')}`, details: blockers })

  if (h.badAnchors.length) f.push({ check: 'crawlable-anchors', message: `${h.badAnchors.length} uncrawlable link(s)`, details: h.badAnchors })
  if (h.vagueLinks.length) {
    const shown = h.vagueLinks.slice(0, 3).map((l) => `"${l.text}" → ${l.href}`)
    f.push({
      check: 'link-text',
      message: `${h.vagueLinks.length} link(s) with non-descriptive text: ${shown.join('; ')}`,
      details: h.vagueLinks.map((l) => ({ text: l.text, href: l.href, lang: l.lang })),
    })
  }

  const hreflang = hreflangProblems(rec)
  if (hreflang.length) f.push({ check: 'hreflang', message: hreflang.join('; '), details: hreflang })

  const canonical = canonicalCheck(rec)
  if (canonical.problem) f.push({ check: 'canonical', message: canonical.problem })
  else if (canonical.target && canonical.target !== rec.url) f.push({ check: 'non-canonical', message: `Canonical URL is ${canonical.target}` })

  const h1s = h.headings.filter((x) => x.level === 1)
  if (h1s.length === 0) f.push({ check: 'h1-missing', message: 'No H1 heading' })
  else if (h1s.length > 1) f.push({ check: 'h1-multiple', message: `${h1s.length} H1 headings: ${h1s.map((x) => `"${x.text.slice(0, 80)}"`).join(', ')}`, details: h1s.map((x) => x.text) })
  const skips: string[] = []
  for (let i = 1; i < h.headings.length; i++) {
    if (h.headings[i].level > h.headings[i - 1].level + 1) skips.push(`H${h.headings[i - 1].level} → H${h.headings[i].level} ("${h.headings[i].text.slice(0, 60)}")`)
  }
  if (skips.length) f.push({ check: 'heading-order', message: `Heading levels skip: ${skips.slice(0, 3).join('; ')}`, details: skips })

  if (!opts.home && h.wordCount < thinWords) {
    f.push({
      check: 'thin-content',
      message: `${h.wordCount} words of main content${h.mainRegion ? ' (main/article region)' : ''}, under ${thinWords}`,
      details: { words: h.wordCount, threshold: thinWords, main_region: h.mainRegion },
    })
  }
  if (h.imagesWithoutAlt.length) {
    f.push({
      check: 'image-alt',
      message: `${h.imagesWithoutAlt.length} image(s) without an alt attribute: ${h.imagesWithoutAlt.slice(0, 3).join(', ')}`,
      details: h.imagesWithoutAlt.map((src) => ({ src })),
    })
  }
  if (h.jsonLd.errors.length) f.push({ check: 'structured-data-invalid', message: h.jsonLd.errors[0], details: h.jsonLd.errors })
  else if (!h.jsonLd.types.length && !h.microdataTypes.length) f.push({ check: 'structured-data', message: 'No JSON-LD or microdata' })
  const og = ['og:title', 'og:description', 'og:image'].filter((k) => !h.openGraph[k])
  if (og.length) f.push({ check: 'open-graph', message: `Missing ${og.join(', ')}` })
  if (!h.lang || !h.lang.trim()) f.push({ check: 'html-lang', message: '<html> has no lang attribute' })
  if (h.mixedContent.length) f.push({ check: 'mixed-content', message: `${h.mixedContent.length} http:// resource(s) on an https page`, details: h.mixedContent })

  // AEO
  const questions = pageQuestions(h)
  const article = !opts.home && isArticle(rec)
  if (article && h.wordCount >= thinWords && questions.length === 0) f.push({ check: 'question-headings', message: 'No heading is phrased as a question' })
  const unanswered = questions.filter((q) => !q.answered)
  if (unanswered.length) {
    f.push({
      check: 'direct-answers',
      message: `${unanswered.length} of ${questions.length} question heading(s) lack a direct answer below: ${unanswered
        .slice(0, 3)
        .map((q) => `"${q.text}"`)
        .join(', ')}`,
      details: unanswered.map((q) => q.text),
    })
  }
  const qaTypes = ['FAQPage', 'QAPage', 'HowTo']
  if (questions.length >= 2 && ![...h.jsonLd.types, ...h.microdataTypes].some((t) => qaTypes.includes(t))) {
    f.push({
      check: 'faq-schema',
      message: `${questions.length} question headings but no FAQPage/QAPage/HowTo markup: ${questions
        .slice(0, 3)
        .map((q) => `"${q.text}"`)
        .join(', ')}`,
      details: questions.map((q) => q.text),
    })
  }
  if (h.wordCount >= 600 && h.lists === 0 && h.tables === 0) f.push({ check: 'lists-tables', message: `${h.wordCount} words without a list or table` })
  if (article && !h.author) f.push({ check: 'author', message: 'No author (visible byline, byline link, meta author or JSON-LD author)' })
  const date = pageDate(rec, opts.sitemapLastmod)
  if (article && !h.published && !h.modified) f.push({ check: 'dates', message: 'No published or modified date in the page (visible text, <time>, meta tags or JSON-LD)' })
  if (date !== null && opts.now - date > STALE_MS) f.push({ check: 'freshness', message: `Last dated ${new Date(date).toISOString().slice(0, 10)}` })
  return f
}
