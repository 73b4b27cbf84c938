import { isNonDescriptive } from './link-text'
import { jsonPrefix } from '../../lib/json-size'
import { countPhrases, countWords, cutChars, decodeEntities, duplicateKey, phrasesOf, slugWords, squash, termCounts, topEntries } from '../../lib/text'
import { limitHtmlFacts, MAX_URL_LENGTH, TEXT_LIMITS } from './fact-limits'
import type { BadAnchor, HeadingFact, HtmlFacts } from './html-facts'
import { tokenizeHtml, type TagElement } from './html-tokenizer'
import { parseJson } from '../../lib/json-depth'

export type { BadAnchor, HeadingFact, HtmlFacts, PageLink, WholeText } from './html-facts'

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr', 'keygen'])
const HEAD_ONLY = new Set(['html', 'head', 'title', 'meta', 'link', 'script', 'style', 'base', 'noscript', 'template'])
const IGNORE_TEXT = new Set(['script', 'style', 'noscript', 'template'])
const BOILERPLATE = new Set(['nav', 'header', 'footer', 'aside'])
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'div',
  'dl',
  'fieldset',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
])
/** Elements whose end matters (collected text, ignored or boilerplate regions): they get a stack frame and an end-tag hook. */
const TRACKED = new Set(['title', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'p', 'script', 'style', 'noscript', 'template', 'nav', 'header', 'footer', 'aside', 'head', 'body', 'main', 'article'])
/** The main content region, when a page marks it. */
const MAIN = new Set(['main', 'article'])
/** Elements that start or end a block of text: words on either side of them are separate words. */
const BLOCK = new Set([
  ...CLOSES_P,
  'body',
  'br',
  'li',
  'dd',
  'dt',
  'td',
  'th',
  'tr',
  'caption',
  'figure',
  'figcaption',
  'details',
  'summary',
  'option',
  'legend',
  'label',
  'button',
  'title',
  'img',
  'input',
  'select',
  'textarea',
  'center',
  'menu',
  'search',
])
/** A byline in a short block of text ("By Ana Ruiz", "Written by Ana Ruiz", "Par Jean Dupont"). */
const BYLINE = /^(?:(?:[Ww]ritten|[Pp]osted|[Rr]eviewed) by|[Bb]y|[Aa]uthor:|[Pp]ar|[Pp]or|[Vv]on|[Dd]oor|[Aa]v)\s+(\p{Lu}[\p{L}'’.-]+(?:\s+\p{Lu}[\p{L}'’.-]+){0,3})/u
const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?'
/** A full date written out: "March 3, 2025", "3 March 2025" or "2025-03-03". */
const VISIBLE_DATE = new RegExp(`\\b(?:(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}|\\d{1,2}(?:st|nd|rd|th)? (?:${MONTHS})\\.?,? \\d{4}|\\d{4}-\\d{2}-\\d{2})\\b`, 'i')
/** Every element the extractor looks at. */
const HANDLED = new Set([...TRACKED, ...CLOSES_P, ...['html', 'meta', 'link', 'img', 'iframe', 'video', 'audio', 'source', 'embed', 'track', 'object', 'time', 'main']])
const MAX_TEXT = 200_000
const MAX_LINKS = 300
// A page's facts are stored as one D1 row and every page of a crawl is read back at once: lists a
// page can repeat at will are kept to their first entries, so the facts never outgrow the markup
// (a heading costs 10 bytes of HTML and 55 of facts).
const MAX_HEADINGS = 500
const MAX_HEAD_ENTRIES = 100
const MAX_HREFLANGS = 500
const MAX_TYPES = 100

function keep<T>(list: T[], item: T, max: number): void {
  if (list.length < max) list.push(item)
}

interface Frame {
  tag: string
  lang: string | null
  /** The language in force where the element opened: only the top frame's `lang` is ever set later. */
  inherited: string | null
}

interface AnchorState {
  href: string | null
  nofollow: boolean
  chunks: { text: string; lang: string | null }[]
  bad: BadAnchor | null
}

/** The crawlable-anchors verdict of Lighthouse for one anchor, from its attributes alone. */
function anchorProblem(el: TagElement, href: string | null, isUrl: (href: string) => boolean): string | null {
  if (el.hasAttribute('role')) return null
  if (href !== null && href.trim().toLowerCase().startsWith('mailto:')) return null
  if ((href === null || href === '') && el.hasAttribute('id')) return null
  if (href !== null && href.trim().toLowerCase().startsWith('file:')) return 'file: links cannot be crawled'
  if (el.hasAttribute('name')) return null
  if (href === null) {
    for (const [name] of el.attributes) if (name.toLowerCase().startsWith('on')) return 'link without href, handled by a script'
    return null
  }
  if (href === '') return 'empty href'
  if (/javascript:void(\(|)0(\)|)/.test(href)) return 'javascript:void(0) href'
  if (!isUrl(href)) return 'href is not a valid URL'
  return null
}

