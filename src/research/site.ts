import { UpstreamError } from '../providers/errors'
import { readText } from '../providers/web/fetch'
import { hostMatches } from './domain'
import { parsePage, type PageFacts } from './html'
import type { ResearchInputs } from './types'

/** The homepage as fetched: facts plus the raw material technology detection reads. */
export interface Homepage extends PageFacts {
  status: number
  headers: Record<string, string>
  cookies: string[]
  html: string
  fetched_at: string
}

export type PageKind = 'about' | 'team' | 'careers' | 'contact' | 'pricing' | 'products' | 'press'

/** Link text / path words that mark each well-known page, and the conventional path tried when no link is found. */
const KINDS: Record<PageKind, { words: RegExp; path: string }> = {
  about: { words: /\b(about|about[- ]us|company|who we are)\b/i, path: '/about' },
  team: { words: /\b(team|leadership|management|our people|founders)\b/i, path: '/team' },
  careers: { words: /\b(careers?|jobs|join us|we'?re hiring|work with us)\b/i, path: '/careers' },
  contact: { words: /\b(contact|contact us|get in touch)\b/i, path: '/contact' },
  pricing: { words: /\b(pricing|plans)\b/i, path: '/pricing' },
  products: { words: /\b(products?|platform|solutions|features)\b/i, path: '/products' },
  press: { words: /\b(press|newsroom|media|news)\b/i, path: '/press' },
}

const SERVICE = 'company website'
const PAGE_BYTES = 3 * 1024 * 1024

async function fetchHtml(inputs: ResearchInputs, url: string, retries: number): Promise<{ res: Response; html: string } | null> {
  const res = await inputs.ctx.fetch(url, { service: SERVICE, timeoutMs: 10_000, maxBytes: PAGE_BYTES, retries, headers: { accept: 'text/html,application/xhtml+xml' } })
  if (!res.ok || !/html/i.test(res.headers.get('content-type') ?? 'text/html')) {
    await res.body?.cancel()
    return null
  }
  return { res, html: await readText(res, SERVICE) }
}

/** The homepage of the domain (https, then http), loaded once per run. Throws when the site cannot be read. */
export function homepage(inputs: ResearchInputs): Promise<Homepage> {
  return inputs.once('homepage', async () => {
    let lastError: unknown = null
    for (const url of [`https://${inputs.domain}/`, `http://${inputs.domain}/`]) {
      try {
        const got = await fetchHtml(inputs, url, 1)
        if (!got) continue
        const finalUrl = got.res.url || url
        const facts = await parsePage(got.html, finalUrl)
        const headers: Record<string, string> = {}
        got.res.headers.forEach((v, k) => (headers[k] = v))
        const cookies = (got.res.headers.getSetCookie?.() ?? []).map((c) => c.split('=')[0].trim()).filter(Boolean)
        return { ...facts, status: got.res.status, headers, cookies, html: got.html.slice(0, 1_000_000), fetched_at: new Date().toISOString() }
      } catch (err) {
        lastError = err
      }
    }
    if (lastError) throw lastError
    throw new UpstreamError(SERVICE, 'status', `The homepage of ${inputs.domain} did not answer with an HTML page`)
  })
}

/** The URL of a well-known page: a homepage link whose text or path names it, else the conventional path. */
export function pageUrl(home: PageFacts, domain: string, kind: PageKind): string {
  const { words, path } = KINDS[kind]
  const own = home.links.filter((l) => hostMatches(l.href, domain) && !l.rel)
  const byPath = own.find((l) => words.test(new URL(l.href).pathname.replace(/[/_-]+/g, ' ')))
  const byText = own.find((l) => words.test(l.text))
  const hit = byPath ?? byText
  if (hit) {
    const u = new URL(hit.href)
    u.hash = ''
    return u.toString()
  }
  return new URL(path, home.url).toString()
}

/** A well-known page, loaded once per run; null when the site has none. */
export function page(inputs: ResearchInputs, kind: PageKind): Promise<PageFacts | null> {
  return inputs.once(`page:${kind}`, async () => {
    const home = await homepage(inputs)
    const url = pageUrl(home, inputs.domain, kind)
    if (url === home.url) return null
    try {
      const got = await fetchHtml(inputs, url, 0)
      return got ? await parsePage(got.html, got.res.url || url) : null
    } catch (err) {
      if (err instanceof UpstreamError) return null
      throw err
    }
  })
}

/** The well-known pages of `kinds` that the site has, in order. */
export async function pages(inputs: ResearchInputs, kinds: PageKind[]): Promise<PageFacts[]> {
  return (await Promise.all(kinds.map((k) => page(inputs, k)))).filter((p): p is PageFacts => p !== null)
}

/** One feed item. */
export interface FeedItem {
  title: string
  url: string | null
  date: string | null
}

/** The blog/news feed the homepage advertises (RSS or Atom), newest first; empty when there is none. */
export function feed(inputs: ResearchInputs): Promise<{ url: string; items: FeedItem[] } | null> {
  return inputs.once('feed', async () => {
    const home = await homepage(inputs)
    const link = home.links.find((l) => (l.rel ?? '').toLowerCase().includes('alternate') && /(rss|atom)\+xml/i.test(l.type ?? ''))
    if (!link) return null
    try {
      const res = await inputs.ctx.fetch(link.href, { service: SERVICE, timeoutMs: 10_000, maxBytes: PAGE_BYTES, retries: 0 })
      if (!res.ok) {
        await res.body?.cancel()
        return null
      }
      return { url: link.href, items: parseFeed(await readText(res, SERVICE)) }
    } catch (err) {
      if (err instanceof UpstreamError) return null
      throw err
    }
  })
}

// A feed is text the site writes, up to PAGE_BYTES. A lazy `<x>([\s\S]*?)</x>` scans to the end of
// the text from every opening that never closes, so a feed of openings alone cost the square of its
// size: each reader below stops where no closing tag is left, and ends a tag's attributes at the next
// "<" as well as at ">" (XML has no raw "<" inside a tag).

function decode(s: string): string {
  const last = s.lastIndexOf(']]>')
  const end = last + ']]>'.length
  const cdata = last < 0 ? s : s.slice(0, end).replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1') + s.slice(end)
  return cdata
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim()
}

function tag(block: string, name: string): string | null {
  let end = -1
  const closing = new RegExp(`</${name}>`, 'gi')
  while (closing.exec(block)) end = closing.lastIndex
  if (end < 0) return null
  const m = new RegExp(`<${name}(?:\\s[^<>]*)?>([\\s\\S]*?)</${name}>`, 'i').exec(block.slice(0, end))
  return m ? decode(m[1]) : null
}

/** The first `max` items (`<item>` or `<entry>` elements, each to its first closing tag), in one pass. */
function feedBlocks(xml: string, max: number): string[] {
  const blocks: string[] = []
  const closing = { item: /<\/item>/gi, entry: /<\/entry>/gi }
  // Once an opening finds no closing tag after it, no later opening of that name will.
  const unclosed = new Set<string>()
  const opening = /<(item|entry)[\s>]/gi
  for (let m = opening.exec(xml); m && blocks.length < max; m = opening.exec(xml)) {
    const name = m[1].toLowerCase() as keyof typeof closing
    if (unclosed.has(name)) continue
    const close = closing[name]
    close.lastIndex = opening.lastIndex
    if (!close.exec(xml)) {
      unclosed.add(name)
      continue
    }
    blocks.push(xml.slice(m.index, close.lastIndex))
    opening.lastIndex = close.lastIndex
  }
  return blocks
}

/** Items of an RSS 2.0 or Atom document. */
export function parseFeed(xml: string): FeedItem[] {
  return feedBlocks(xml, 50).map((b) => {
    const atomLink = /<link[^<>]*href="([^"<]+)"/i.exec(b)?.[1] ?? null
    const raw = tag(b, 'pubDate') ?? tag(b, 'published') ?? tag(b, 'updated') ?? tag(b, 'dc:date')
    const time = raw ? Date.parse(raw) : NaN
    return { title: tag(b, 'title') ?? '', url: tag(b, 'link') || atomLink, date: Number.isFinite(time) ? new Date(time).toISOString() : null }
  })
}
