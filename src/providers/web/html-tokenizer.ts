/**
 * The service's one HTML reader: the crawler's audit extractor, company research and link cards all
 * read pages through it (docs/html-reader.md says why). It reports the same start tags, end tags
 * and text as Cloudflare's HTMLRewriter (lol-html) does for a whole document, without its cost:
 * HTMLRewriter calls into JavaScript once per matched element, end tag and text chunk, and each
 * call crosses from Rust through C++ into the isolate, more time on a typical page than the rest of
 * the crawl spends on it. Here the page is read in one native call and tokenized in plain JavaScript.
 *
 * Rules followed (each checked against HTMLRewriter in test/crawler/tokenizer.test.ts):
 * - the WHATWG tokenizer states: tags and attributes (names lower-cased, values raw, duplicates
 *   kept), comments (including `<!-->` and `<!--->`), doctype and bogus comments, `</>` ignored, a
 *   tag cut off by the end of the input dropped;
 * - text is raw (character references are not decoded) and split where HTMLRewriter splits it: at a
 *   `<` that starts no tag, and after an end tag in raw text that is not the closing one;
 * - raw text after `title`/`textarea` (RCDATA), `style`/`xmp`/`iframe`/`noembed`/`noframes`/
 *   `noscript` (RAWTEXT), `script` (script data with its `<!--` escapes) and `plaintext`, in HTML
 *   content only;
 * - SVG and MathML content: self-closing elements there have no end tag, `<![CDATA[...]]>` is text,
 *   HTML integration points (`foreignObject`, `desc`, `title`, `annotation-xml` with an HTML
 *   encoding, `mi`/`mo`/`mn`/`ms`/`mtext`, left by the end tag of any of them of the same namespace)
 *   and the tags that break out of foreign content (and `</p>`, `</br>`);
 * - end tags close the innermost open element of that name and every element opened inside it
 *   (their end handlers run innermost first); an end tag with no open element of its name is
 *   ignored; no element is closed implicitly (a second `<p>` leaves the first open), as in lol-html.
 */

/** A start tag as the readers see it (the part of HTMLRewriter's `Element` they use). */
export interface TagElement {
  readonly tagName: string
  readonly attributes: Iterable<string[]>
  getAttribute(name: string): string | null
  hasAttribute(name: string): boolean
  /** Runs `handler` when the element's end tag is seen; throws for elements that have none (void, self-closing foreign). */
  onEndTag(handler: () => void): void
}

/** Receives the document in order: every start tag, every end tag (matched or not), and raw text chunks. */
export interface HtmlSink {
  element(el: TagElement): void
  text(raw: string): void
  /** An end tag as written, before the handlers of the elements it closes run. */
  endTag?(name: string): void
}

const enum Ns {
  Html,
  Svg,
  MathMl,
}

const VOID = new Set(['area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr'])
const RCDATA = new Set(['title', 'textarea'])
const RAWTEXT = new Set(['style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript'])
/** Start tags that leave SVG or MathML content (`font` only with color, face or size). */
const BREAKOUT = new Set([
  'b',
  'big',
  'blockquote',
  'body',
  'br',
  'center',
  'code',
  'dd',
  'div',
  'dl',
  'dt',
  'em',
  'embed',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'hr',
  'i',
  'img',
  'li',
  'listing',
  'menu',
  'meta',
  'nobr',
  'ol',
  'p',
  'pre',
  'ruby',
  's',
  'small',
  'span',
  'strong',
  'strike',
  'sub',
  'sup',
  'table',
  'tt',
  'u',
  'ul',
  'var',
])
const SVG_INTEGRATION = new Set(['foreignobject', 'desc', 'title'])
const MATHML_TEXT_INTEGRATION = new Set(['mi', 'mo', 'mn', 'ms', 'mtext'])
const MATHML_INTEGRATION = new Set([...MATHML_TEXT_INTEGRATION, 'annotation-xml'])