function jsonLdTypes(value: unknown, out: HtmlFacts['jsonLd'], seen: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) jsonLdTypes(v, out, seen)
    return
  }
  if (!value || typeof value !== 'object') return
  const obj = value as Record<string, unknown>
  const type = obj['@type']
  for (const t of Array.isArray(type) ? type : type ? [type] : []) {
    if (typeof t !== 'string' || seen.has(t) || out.types.length >= MAX_TYPES) continue
    seen.add(t)
    out.types.push(t)
  }
  if (obj.author) out.author = true
  if (typeof obj.datePublished === 'string') out.datePublished ??= obj.datePublished
  if (typeof obj.dateModified === 'string') out.dateModified ??= obj.dateModified
  for (const [k, v] of Object.entries(obj)) if (k !== '@context' && v && typeof v === 'object') jsonLdTypes(v, out, seen)
}

/** Receives a document's start tags and text in order, then gives its facts. */
export interface HtmlExtractor {
  /** Every start tag of the document. */
  element(el: TagElement): void
  /** A raw text chunk (character references not decoded). */
  text(raw: string): void
  /** An end tag as written (ends a block of text). */
  endTag(name: string): void
  finish(): HtmlFacts
}

/**
 * The audit's reading of one HTML document, fed by a tokenizer (no DOM is built). `pageUrl` is the
 * URL the page was served from, for resolving relative links.
 */
