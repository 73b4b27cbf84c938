import { decodeEntities } from '../lib/text'
import { setOwn } from '../lib/objects'
import { tokenizeHtml, type TagElement } from '../providers/web/html-tokenizer'
import { parseJson } from '../lib/json-depth'

/** What the research reads from one HTML page. */
export interface PageFacts {
  url: string
  title: string | null
  /** meta name/property (lower-cased) -> content. */
  meta: Record<string, string>
  /** Parsed JSON-LD objects, @graph flattened. */
  jsonLd: Record<string, unknown>[]
  links: { href: string; text: string; rel: string | null; type: string | null }[]
  /** Absolute script src URLs. */
  scripts: string[]
  /** Headings (h1-h3) in order. */
  headings: string[]
  /** Visible text of paragraphs and list items, capped. */
  text: string
}

const TEXT_CAP = 20_000

function absolute(href: string, base: string): string | null {
  try {
    return new URL(href, base).toString()
  } catch {
    return null
  }
}

function flattenJsonLd(value: unknown, out: Record<string, unknown>[]): void {
  if (Array.isArray(value)) for (const v of value) flattenJsonLd(v, out)
  else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>
    if (Array.isArray(obj['@graph'])) flattenJsonLd(obj['@graph'], out)
    if (obj['@type']) out.push(obj)
  }
}

const clean = (s: string) => s.replace(/\s+/g, ' ').trim()

/**
 * Parses a page with the crawler's HTML tokenizer (providers/web/html-tokenizer.ts, the one HTML
 * reader of the service): title, meta/OpenGraph, JSON-LD, links with their text, script sources,
 * headings and paragraph text. Text and attribute values are entity-decoded.
 */
export async function parsePage(html: string, url: string): Promise<PageFacts> {
  const facts: PageFacts = { url, title: null, meta: {}, jsonLd: [], links: [], scripts: [], headings: [], text: '' }
  let title: string | null = null
  let titleDone = false
  let ldText: string | null = null
  let linkText: { entry: PageFacts['links'][number]; text: string } | null = null
  let heading: string | null = null
  let para: string | null = null
  const paras: string[] = []
  let textLength = 0
  const attr = (el: TagElement, name: string) => {
    const v = el.getAttribute(name)
    return v === null ? null : decodeEntities(v)
  }
  const onEnd = (el: TagElement, handler: () => void) => {
    try {
      el.onEndTag(handler)
    } catch {
      // A self-closing foreign element has no end tag, and no text to collect.
      handler()
    }
  }

  tokenizeHtml(html, {
    element(el) {
      const tag = el.tagName
      if (tag === 'title' && !titleDone) {
        title = ''
        onEnd(el, () => {
          titleDone = true
        })
      } else if (tag === 'meta') {
        const name = (attr(el, 'name') ?? attr(el, 'property') ?? attr(el, 'itemprop') ?? attr(el, 'http-equiv'))?.toLowerCase()
        const content = attr(el, 'content')
        // Own keys: a page's <meta name="constructor"> is a meta tag like any other, and "__proto__" stays a key.
        if (name && content !== null && !Object.hasOwn(facts.meta, name)) setOwn(facts.meta, name, clean(content))
      } else if (tag === 'script') {
        const src = attr(el, 'src')
        if (src) {
          const abs = absolute(src, url)
          if (abs) facts.scripts.push(abs)
        }
        if ((el.getAttribute('type') ?? '').trim().toLowerCase() === 'application/ld+json') {
          ldText = ''
          onEnd(el, () => {
            try {
              flattenJsonLd(parseJson(ldText ?? ''), facts.jsonLd)
            } catch {
              // Broken JSON-LD on a page is common; it is skipped, not fatal.
            }
            ldText = null
          })
        }
      } else if ((tag === 'a' || tag === 'link') && el.hasAttribute('href')) {
        const abs = absolute(attr(el, 'href') ?? '', url)
        if (!abs) return
        const entry = { href: abs, text: attr(el, 'aria-label') ?? attr(el, 'title') ?? '', rel: attr(el, 'rel'), type: attr(el, 'type') }
        facts.links.push(entry)
        if (tag === 'a') {
          const mine = { entry, text: '' }
          linkText = mine
          onEnd(el, () => {
            if (mine.text.trim()) mine.entry.text = clean(mine.text)
            if (linkText === mine) linkText = null
          })
        }
      } else if (tag === 'h1' || tag === 'h2' || tag === 'h3') {
        heading = ''
        onEnd(el, () => {
          if (heading && clean(heading)) facts.headings.push(clean(heading))
          heading = null
        })
      } else if (tag === 'p' || tag === 'li') {
        para = ''
        onEnd(el, () => {
          const p = clean(para ?? '')
          if (p && textLength < TEXT_CAP) {
            paras.push(p)
            textLength += p.length + 1
          }
          para = null
        })
      }
    },
    text(raw) {
      if (ldText !== null) {
        ldText += raw
        return
      }
      const text = decodeEntities(raw)
      if (title !== null && !titleDone) title += text
      if (linkText) linkText.text += text
      if (heading !== null) heading += text
      if (para !== null) para += text
    },
  })
  facts.title = clean(title ?? '') || null
  facts.text = paras.join('\n').slice(0, TEXT_CAP)
  return facts
}

/** JSON-LD objects of a type (matches "Organization" also for subtypes listed in `types`). */
/** JSON-LD types that describe the company itself. */
export const ORGANIZATION_TYPES = ['Organization', 'Corporation', 'LocalBusiness', 'OnlineBusiness', 'NGO']

export function ldOfType(facts: PageFacts[], types: string[]): Record<string, unknown>[] {
  const wanted = new Set(types)
  return facts
    .flatMap((f) => f.jsonLd)
    .filter((o) => {
      const t = o['@type']
      return Array.isArray(t) ? t.some((x) => wanted.has(String(x))) : wanted.has(String(t))
    })
}