class Tag implements TagElement {
  endHandlers: (() => void)[] | null = null
  constructor(
    readonly tagName: string,
    readonly attributes: [string, string][],
    readonly canEnd: boolean,
  ) {}
  getAttribute(name: string): string | null {
    const n = name.toLowerCase()
    for (const [k, v] of this.attributes) if (k === n) return v
    return null
  }
  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null
  }
  onEndTag(handler: () => void): void {
    if (!this.canEnd) throw new TypeError(`<${this.tagName}> has no end tag`)
    ;(this.endHandlers ??= []).push(handler)
  }
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13
const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/** A parsed tag: name, attributes, flags, and where it ended. */
interface RawTag {
  name: string
  attrs: [string, string][]
  selfClosing: boolean
  end: number
}

/**
 * Reads a tag whose name starts at `from` (just after `<` or `</`). Returns null when the input ends
 * inside it (the tag is dropped, as the tokenizer does at end of file).
 */
function readTag(html: string, from: number): RawTag | null {
  const len = html.length
  let p = from
  while (p < len) {
    const c = html.charCodeAt(p)
    if (isSpace(c) || c === 47 || c === 62) break
    p++
  }
  const name = html.slice(from, p).toLowerCase()
  const attrs: [string, string][] = []
  for (;;) {
    while (p < len && isSpace(html.charCodeAt(p))) p++
    if (p >= len) return null
    const c = html.charCodeAt(p)
    if (c === 62) return { name, attrs, selfClosing: false, end: p + 1 }
    if (c === 47) {
      if (p + 1 >= len) return null
      if (html.charCodeAt(p + 1) === 62) return { name, attrs, selfClosing: true, end: p + 2 }
      p++
      continue
    }
    // Attribute name: its first character may be "=" (a parse error the tokenizer keeps as a name).
    const start = p++
    while (p < len) {
      const d = html.charCodeAt(p)
      if (isSpace(d) || d === 47 || d === 62 || d === 61) break
      p++
    }
    const attrName = html.slice(start, p).toLowerCase()
    while (p < len && isSpace(html.charCodeAt(p))) p++
    if (p >= len) return null
    let value = ''
    if (html.charCodeAt(p) === 61) {
      p++
      while (p < len && isSpace(html.charCodeAt(p))) p++
      if (p >= len) return null
      const q = html.charCodeAt(p)
      if (q === 34 || q === 39) {
        const close = html.indexOf(q === 34 ? '"' : "'", p + 1)
        if (close < 0) return null
        value = html.slice(p + 1, close)
        p = close + 1
      } else if (q !== 62) {
        const vs = p
        while (p < len) {
          const d = html.charCodeAt(p)
          if (isSpace(d) || d === 62) break
          p++
        }
        if (p >= len) return null
        value = html.slice(vs, p)
      }
    }
    attrs.push([attrName, value])
  }
}

/**
 * `html.indexOf(needle, from)` for searches whose `from` never decreases: the last hit is kept, so a
 * needle that is far away or absent is scanned for once per document, not once per search.
 */
function finder(html: string, needle: string): (from: number) => number {
  let at = -2
  return (from) => {
    if (at !== -1 && at < from) at = html.indexOf(needle, from)
    return at
  }
}

/** Index just past the `>` that ends a bogus comment or doctype starting at `from`; -1 at end of input. */
function skipTo(html: string, from: number, needle: string): number {
  const at = html.indexOf(needle, from)
  return at < 0 ? -1 : at + needle.length
}

/** Whether `</name` followed by whitespace, `/` or `>` starts at `at` (the end of raw text). */
function closesRaw(html: string, at: number, name: string): boolean {
  if (html.charCodeAt(at) !== 60 || html.charCodeAt(at + 1) !== 47) return false
  const end = at + 2 + name.length
  if (html.slice(at + 2, end).toLowerCase() !== name) return false
  const c = html.charCodeAt(end)
  return isSpace(c) || c === 47 || c === 62
}