export function htmlExtractor(pageUrl: string): HtmlExtractor {
  const base = new URL(pageUrl)
  const facts: HtmlFacts = {
    lang: null,
    titles: [],
    metaDescriptions: [],
    metaRobots: [],
    viewport: false,
    canonicals: [],
    hreflangs: [],
    feeds: [],
    headings: [],
    wordCount: 0,
    mainRegion: false,
    phraseCounts: [],
    terms: [],
    links: [],
    externalLinks: 0,
    badAnchors: [],
    vagueLinks: [],
    images: 0,
    imagesWithoutAlt: [],
    jsonLd: { types: [], errors: [], author: false, datePublished: null, dateModified: null },
    microdataTypes: [],
    openGraph: {},
    mixedContent: [],
    lists: 0,
    tables: 0,
    author: null,
    published: null,
    modified: null,
    visibleByline: null,
    visibleDate: null,
  }
  const stack: Frame[] = []
  let bodyStarted = false
  let title: string[] | null = null
  let heading: { level: number; parts: string[]; linkedChars: number; plainChars: number } | null = null
  let anchor: AnchorState | null = null
  let jsonLd: string[] | null = null
  /** The last heading, until a direct answer to it is seen or the next heading starts. */
  let pendingHeading: HeadingFact | null = null
  let answerParagraph: string[] | null = null
  const mainText: string[] = []
  let mainLength = 0
  /** Words outside boilerplate, and of them those inside main/article. */
  let bodyWords = 0
  let regionWords = 0
  let sawRegion = false
  /** Text of the current block, with where it sits (a block never straddles a region boundary). */
  let block = ''
  let blockBoilerplate = false
  let blockInRegion = false
  const seenLinks = new Set<string>()
  const seenJsonLdTypes = new Set<string>()
  const seenMicrodataTypes = new Set<string>()
  const https = base.protocol === 'https:'

  // Open-element counters, so text and element callbacks never scan the stack.
  const openCount = new Map<string, number>()
  let ignoreDepth = 0
  let boilerplateDepth = 0
  let regionDepth = 0
  const has = (tag: string) => (openCount.get(tag) ?? 0) > 0
  const push = (opened: Omit<Frame, 'inherited'>) => {
    const frame: Frame = { tag: opened.tag, lang: opened.lang, inherited: currentLang() }
    stack.push(frame)
    openCount.set(frame.tag, (openCount.get(frame.tag) ?? 0) + 1)
    if (IGNORE_TEXT.has(frame.tag)) ignoreDepth++
    if (BOILERPLATE.has(frame.tag)) boilerplateDepth++
    if (MAIN.has(frame.tag)) regionDepth++
  }
  const pop = () => {
    const f = stack.pop()
    if (!f) return
    openCount.set(f.tag, (openCount.get(f.tag) ?? 1) - 1)
    if (IGNORE_TEXT.has(f.tag)) ignoreDepth--
    if (BOILERPLATE.has(f.tag)) boilerplateDepth--
    if (MAIN.has(f.tag)) regionDepth--
    return f
  }
  // Read from the top frame alone: a walk down the stack, once per text chunk inside a link, cost the
  // square of the page for a page of nested links (35 s for 3 MB in Node).
  const currentLang = (): string | null => {
    const top = stack[stack.length - 1]
    return top ? (top.lang ?? top.inherited) : null
  }
  const popTo = (tag: string) => {
    if (!has(tag)) return
    while (stack.length && pop()!.tag !== tag);
  }
  // An anchor's href is resolved for its check and again for its link: parse each string once.
  const parsed = new Map<string, URL | null>()
  /** `raw` resolved against the page; shared between callers, so never modified. */
  const resolve = (raw: string): URL | null => {
    let u = parsed.get(raw)
    if (u === undefined) {
      try {
        u = new URL(raw, base)
      } catch {
        u = null
      }
      parsed.set(raw, u)
    }
    return u
  }
  const mixed = (raw: string | null) => {
    if (!https || !raw) return
    const u = resolve(decodeEntities(raw).trim())
    if (u?.protocol === 'http:' && facts.mixedContent.length < 20) facts.mixedContent.push(u.toString())
  }

  const endHeading = () => {
    if (!heading) return
    const text = squash(heading.parts.join(''))
    const entry: HeadingFact = { level: heading.level, text: cutChars(text, 200), answered: false, linked: heading.linkedChars > 0 && heading.plainChars === 0 }
    keep(facts.headings, entry, MAX_HEADINGS)
    heading = null
    pendingHeading = text ? entry : null
  }
  /** Ends the current block of text: counts its words and looks for a byline or date in it. */
  const endBlock = () => {
    if (!block) return
    const text = block
    block = ''
    const n = countWords(text)
    if (!blockBoilerplate) {
      bodyWords += n
      if (blockInRegion) regionWords += n
      if (mainLength < MAX_TEXT) {
        mainText.push(text, ' ')
        mainLength += text.length + 1
      }
    }
    if (n > 0 && n <= 14) {
      const line = squash(text)
      const byline = BYLINE.exec(line)
      if (byline && !facts.visibleByline) facts.visibleByline = cutChars(line, 120)
      const date = VISIBLE_DATE.exec(line)
      if (date && !facts.visibleDate && Number.isFinite(Date.parse(date[0].replace(/(\d)(st|nd|rd|th)/i, '$1')))) facts.visibleDate = date[0]
    }
  }
  const endAnchor = () => {
    if (!anchor) return
    const a = anchor
    anchor = null
    const text = squash(a.chunks.map((c) => c.text).join(''))
    const langs = new Set(a.chunks.filter((c) => c.text.trim()).map((c) => c.lang))
    const lang = langs.size === 1 ? [...langs][0] : null
    const shown = cutChars(text, 100)
    if (a.bad) a.bad.text = shown
    if (a.href === null) return
    const lower = a.href.trim().toLowerCase()
    if (lower.startsWith('javascript:') || lower.startsWith('mailto:') || lower.startsWith('tel:')) return
    const target = resolve(a.href.trim())
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) return
    // Without the fragment: the first "#" of a serialized URL starts it.
    const hashAt = target.href.indexOf('#')
    const abs = hashAt < 0 ? target.href : target.href.slice(0, hashAt)
    const samePage = abs === pageUrl.split('#')[0]
    if (!a.nofollow && !samePage && isNonDescriptive(text, lang) && facts.vagueLinks.length < 50) facts.vagueLinks.push({ href: abs, text: shown, lang })
    if (samePage) return
    // Same site as the crawler sees it: www and bare host alike, any scheme.
    if (target.hostname.replace(/^www\./, '') !== base.hostname.replace(/^www\./, '')) {
      facts.externalLinks++
      return
    }
    if (abs.length > MAX_URL_LENGTH) return
    if (!seenLinks.has(abs) && facts.links.length < MAX_LINKS) {
      seenLinks.add(abs)
      facts.links.push({ url: abs, text: shown, nofollow: a.nofollow })
    }
  }

  const onElement = {
    element(el: TagElement) {
      const tag = el.tagName.toLowerCase()
      if (!bodyStarted && (tag === 'body' || (!HEAD_ONLY.has(tag) && !has('head')))) bodyStarted = true
      // An article card inside an aside or footer is not the page's main content.
      if (MAIN.has(tag) && bodyStarted && boilerplateDepth === 0) sawRegion = true
      if (CLOSES_P.has(tag) && has('p')) {
        if (answerParagraph) finishAnswer()
        popTo('p')
      }
      if (TRACKED.has(tag)) {
        push({ tag, lang: null })
        try {
          el.onEndTag(() => {
            if (tag === 'title') closeTitle()
            else if (tag === 'a') endAnchor()
            else if (tag === 'p' && answerParagraph) finishAnswer()
            else if (tag === 'script' && jsonLd) closeJsonLd()
            else if (tag.length === 2 && tag[0] === 'h') endHeading()
            popTo(tag)
          })
        } catch {
          // A self-closing foreign element (<a/> in SVG) has no end tag.
          pop()
        }
      }
      switch (tag) {
        case 'title':
          if (!bodyStarted) title = []
          break
        case 'meta':
          onMeta(el)
          break
        case 'link':
          onLink(el)
          break
        case 'h1':
        case 'h2':
        case 'h3':
        case 'h4':
        case 'h5':
        case 'h6':
          endHeading()
          heading = { level: Number(tag[1]), parts: [], linkedChars: 0, plainChars: 0 }
          break
        case 'a': {
          endAnchor()
          const raw = el.getAttribute('href')
          const href = raw === null ? null : decodeEntities(raw)
          const problem = anchorProblem(el, href, (h) => resolve(h) !== null)
          const bad = problem && facts.badAnchors.length < 50 ? { href, text: '', reason: problem } : null
          if (bad) facts.badAnchors.push(bad)
          const rel = (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/)
          if (rel.includes('author') && !facts.author) facts.author = 'rel=author link'
          anchor = { href, nofollow: rel.includes('nofollow'), chunks: [], bad }
          break
        }
        case 'img': {
          facts.images++
          const alt = el.getAttribute('alt')
          const src = el.getAttribute('src')
          if (alt === null && facts.imagesWithoutAlt.length < 20) facts.imagesWithoutAlt.push(src ? decodeEntities(src) : '(no src)')
          mixed(src)
          break
        }
        case 'script': {
          const type = (el.getAttribute('type') ?? '').trim().toLowerCase()
          if (type === 'application/ld+json') jsonLd = []
          mixed(el.getAttribute('src'))
          break
        }
        case 'iframe':
        case 'video':
        case 'audio':
        case 'source':
        case 'embed':
        case 'track':
          mixed(el.getAttribute('src'))
          break
        case 'object':
          mixed(el.getAttribute('data'))
          break
        case 'ul':
        case 'ol':
        case 'dl':
          facts.lists++
          if (pendingHeading && !heading) answerFound()
          break
        case 'table':
          facts.tables++
          if (pendingHeading && !heading) answerFound()
          break
        case 'p':
          if (pendingHeading && !heading) answerParagraph = []
          break
        case 'time': {
          const dt = el.getAttribute('datetime')
          if (dt && !facts.published && has('body')) facts.published = decodeEntities(dt)
          break
        }
      }
    },
  }
  // Handlers for attributes any element may carry (lang, itemprop, itemtype), run after the element's own handler.
  const onLang = (el: TagElement) => {
    // Runs after the handler of the same element above, whose frame (if tracked) is on top.
    const tag = el.tagName.toLowerCase()
    const lang = (el.getAttribute('lang') ?? '').trim()
    if (tag === 'html') facts.lang = lang
    if (tag === 'svg' || VOID.has(tag)) return
    if (TRACKED.has(tag)) {
      if (stack.length && stack[stack.length - 1].tag === tag) stack[stack.length - 1].lang = lang
      return
    }
    push({ tag, lang })
    try {
      el.onEndTag(() => popTo(tag))
    } catch {
      pop()
    }
  }
  const onItemprop = (el: TagElement) => {
    const itemprop = (el.getAttribute('itemprop') ?? '').toLowerCase()
    if (itemprop === 'author' && !facts.author) facts.author = 'itemprop=author'
    if (itemprop === 'datepublished') facts.published ??= el.getAttribute('content') ?? el.getAttribute('datetime')
    if (itemprop === 'datemodified') facts.modified ??= el.getAttribute('content') ?? el.getAttribute('datetime')
  }
  const onItemtype = (el: TagElement) => {
    const name = (el.getAttribute('itemtype') ?? '').trim().split('/').pop() ?? ''
    if (!name || seenMicrodataTypes.has(name) || facts.microdataTypes.length >= MAX_TYPES) return
    seenMicrodataTypes.add(name)
    facts.microdataTypes.push(name)
  }
  const onText = (raw: string) => {
    if (!raw) return
    if (jsonLd) {
      jsonLd.push(raw)
      return
    }
    if (ignoreDepth > 0) return
    const text = decodeEntities(raw)
    if (title) title.push(text)
    if (!bodyStarted) return
    if (heading) {
      heading.parts.push(text)
      const chars = text.trim().length
      if (anchor && anchor.href !== null && !anchor.href.trim().startsWith('#')) heading.linkedChars += chars
      else heading.plainChars += chars
    }
    if (anchor) anchor.chunks.push({ text, lang: currentLang() })
    if (answerParagraph) answerParagraph.push(text)
    if (!block) {
      blockBoilerplate = boilerplateDepth > 0
      blockInRegion = regionDepth > 0
    }
    block += text
    // A long block is counted in parts, cut where a word ends. The test reads the new text alone: a
    // regex on the growing block would flatten it on every chunk, quadratic in a word of many chunks.
    if (block.length > 4096 && /\s$/.test(text)) endBlock()
  }

  function closeTitle() {
    if (title) keep(facts.titles, squash(title.join('')), MAX_HEAD_ENTRIES)
    title = null
  }
  function closeJsonLd() {
    const text = (jsonLd ?? []).join('')
    jsonLd = null
    try {
      jsonLdTypes(parseJson(text), facts.jsonLd, seenJsonLdTypes)
    } catch (err) {
      // V8 quotes the code unit it stopped at, which may be half of an emoji.
      if (facts.jsonLd.errors.length < 5) facts.jsonLd.errors.push(`JSON-LD block is not valid JSON: ${cutChars((err as Error).message.toWellFormed(), 120)}`)
    }
  }
  function answerFound() {
    if (!pendingHeading) return
    pendingHeading.answered = true
    pendingHeading = null
  }
  function finishAnswer() {
    const text = squash((answerParagraph ?? []).join(''))
    answerParagraph = null
    if (!pendingHeading) return
    if (countWords(text) >= 5) answerFound()
  }
  function onMeta(el: TagElement) {
    const name = (el.getAttribute('name') ?? '').trim().toLowerCase()
    const property = (el.getAttribute('property') ?? '').trim().toLowerCase()
    const content = decodeEntities(el.getAttribute('content') ?? '')
    if (name === 'description' && !bodyStarted) keep(facts.metaDescriptions, content, MAX_HEAD_ENTRIES)
    if (name === 'viewport') facts.viewport = true
    if (name === 'author' && content.trim()) facts.author = content.trim()
    if (name === 'robots' || name.endsWith('bot') || name === 'googlebot-news' || name === 'slurp') {
      if (!bodyStarted) keep(facts.metaRobots, { name, content }, MAX_HEAD_ENTRIES)
    }
    if (property.startsWith('og:') && Object.keys(facts.openGraph).length < 20) facts.openGraph[property] = content
    if (property === 'article:published_time' || name === 'date' || name === 'dc.date') facts.published ??= content
    if (property === 'article:modified_time' || property === 'og:updated_time' || name === 'last-modified') facts.modified ??= content
    if (property === 'article:author' && content.trim()) facts.author ??= content.trim()
  }
  function onLink(el: TagElement) {
    const rel = (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean)
    const href = el.getAttribute('href')
    if (rel.includes('stylesheet')) mixed(href)
    if (bodyStarted) return
    // URLs that name a page are kept whole or not at all (see fact-limits.ts).
    const url = href === null ? null : decodeEntities(href)
    const tooLong = url !== null && url.length > MAX_URL_LENGTH
    if (rel.includes('canonical') && url !== null && !tooLong) keep(facts.canonicals, url, MAX_HEAD_ENTRIES)
    if (rel.includes('alternate')) {
      const hreflang = el.getAttribute('hreflang')
      if (hreflang !== null && !tooLong) keep(facts.hreflangs, { lang: decodeEntities(hreflang), href: url }, MAX_HREFLANGS)
      const type = (el.getAttribute('type') ?? '').toLowerCase()
      if ((type === 'application/rss+xml' || type === 'application/atom+xml') && url) {
        const u = resolve(url)?.toString()
        if (u && u.length <= MAX_URL_LENGTH) keep(facts.feeds, u, MAX_HEAD_ENTRIES)
      }
    }
    if (rel.includes('author') && !facts.author) facts.author = 'rel=author link'
  }

  return {
    element(el) {
      const tag = el.tagName.toLowerCase()
      if (BLOCK.has(tag)) endBlock()
      if (HANDLED.has(tag)) onElement.element(el)
      if (el.hasAttribute('lang')) onLang(el)
      if (el.hasAttribute('itemprop')) onItemprop(el)
      if (el.hasAttribute('itemtype')) onItemtype(el)
    },
    text: onText,
    endTag(name) {
      if (BLOCK.has(name)) endBlock()
    },
    finish() {
      endHeading()
      endAnchor()
      endBlock()
      facts.mainRegion = sawRegion
      facts.wordCount = sawRegion ? regionWords : bodyWords
      const main = mainText.join('')
      facts.terms = topEntries(termCounts(main), 40)
      const h1 = facts.headings.find((x) => x.level === 1)?.text ?? ''
      // The phrases of the title as stored: keyphrase checks read them from the stored title.
      const title = jsonPrefix(facts.titles[0] ?? '', TEXT_LIMITS.title)
      const keys = new Set([...phrasesOf(title).keys(), ...phrasesOf(h1).keys(), ...phrasesOf(slugWords(pageUrl)).keys()])
      facts.phraseCounts = [...countPhrases(main, keys)].slice(0, 200)
      facts.published ??= facts.jsonLd.datePublished
      facts.modified ??= facts.jsonLd.dateModified
      if (!facts.author && facts.jsonLd.author) facts.author = 'JSON-LD author'
      if (!facts.author && facts.visibleByline) facts.author = `byline "${facts.visibleByline}"`
      facts.published ??= facts.visibleDate
      return limitHtmlFacts(facts)
    },
  }
}

