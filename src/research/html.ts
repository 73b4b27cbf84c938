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
 * Parses a page with HTMLRewriter (streaming, built into workerd): title, meta/OpenGraph, JSON-LD,
 * links with their text, script sources, headings and paragraph text.
 */
export async function parsePage(html: string, url: string): Promise<PageFacts> {
  const facts: PageFacts = { url, title: null, meta: {}, jsonLd: [], links: [], scripts: [], headings: [], text: '' }
  let title = ''
  let ldText: string | null = null
  let linkText: { entry: PageFacts['links'][number]; text: string } | null = null
  let heading: string | null = null
  let para: string | null = null
  const paras: string[] = []
  let textLength = 0

  const rewriter = new HTMLRewriter()
    .on('title', { text: (t) => void (title += t.text) })
    .on('meta', {
      element(el) {
        const name = (el.getAttribute('name') ?? el.getAttribute('property') ?? el.getAttribute('itemprop') ?? el.getAttribute('http-equiv'))?.toLowerCase()
        const content = el.getAttribute('content')
        if (name && content !== null && !(name in facts.meta)) facts.meta[name] = clean(content)
      },
    })
    .on('script', {
      element(el) {
        const src = el.getAttribute('src')
        if (src) {
          const abs = absolute(src, url)
          if (abs) facts.scripts.push(abs)
        }
        if ((el.getAttribute('type') ?? '').toLowerCase() === 'application/ld+json') {
          ldText = ''
          el.onEndTag(() => {
            try {
              flattenJsonLd(JSON.parse(ldText ?? ''), facts.jsonLd)
            } catch {
              // Broken JSON-LD on a page is common; it is skipped, not fatal.
            }
            ldText = null
          })
        }
      },
      text(t) {
        if (ldText !== null) ldText += t.text
      },
    })
    .on('a[href], link[href]', {
      element(el) {
        const abs = absolute(el.getAttribute('href') ?? '', url)
        if (!abs) return
        const entry = { href: abs, text: el.getAttribute('aria-label') ?? el.getAttribute('title') ?? '', rel: el.getAttribute('rel'), type: el.getAttribute('type') }
        facts.links.push(entry)
        if (el.tagName === 'a') {
          linkText = { entry, text: '' }
          el.onEndTag(() => {
            if (linkText && linkText.text.trim()) linkText.entry.text = clean(linkText.text)
            linkText = null
          })
        }
      },
      text(t) {
        if (linkText) linkText.text += t.text
      },
    })
    .on('h1, h2, h3', {
      element(el) {
        heading = ''
        el.onEndTag(() => {
          if (heading && clean(heading)) facts.headings.push(clean(heading))
          heading = null
        })
      },
      text(t) {
        if (heading !== null) heading += t.text
      },
    })
    .on('p, li', {
      element(el) {
        para = ''
        el.onEndTag(() => {
          const p = clean(para ?? '')
          if (p && textLength < TEXT_CAP) {
            paras.push(p)
            textLength += p.length + 1
          }
          para = null
        })
      },
      text(t) {
        if (para !== null) para += t.text
      },
    })

  await rewriter.transform(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })).arrayBuffer()
  facts.title = clean(title) || null
  facts.text = paras.join('\n').slice(0, TEXT_CAP)
  return facts
}

/** JSON-LD objects of a type (matches "Organization" also for subtypes listed in `types`). */
/** JSON-LD types that describe the company itself. */
export const ORGANIZATION_TYPES = ['Organization', 'Corporation', 'LocalBusiness', 'OnlineBusiness', 'NGO']

export function ldOfType(facts: PageFacts[], types: string[]): Record<string, unknown>[] {
  const wanted = new Set(types)
  return facts.flatMap((f) => f.jsonLd).filter((o) => {
    const t = o['@type']
    return Array.isArray(t) ? t.some((x) => wanted.has(String(x))) : wanted.has(String(t))
  })
}
