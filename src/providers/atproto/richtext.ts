/** Bluesky's limits on `app.bsky.feed.post` text (lexicon maxGraphemes and maxLength). */
export const MAX_GRAPHEMES = 300
export const MAX_BYTES = 3000

const encoder = new TextEncoder()
let segmenter: Intl.Segmenter | undefined

/** UTF-8 length of a string: the unit of facet offsets and of the 3000-byte limit. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength
}

/** User-perceived characters (extended grapheme clusters): "👩‍👩‍👧" is one. */
export function graphemeCount(text: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  let n = 0
  for (const _ of segmenter.segment(text)) n++
  return n
}

/** Which limits a post text breaks, each as a sentence with the count; empty when it fits. */
export function limitViolations(text: string): string[] {
  const problems: string[] = []
  const graphemes = graphemeCount(text)
  const bytes = utf8Length(text)
  if (graphemes > MAX_GRAPHEMES) problems.push(`content is ${graphemes} characters (graphemes) long; a post allows at most ${MAX_GRAPHEMES}`)
  if (bytes > MAX_BYTES) problems.push(`content is ${bytes} bytes of UTF-8; a post allows at most ${MAX_BYTES}`)
  return problems
}

const HANDLE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/

/** AT Protocol handle syntax (a DNS name whose last label starts with a letter), at most 253 characters. */
export function isValidHandle(handle: string): boolean {
  return handle.length <= 253 && HANDLE.test(handle)
}

/** A span found in post text, with UTF-8 byte offsets (start inclusive, end exclusive). */
export interface Span {
  byteStart: number
  byteEnd: number
}
export interface MentionSpan extends Span {
  kind: 'mention'
  handle: string
}
export interface LinkSpan extends Span {
  kind: 'link'
  uri: string
}
export interface TagSpan extends Span {
  kind: 'tag'
  tag: string
}
export type RichSpan = MentionSpan | LinkSpan | TagSpan

/** An `app.bsky.richtext.facet` as the lexicon defines it. */
export interface Facet {
  $type: 'app.bsky.richtext.facet'
  index: { byteStart: number; byteEnd: number }
  features: ({ $type: 'app.bsky.richtext.facet#mention'; did: string } | { $type: 'app.bsky.richtext.facet#link'; uri: string } | { $type: 'app.bsky.richtext.facet#tag'; tag: string })[]
}

const MENTION = /(^|[\s(])@([a-zA-Z0-9.-]+)/g
const LINK = /(^|[\s(])(https?:\/\/[^\s<>"]+)/gi
// Bluesky's hashtag rule: "#" after start or whitespace, not only digits, no zero-width joiners.
// The classes list each invisible code point on its own; the lint reads a joiner there as joining its neighbours.
// eslint-disable-next-line no-misleading-character-class
const TAG = /(^|\s)[#＃]((?!\ufe0f)[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]+[^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20e2]*)?/gu
const MAX_TAG_GRAPHEMES = 64

function span(text: string, start: number, end: number): Span {
  const byteStart = utf8Length(text.slice(0, start))
  return { byteStart, byteEnd: byteStart + utf8Length(text.slice(start, end)) }
}

/** Drops trailing punctuation a sentence adds after a URL, keeping a ")" that closes a "(" inside it. */
function trimUrl(url: string): string {
  let out = url.replace(/(?<![.,;:!?'"])[.,;:!?'"]+$/, '')
  while (out.endsWith(')') && (out.match(/\(/g)?.length ?? 0) < (out.match(/\)/g)?.length ?? 0)) out = out.slice(0, -1).replace(/(?<![.,;:!?'"])[.,;:!?'"]+$/, '')
  return out
}

/**
 * Finds mentions (@handle), links (http/https URLs) and #hashtags with UTF-8 byte offsets, in
 * text order, without overlaps (a link wins over what it contains).
 * @example detectSpans('hi @bob.test') // [{kind:'mention', handle:'bob.test', byteStart:3, byteEnd:12}]
 */
export function detectSpans(text: string): RichSpan[] {
  const found: (RichSpan & { start: number; end: number })[] = []
  for (const m of text.matchAll(LINK)) {
    const start = m.index + m[1].length
    const uri = trimUrl(m[2])
    try {
      new URL(uri)
    } catch {
      continue
    }
    if (!/^https?:\/\/[^/?#]+\.[^/?#]+/i.test(uri)) continue
    found.push({ kind: 'link', uri, start, end: start + uri.length, ...span(text, start, start + uri.length) })
  }
  for (const m of text.matchAll(MENTION)) {
    const start = m.index + m[1].length
    const handle = m[2].replace(/(?<![.-])[.-]+$/, '')
    if (!isValidHandle(handle)) continue
    const end = start + 1 + handle.length
    found.push({ kind: 'mention', handle: handle.toLowerCase(), start, end, ...span(text, start, end) })
  }
  for (const m of text.matchAll(TAG)) {
    if (!m[2]) continue
    const tag = m[2].trim().replace(/(?<!\p{P})\p{P}+$/u, '')
    if (!tag || graphemeCount(tag) > MAX_TAG_GRAPHEMES) continue
    const start = m.index + m[1].length
    const end = start + 1 + tag.length
    found.push({ kind: 'tag', tag, start, end, ...span(text, start, end) })
  }
  found.sort((a, b) => a.start - b.start || (a.kind === 'link' ? -1 : 1))
  const kept: RichSpan[] = []
  let lastEnd = -1
  for (const { start, end, ...rest } of found) {
    if (start < lastEnd) continue
    kept.push(rest as RichSpan)
    lastEnd = end
  }
  return kept
}

/**
 * Facets for the spans; mentions whose handle has no DID in `dids` stay plain text (as in the
 * Bluesky app), since a mention facet must carry the DID.
 */
export function buildFacets(spans: RichSpan[], dids: ReadonlyMap<string, string>): Facet[] {
  const facets: Facet[] = []
  for (const s of spans) {
    const index = { byteStart: s.byteStart, byteEnd: s.byteEnd }
    if (s.kind === 'link') facets.push({ $type: 'app.bsky.richtext.facet', index, features: [{ $type: 'app.bsky.richtext.facet#link', uri: s.uri }] })
    else if (s.kind === 'tag') facets.push({ $type: 'app.bsky.richtext.facet', index, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: s.tag }] })
    else {
      const did = dids.get(s.handle)
      if (did) facets.push({ $type: 'app.bsky.richtext.facet', index, features: [{ $type: 'app.bsky.richtext.facet#mention', did }] })
    }
  }
  return facets
}