/** The first title's length in characters, whether the facts keep all of it or a prefix. */
export function titleLength(h: HtmlFacts): number {
  return h.cut?.title?.length ?? h.titles[0]?.length ?? 0
}

/** The `duplicateKey` of the first title ('' when there is none or it is blank). */
export function titleKey(h: HtmlFacts): string {
  return h.cut?.title?.duplicateKey ?? duplicateKey(h.titles[0] ?? '')
}

/** The first meta description's trimmed length in characters, whether the facts keep all of it or a prefix. */
export function descriptionLength(h: HtmlFacts): number {
  return h.cut?.description?.length ?? h.metaDescriptions[0]?.trim().length ?? 0
}

/** The `duplicateKey` of the first meta description ('' when there is none or it is blank). */
export function descriptionKey(h: HtmlFacts): string {
  return h.cut?.description?.duplicateKey ?? duplicateKey(h.metaDescriptions[0] ?? '')
}

/** The facts of an HTML document given as text. */
export function extractHtmlText(html: string, pageUrl: string): HtmlFacts {
  const extractor = htmlExtractor(pageUrl)
  tokenizeHtml(html, extractor)
  return extractor.finish()
}

/**
 * The text decoder HTMLRewriter would use for a response: the charset of its Content-Type, else
 * UTF-8 (a `<meta charset>` is not read). Throws HTMLRewriter's errors for charsets it refuses.
 */
