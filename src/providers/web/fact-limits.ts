/**
 * How much of a page its facts keep. A crawled page (up to 3 MB) is stored as one D1 row of JSON
 * (D1 refuses a value over 2,000,000 bytes, and a refused row fails the whole batch of pages written
 * with it), and the audit reads every page of a crawl back at once. So each string is kept to a
 * prefix and each list to its first entries that fit in a fixed number of bytes, whatever the
 * page: `HTML_FACTS_MAX_BYTES` in all. Every limit is several times what real pages use (the
 * largest facts of 400 real documentation pages, a whole book on one page among them, are 48 KB,
 * its 500 headings 34 KB), so on real pages the facts are the same as if nothing were limited.
 *
 * Per field, what the checks need decides how it is kept:
 * - text shown in findings or compared (headings, link texts, titles, descriptions, directives,
 *   types, terms) keeps a prefix, cut between code points;
 * - the first title and meta description keep, when cut, their whole length and a duplicate key of
 *   the whole text (`HtmlFacts.cut`), so the length and duplicate checks answer as on all of it;
 * - URLs that name a page (links, canonicals, hreflang alternates, feeds) are never cut, since a cut
 *   URL names another page: one longer than `MAX_URL_LENGTH` is not kept, as the crawler would not
 *   follow it; URLs only shown (images without alt, mixed content, vague and bad anchors) keep a
 *   prefix.
 */
import { jsonPrefix, jsonSize } from '../../lib/json-size'
import { duplicateKey } from '../../lib/text'
import type { HtmlFacts } from './html-facts'

/**
 * The longest URL the crawler follows or keeps as a page's identity. RFC 9110 asks for at least
 * 8,000 octets and common servers refuse a longer request line, so a longer link could not be read.
 */
export const MAX_URL_LENGTH = 8192

/** Bytes of JSON (UTF-8, escapes included) one string keeps at most; a longer one keeps a prefix. */
export const TEXT_LIMITS = {
  lang: 128,
  /** Each title; a title tag is read for its length, words and duplicates, 10-65 characters being right. */
  title: 2048,
  /** Each meta description; 50-165 characters is right, and 2,000 is not unheard of. */
  description: 8192,
  robotsName: 128,
  robotsContent: 1024,
  hreflangLang: 128,
  /** A JSON-LD or microdata type name (compared with names like "FAQPage"). */
  type: 256,
  openGraphKey: 128,
  /** Open Graph values are only tested for presence and for og:type "article". */
  openGraphValue: 1024,
  /** A content term or bigram of the main text. */
  term: 256,
  /** The src of an image without alt (a data: URI can be megabytes), a mixed-content URL. */
  shownUrl: 512,
  /** The href of a vague or uncrawlable anchor, as shown. */
  anchorHref: 1024,
  author: 512,
  /** A published or modified date as written. */
  date: 256,
} as const

/** Bytes of JSON one list (or the Open Graph object) takes at most: it keeps its first entries that fit. */
export const LIST_LIMITS = {
  titles: 4096,
  metaDescriptions: 12_288,
  metaRobots: 4096,
  canonicals: 16_384,
  hreflangs: 16_384,
  feeds: 16_384,
  headings: 65_536,
  phraseCounts: 8192,
  links: 65_536,
  badAnchors: 16_384,
  vagueLinks: 16_384,
  jsonLdTypes: 4096,
  microdataTypes: 4096,
  openGraph: 8192,
} as const

/**
 * Bytes of JSON the facts of any page take at most: the lists' limits, the lists whose entry
 * counts and string limits already bound them (40 terms, 20 images without alt, 20 mixed-content
 * URLs, 5 JSON-LD errors), the single strings and the fixed fields; 294,577 bytes with every one at
 * its worst at once (test/audit/fact-limits.test.ts), rounded up.
 */
export const HTML_FACTS_MAX_BYTES = 296 * 1024

function text(value: string, limit: number): string {
  return jsonPrefix(value, limit)
}

function maybe(value: string | null, limit: number): string | null {
  return value === null ? null : jsonPrefix(value, limit)
}

/** The first entries of `list` whose JSON together is at most `maxBytes`. */
export function within<T>(list: T[], maxBytes: number): T[] {
  let total = 2
  for (let i = 0; i < list.length; i++) {
    total += jsonSize(list[i], maxBytes) + (i > 0 ? 1 : 0)
    if (total > maxBytes) return list.slice(0, i)
  }
  return list
}

