/** What the HTML reader extracts from a page (html.ts) and what a stored page keeps of it (fact-limits.ts). */

/** A link from a page: absolute target without fragment, with its text. */
export interface PageLink {
  url: string
  text: string
  nofollow: boolean
}

/** An anchor Lighthouse's crawlable-anchors audit would fail. */
export interface BadAnchor {
  href: string | null
  text: string
  reason: string
}

/** Everything the audit needs from one HTML page, extracted in one streaming pass. */
export interface HtmlFacts {
  lang: string | null
  titles: string[]
  metaDescriptions: string[]
  /** Meta robots directives, by the name they were given to ("robots", "googlebot" ...). */
  metaRobots: { name: string; content: string }[]
  viewport: boolean
  canonicals: string[]
  /** hreflang alternates declared in <head>, raw as written. */
  hreflangs: { lang: string; href: string | null }[]
  feeds: string[]
  headings: HeadingFact[]
  /**
   * Words of the main content: the `main`/`article` regions when the page has one, else the body
   * without nav, header, footer and aside. Words in adjacent blocks are counted apart.
   */
  wordCount: number
  /** Whether `wordCount` comes from a `main`/`article` region. */
  mainRegion: boolean
  /**
   * How often each 2-3 word phrase of the title, first H1 and URL slug occurs in the main text
   * (stemmed phrase key -> count), so keyphrases are reported with their real counts.
   */
  phraseCounts: [string, number][]
  /** Top content terms and bigrams of the main text (nav, header, footer, aside left out). */
  terms: [string, number][]
  /** Same-site and external links with href, deduplicated by target. */
  links: PageLink[]
  externalLinks: number
  badAnchors: BadAnchor[]
  vagueLinks: { href: string; text: string; lang: string | null }[]
  images: number
  imagesWithoutAlt: string[]
  jsonLd: { types: string[]; errors: string[]; author: boolean; datePublished: string | null; dateModified: string | null }
  microdataTypes: string[]
  openGraph: Record<string, string>
  mixedContent: string[]
  lists: number
  tables: number
  author: string | null
  published: string | null
  modified: string | null
  /** A byline shown in the page text ("By Ana Ruiz"), whatever the markup says. */
  visibleByline: string | null
  /** A full date shown in the page text ("March 3, 2025", "2025-03-03"). */
  visibleDate: string | null
  /**
   * Only when the first title or meta description is longer than the facts keep of it
   * (fact-limits.ts): what the length and duplicate checks need of the whole text.
   */
  cut?: { title?: WholeText; description?: WholeText }
}

/** What the checks need of a text the facts keep only a prefix of. */
export interface WholeText {
  /** Its length in UTF-16 code units (a description's trimmed), as the length checks count. */
  length: number
  /** `duplicateKey` of the whole text. */
  duplicateKey: string
}

/** A heading as read: its level and text, and what follows it. */
export interface HeadingFact {
  level: number
  text: string
  /** A direct answer follows before the next heading: a paragraph of 5+ words, a list or a table. */
  answered: boolean
  /** All its text is the text of a link to another URL (a post title on an index page). */
  linked: boolean
}