function decoderFor(contentType: string | null): TextDecoder {
  let label = 'utf-8'
  for (const param of (contentType ?? '').split(';').slice(1)) {
    const eq = param.indexOf('=')
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .trim()
    if (value) label = value
    break
  }
  let decoder: TextDecoder
  try {
    // A byte order mark stays in the text, as HTMLRewriter leaves it.
    decoder = new TextDecoder(label, { fatal: false, ignoreBOM: true })
  } catch {
    throw new TypeError('Parser error: Unknown character encoding has been provided.')
  }
  if (decoder.encoding === 'utf-16le' || decoder.encoding === 'utf-16be' || decoder.encoding === 'iso-2022-jp') {
    throw new TypeError('Parser error: Expected ASCII-compatible encoding.')
  }
  return decoder
}

/**
 * Extracts the audit facts of an HTML response. The body is read in one native call and tokenized
 * in JavaScript (see html-tokenizer.ts for why not HTMLRewriter); the size cap of the guarded client
 * still applies while it is read.
 */
export async function extractHtml(res: Response, pageUrl: string): Promise<HtmlFacts> {
  const decoder = decoderFor(res.headers.get('content-type'))
  const bytes = await res.arrayBuffer()
  return extractHtmlText(decoder.decode(bytes), pageUrl)
}