/** End of script data starting at `from`: the index of its closing `</script`, or the input length. */
function scriptEnd(html: string, from: number, commentEnd: (from: number) => number): number {
  const len = html.length
  let escaped = false
  let doubleEscaped = false
  let p = from
  while (p < len) {
    const lt = html.indexOf('<', p)
    const dashes = escaped ? commentEnd(p) : -1
    if (dashes >= 0 && (lt < 0 || dashes < lt)) {
      escaped = false
      doubleEscaped = false
      p = dashes + 3
      continue
    }
    if (lt < 0) return len
    if (!escaped) {
      if (closesRaw(html, lt, 'script')) return lt
      if (html.startsWith('<!--', lt)) {
        // The dashes of "<!--" count towards a closing "-->": "<!-->" and "<!--->" escape nothing.
        p = lt + 4
        while (html.charCodeAt(p) === 45) p++
        if (html.charCodeAt(p) === 62) p++
        else escaped = true
        continue
      }
      p = lt + 1
      continue
    }
    if (html.charCodeAt(lt + 1) === 47) {
      if (closesRaw(html, lt, 'script')) {
        if (!doubleEscaped) return lt
        doubleEscaped = false
        p = lt + 8
        continue
      }
    } else if (!doubleEscaped && html.slice(lt + 1, lt + 7).toLowerCase() === 'script') {
      const c = html.charCodeAt(lt + 7)
      if (isSpace(c) || c === 47 || c === 62) {
        doubleEscaped = true
        p = lt + 7
        continue
      }
    }
    p = lt + 1
  }
  return len
}