/** The Open Graph entries in order, keys and values cut, while the object stays within its limit. */
function openGraph(og: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  let total = 2
  for (const [k, v] of Object.entries(og)) {
    const key = text(k, TEXT_LIMITS.openGraphKey)
    if (Object.hasOwn(out, key)) continue
    const value = text(v, TEXT_LIMITS.openGraphValue)
    const size = jsonSize(key) + 1 + jsonSize(value) + (total > 2 ? 1 : 0)
    if (total + size > LIST_LIMITS.openGraph) break
    total += size
    out[key] = value
  }
  return out
}

/** The facts as stored: every string and list within its limit (see the top of this file). */
export function limitHtmlFacts(f: HtmlFacts): HtmlFacts {
  const cut: NonNullable<HtmlFacts['cut']> = {}
  const title = f.titles[0]
  if (title !== undefined && text(title, TEXT_LIMITS.title) !== title) cut.title = { length: title.length, duplicateKey: duplicateKey(title) }
  const description = f.metaDescriptions[0]
  if (description !== undefined && text(description, TEXT_LIMITS.description) !== description) {
    cut.description = { length: description.trim().length, duplicateKey: duplicateKey(description) }
  }
  const out: HtmlFacts = {
    ...f,
    lang: maybe(f.lang, TEXT_LIMITS.lang),
    titles: within(
      f.titles.map((t) => text(t, TEXT_LIMITS.title)),
      LIST_LIMITS.titles,
    ),
    metaDescriptions: within(
      f.metaDescriptions.map((d) => text(d, TEXT_LIMITS.description)),
      LIST_LIMITS.metaDescriptions,
    ),
    metaRobots: within(
      f.metaRobots.map((m) => ({ name: text(m.name, TEXT_LIMITS.robotsName), content: text(m.content, TEXT_LIMITS.robotsContent) })),
      LIST_LIMITS.metaRobots,
    ),
    canonicals: within(f.canonicals, LIST_LIMITS.canonicals),
    hreflangs: within(
      f.hreflangs.map((h) => ({ lang: text(h.lang, TEXT_LIMITS.hreflangLang), href: h.href })),
      LIST_LIMITS.hreflangs,
    ),
    feeds: within(f.feeds, LIST_LIMITS.feeds),
    headings: within(f.headings, LIST_LIMITS.headings),
    phraseCounts: within(f.phraseCounts, LIST_LIMITS.phraseCounts),
    terms: f.terms.map(([term, n]): [string, number] => [text(term, TEXT_LIMITS.term), n]),
    links: within(f.links, LIST_LIMITS.links),
    badAnchors: within(
      f.badAnchors.map((a) => ({ ...a, href: maybe(a.href, TEXT_LIMITS.anchorHref) })),
      LIST_LIMITS.badAnchors,
    ),
    vagueLinks: within(
      f.vagueLinks.map((l) => ({ href: text(l.href, TEXT_LIMITS.anchorHref), text: l.text, lang: maybe(l.lang, TEXT_LIMITS.lang) })),
      LIST_LIMITS.vagueLinks,
    ),
    imagesWithoutAlt: f.imagesWithoutAlt.map((src) => text(src, TEXT_LIMITS.shownUrl)),
    jsonLd: {
      ...f.jsonLd,
      types: within(
        f.jsonLd.types.map((t) => text(t, TEXT_LIMITS.type)),
        LIST_LIMITS.jsonLdTypes,
      ),
      datePublished: maybe(f.jsonLd.datePublished, TEXT_LIMITS.date),
      dateModified: maybe(f.jsonLd.dateModified, TEXT_LIMITS.date),
    },
    microdataTypes: within(
      f.microdataTypes.map((t) => text(t, TEXT_LIMITS.type)),
      LIST_LIMITS.microdataTypes,
    ),
    openGraph: openGraph(f.openGraph),
    mixedContent: f.mixedContent.map((u) => text(u, TEXT_LIMITS.shownUrl)),
    author: maybe(f.author, TEXT_LIMITS.author),
    published: maybe(f.published, TEXT_LIMITS.date),
    modified: maybe(f.modified, TEXT_LIMITS.date),
  }
  if (cut.title || cut.description) out.cut = cut
  return out
}
