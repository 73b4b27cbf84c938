import { XMLParser } from 'fast-xml-parser'

/** What one sitemap file holds: page URLs (urlset) or further sitemaps (sitemapindex). */
export interface SitemapContent {
  kind: 'urlset' | 'index' | 'invalid'
  urls: { loc: string; lastmod: string | null }[]
  sitemaps: string[]
  error?: string
}

// The parser spends one to seven microseconds on each attribute it reads (about 4 s of CPU for a
// 6.5 MB file of one element of 600,000 attributes, in Node; 1.6 s for 200,000 small elements of
// three), and a crawl reads up to 25 sitemaps and 3 feeds. Nothing a sitemap or an RSS feed says is
// an attribute, so they are parsed without; Atom's <link href> is one, so an Atom feed is parsed
// again with attributes, its first MAX_ATOM_CHARS only.
const textParser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, processEntities: true, parseTagValue: false, trimValues: true })
const atomParser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, processEntities: true, parseTagValue: false, trimValues: true })

/** Characters of an Atom feed parsed with attributes: about 0.3 s of the parser's time at most, and hundreds of entries of a real feed. */
export const MAX_ATOM_CHARS = 512 * 1024

/**
 * Elements of one sitemap or feed file that are parsed. The parser holds about 350 bytes per element,
 * so a 10 MB file of tiny entries (400,000 of them) would take 260 MB, twice a Worker's memory; the
 * cut keeps it near 20 MB and still reads 30,000 URLs, six times what a crawl keeps.
 */
export const MAX_XML_ELEMENTS = 60_000

/**
 * The text up to the start tag of element `max + 1`. The parser closes what the cut leaves open,
 * and every element before it reads as it would in the whole file.
 */
function firstElements(xml: string, max: number): string {
  const startTag = /<[A-Za-z_]/g
  for (let n = 0; startTag.exec(xml); n++) if (n === max) return xml.slice(0, startTag.lastIndex - 2)
  return xml
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'object' && v && '#text' in v ? String((v as { '#text': unknown })['#text']).trim() : '')

/** True when bytes start with the gzip magic number. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b
}

/** Gunzips bytes with the platform's DecompressionStream, stopping past `maxBytes` of output. */
export async function gunzip(bytes: Uint8Array, maxBytes: number): Promise<string> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel()
      throw new Error(`the unzipped sitemap is larger than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  const all = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  return new TextDecoder().decode(all)
}

/** Parses a sitemap or sitemap index (sitemaps.org protocol); anything else reads as invalid. */
export function parseSitemap(xml: string): SitemapContent {
  let doc: Record<string, unknown>
  try {
    doc = textParser.parse(firstElements(xml, MAX_XML_ELEMENTS)) as Record<string, unknown>
  } catch (err) {
    return { kind: 'invalid', urls: [], sitemaps: [], error: `not valid XML: ${(err as Error).message.slice(0, 120)}` }
  }
  const urlset = doc.urlset as Record<string, unknown> | undefined
  if (urlset && typeof urlset === 'object') {
    const urls = asArray(urlset.url as Record<string, unknown>[] | Record<string, unknown>)
      .map((u) => ({ loc: text(u?.loc), lastmod: text(u?.lastmod) || null }))
      .filter((u) => u.loc)
    return { kind: 'urlset', urls, sitemaps: [] }
  }
  const index = doc.sitemapindex as Record<string, unknown> | undefined
  if (index && typeof index === 'object') {
    const sitemaps = asArray(index.sitemap as Record<string, unknown>[] | Record<string, unknown>)
      .map((s) => text(s?.loc))
      .filter(Boolean)
    return { kind: 'index', urls: [], sitemaps }
  }
  return { kind: 'invalid', urls: [], sitemaps: [], error: 'no <urlset> or <sitemapindex> root element' }
}

/**
 * The Atom entries within the first `max` characters: the text up to the end of the last whole
 * entry there (the parser closes the feed), or all of it when it is that short. An end tag inside a
 * CDATA section or a comment is text, not an entry's end: the scan steps over both.
 */
export function firstEntries(xml: string, max: number): string {
  if (xml.length <= max) return xml
  const entryEnd = /<\/(?:[\w.-]+:)?entry\s*>/y
  let end = 0
  for (let i = xml.indexOf('<'); i >= 0 && i < max; i = xml.indexOf('<', i)) {
    const skipped = xml.startsWith('<![CDATA[', i) ? xml.indexOf(']]>', i + 9) : xml.startsWith('<!--', i) ? xml.indexOf('-->', i + 4) : null
    if (skipped !== null) {
      if (skipped < 0) break
      i = skipped + 3
      continue
    }
    entryEnd.lastIndex = i
    if (entryEnd.test(xml) && entryEnd.lastIndex <= max) end = entryEnd.lastIndex
    i++
  }
  return xml.slice(0, end)
}

/** Item links of an RSS 2.0 or Atom feed. */
export function parseFeedLinks(xml: string): string[] {
  const cut = firstElements(xml, MAX_XML_ELEMENTS)
  let doc: Record<string, unknown>
  try {
    doc = textParser.parse(cut) as Record<string, unknown>
  } catch {
    return []
  }
  const rss = doc.rss as { channel?: { item?: unknown } } | undefined
  if (rss?.channel)
    return asArray(rss.channel.item as Record<string, unknown>[])
      .map((i) => text(i?.link))
      .filter(Boolean)
  if (!doc.feed) return []
  let atom: { feed?: { entry?: unknown } }
  try {
    atom = atomParser.parse(firstEntries(cut, MAX_ATOM_CHARS)) as typeof atom
  } catch {
    return []
  }
  return asArray(atom.feed?.entry as Record<string, unknown>[])
    .map((e) => {
      const links = asArray(e?.link as Record<string, string>[])
      const alt = links.find((l) => !l['@_rel'] || l['@_rel'] === 'alternate') ?? links[0]
      return alt?.['@_href'] ?? ''
    })
    .filter(Boolean)
}