/** Tokenizes a whole HTML document into `sink` (see the module comment for the rules). */
export function tokenizeHtml(html: string, sink: HtmlSink): void {
  const len = html.length
  const open: Tag[] = []
  // Open elements per name: an end tag nothing matches returns at once, so a hostile page of unmatched
  // end tags over a deep stack costs linear time, not quadratic.
  const openByName = new Map<string, number>()
  // Namespaces entered (foreign content, or HTML inside an integration point); empty = HTML.
  const nsStack: { ns: Ns; by: string }[] = []
  const ns = () => (nsStack.length ? nsStack[nsStack.length - 1].ns : Ns.Html)
  const commentEnd = finder(html, '-->')
  const bangCommentEnd = finder(html, '--!>')
  let p = 0

  const text = (from: number, to: number) => {
    if (to > from) sink.text(html.slice(from, to))
  }

  const endTag = (name: string) => {
    const top = nsStack[nsStack.length - 1]
    // </p> and </br> leave foreign content like a breakout start tag does; HTML inside an integration
    // point is left by the end tag of any integration point of the namespace around it, as lol-html
    // leaves it (<svg><title></desc> is back in SVG).
    const parent = nsStack.length > 1 ? nsStack[nsStack.length - 2].ns : Ns.Html
    const leavesPoint = top?.ns === Ns.Html && (parent === Ns.Svg ? SVG_INTEGRATION.has(name) : parent === Ns.MathMl && MATHML_INTEGRATION.has(name))
    if (top && (top.by === name || leavesPoint || (top.ns !== Ns.Html && (name === 'p' || name === 'br')))) nsStack.pop()
    if (!openByName.get(name)) return
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i].tagName !== name) continue
      const closed = open.splice(i)
      for (const c of closed) openByName.set(c.tagName, openByName.get(c.tagName)! - 1)
      for (let k = closed.length - 1; k >= 0; k--) for (const h of closed[k].endHandlers ?? []) h()
      return
    }
  }

  /** Handles a start tag; returns the raw-text element name it opens, if any. */
  const startTag = (t: RawTag): string | null => {
    let current = ns()
    if (current !== Ns.Html) {
      const breaks = BREAKOUT.has(t.name) || (t.name === 'font' && t.attrs.some(([k]) => k === 'color' || k === 'face' || k === 'size'))
      if (breaks) {
        nsStack.pop()
        current = ns()
      }
    }
    const foreign = current !== Ns.Html
    // <svg/> and <math/> are foreign elements themselves, so their self-closing flag counts.
    const canEnd = foreign || t.name === 'svg' || t.name === 'math' ? !t.selfClosing : !VOID.has(t.name)
    const el = new Tag(t.name, t.attrs, canEnd)
    if (canEnd) {
      open.push(el)
      openByName.set(el.tagName, (openByName.get(el.tagName) ?? 0) + 1)
    }
    sink.element(el)
    if (!canEnd) return null
    // Every <svg> or <math> opens a level, inside foreign content too, and a breakout tag leaves one.
    if (t.name === 'svg') {
      nsStack.push({ ns: Ns.Svg, by: 'svg' })
      return null
    }
    if (t.name === 'math') {
      nsStack.push({ ns: Ns.MathMl, by: 'math' })
      return null
    }
    if (foreign) {
      if (current === Ns.Svg && SVG_INTEGRATION.has(t.name)) nsStack.push({ ns: Ns.Html, by: t.name })
      else if (current === Ns.MathMl && MATHML_TEXT_INTEGRATION.has(t.name)) nsStack.push({ ns: Ns.Html, by: t.name })
      else if (current === Ns.MathMl && t.name === 'annotation-xml') {
        const enc = (el.getAttribute('encoding') ?? '').toLowerCase()
        if (enc === 'text/html' || enc === 'application/xhtml+xml') nsStack.push({ ns: Ns.Html, by: t.name })
      }
      return null
    }
    if (RCDATA.has(t.name) || RAWTEXT.has(t.name) || t.name === 'script' || t.name === 'plaintext') return t.name
    return null
  }

  /** Text of a raw-text element up to its closing tag, split as HTMLRewriter splits it. */
  const rawText = (name: string) => {
    if (name === 'plaintext') {
      text(p, len)
      p = len
      return
    }
    if (name === 'script') {
      const end = scriptEnd(html, p, commentEnd)
      text(p, end)
      p = end
      return
    }
    let chunk = p
    for (;;) {
      const lt = html.indexOf('<', p)
      if (lt < 0) {
        text(chunk, len)
        p = len
        return
      }
      if (closesRaw(html, lt, name)) {
        text(chunk, lt)
        p = lt
        return
      }
      text(chunk, lt)
      // A "<" or "</name" that does not close the element is a chunk of its own.
      let q = lt + 1
      if (html.charCodeAt(q) === 47) {
        q++
        while (q < len && isAlpha(html.charCodeAt(q))) q++
      }
      text(lt, q)
      chunk = p = q
    }
  }

  while (p < len) {
    const lt = html.indexOf('<', p)
    if (lt < 0) {
      text(p, len)
      return
    }
    text(p, lt)
    p = lt
    const c = html.charCodeAt(lt + 1)
    if (isAlpha(c)) {
      const t = readTag(html, lt + 1)
      if (!t) return
      p = t.end
      const raw = startTag(t)
      if (raw) rawText(raw)
      continue
    }
    if (c === 47) {
      const d = html.charCodeAt(lt + 2)
      if (isAlpha(d)) {
        const t = readTag(html, lt + 2)
        if (!t) return
        p = t.end
        sink.endTag?.(t.name)
        endTag(t.name)
        continue
      }
      if (d === 62) {
        p = lt + 3
        continue
      }
      if (lt + 2 >= len) {
        text(lt, len)
        return
      }
      const end = skipTo(html, lt + 2, '>')
      if (end < 0) return
      p = end
      continue
    }
    if (c === 33) {
      if (html.startsWith('<!--', lt)) {
        const body = lt + 4
        if (html.charCodeAt(body) === 62) {
          p = body + 1
          continue
        }
        if (html.startsWith('->', body)) {
          p = body + 2
          continue
        }
        const a = commentEnd(body)
        const b = bangCommentEnd(body)
        if (a < 0 && b < 0) return
        p = a >= 0 && (b < 0 || a < b) ? a + 3 : b + 4
        continue
      }
      if (ns() !== Ns.Html && html.startsWith('<![CDATA[', lt)) {
        const close = html.indexOf(']]>', lt + 9)
        if (close < 0) {
          text(lt + 9, len)
          return
        }
        text(lt + 9, close)
        p = close + 3
        continue
      }
      const end = skipTo(html, lt + 2, '>')
      if (end < 0) return
      p = end
      continue
    }
    if (c === 63) {
      const end = skipTo(html, lt + 2, '>')
      if (end < 0) return
      p = end
      continue
    }
    // A "<" that starts nothing is text, in a chunk of its own.
    text(lt, lt + 1)
    p = lt + 1
  }
}
