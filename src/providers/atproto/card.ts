import type { GuardedFetch } from '../web/fetch'
import { tokenizeHtml } from '../web/html-tokenizer'
import { cutChars, decodeEntities } from '../../lib/text'

/** What a link card shows, read from the page's Open Graph tags (falling back to <title> and meta description). */
export interface LinkCard {
  uri: string
  title: string
  description: string
  /** Absolute URL of the og:image, if any. */
  image: string | null
}

/** A card image ready for uploadBlob: the lexicon caps `thumb` at 1,000,000 bytes of image/*. */
export interface CardImage {
  bytes: ArrayBuffer
  mimeType: string
}

const MAX_THUMB_BYTES = 1_000_000
const MAX_TITLE = 300
const MAX_DESCRIPTION = 1000

function clip(text: string, max: number): string {
  const clean = decodeEntities(text).replace(/\s+/g, ' ').trim()
  return clean.length > max ? `${cutChars(clean, max - 1)}…` : clean
}

/**
 * Reads as much of a body as arrives before it ends or fails (a page cut off at the size cap still
 * yields the tags of its <head>), decoded as UTF-8.
 */
async function readUpTo(res: Response): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch {
    // Keep what arrived.
  }
  return text + decoder.decode()
}

/**
 * Reads the Open Graph card of a page with the service's HTML tokenizer (no DOM). Null when the
 * page cannot be fetched, is not HTML, or has no title: a post then goes out without a card.
 */
export async function fetchLinkCard(fetch: GuardedFetch, uri: string): Promise<LinkCard | null> {
  let res: Response
  try {
    res = await fetch(uri, { service: 'link card page', timeoutMs: 5000, retries: 0, maxBytes: 1024 * 1024, headers: { accept: 'text/html,application/xhtml+xml' } })
  } catch {
    return null
  }
  const type = res.headers.get('content-type') ?? ''
  if (!res.ok || !/text\/html|application\/xhtml/i.test(type)) {
    res.body?.cancel().catch(() => undefined)
    return null
  }
  const meta = new Map<string, string>()
  let title = ''
  let inTitle = false
  let titleSeen = false
  tokenizeHtml(await readUpTo(res), {
    element(el) {
      if (el.tagName === 'meta') {
        const key = (el.getAttribute('property') ?? el.getAttribute('name') ?? '').toLowerCase()
        const content = el.getAttribute('content')
        if (key && content !== null && !meta.has(key)) meta.set(key, content)
      } else if (el.tagName === 'title' && !titleSeen) {
        titleSeen = true
        inTitle = true
        try {
          el.onEndTag(() => (inTitle = false))
        } catch {
          inTitle = false
        }
      }
    },
    text(raw) {
      if (inTitle) title += raw
    },
  })
  const cardTitle = clip(meta.get('og:title') ?? meta.get('twitter:title') ?? title, MAX_TITLE)
  if (!cardTitle) return null
  const description = clip(meta.get('og:description') ?? meta.get('twitter:description') ?? meta.get('description') ?? '', MAX_DESCRIPTION)
  let image: string | null = null
  const rawImage = meta.get('og:image') ?? meta.get('og:image:url') ?? meta.get('twitter:image')
  if (rawImage) {
    try {
      const url = new URL(decodeEntities(rawImage.trim()), res.url || uri)
      if (url.protocol === 'https:' || url.protocol === 'http:') image = url.toString()
    } catch {
      image = null
    }
  }
  return { uri, title: cardTitle, description, image }
}

/** Downloads a card image within the lexicon's limits; null when it is missing, too big or not an image. */
export async function fetchCardImage(fetch: GuardedFetch, url: string): Promise<CardImage | null> {
  try {
    const res = await fetch(url, { service: 'link card image', timeoutMs: 5000, retries: 0, maxBytes: MAX_THUMB_BYTES })
    const mimeType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    if (!res.ok || !mimeType.startsWith('image/')) {
      res.body?.cancel().catch(() => undefined)
      return null
    }
    const bytes = await res.arrayBuffer()
    return bytes.byteLength > 0 && bytes.byteLength <= MAX_THUMB_BYTES ? { bytes, mimeType } : null
  } catch {
    return null
  }
}
