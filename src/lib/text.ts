/** Text helpers shared by extraction, cannibalization and gap analysis. */
import { ownValue } from './objects'

const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down ' +
    'during each few for from further get got had has have having he her here hers herself him himself his how i if in into is it its itself just let me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you ' +
    'your yours yourself yourselves one two new use using used make may might much many must need via per via us its www com http https html php page pages ' +
    'home read click learn see like well way ways also get every even first last best top year years day days time'
  ).split(' '),
)

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…', rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“', copy: '©' }

/**
 * Decodes the HTML and XML character references the tokenizer leaves in text and attribute values.
 * A numeric reference to no character (0, a UTF-16 surrogate, past U+10FFFF) is U+FFFD, as HTML
 * decodes it: "&#xD800;" would otherwise put a lone surrogate in the text, which no encoder takes.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\ufffd'
    }
    // A page's text names the entity: "&constructor;" is no entity, not Object's source text.
    return ownValue(ENTITIES, body.toLowerCase()) ?? m
  })
}

/** Collapses runs of whitespace and trims. */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * The first `n` UTF-16 code units of `text`, one fewer when the cut would split a surrogate pair
 * (half an emoji would reach the report as a replacement character).
 */
export function cutChars(text: string, n: number): string {
  if (text.length <= n) return text
  const last = text.charCodeAt(n - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? n - 1 : n)
}

/** Texts longer than this are compared by a hash of their whole text rather than kept whole in a key. */
const LITERAL_KEY_CHARS = 256

/**
 * A 64-bit hash of a string's code units (cyrb53 by bryc, public domain, keeping both 32-bit
 * halves). Not cryptographic: it only groups one site's own pages, so a crafted collision could
 * only mislead the audit of the site that crafted it.
 */
function hash64(text: string): string {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0')
}

/**
 * What duplicate checks compare a text by: whitespace squashed and lower-cased, so "A  Title" and
 * "a title" meet; '' for a blank text. A long text is keyed by its length and a hash of the whole,
 * so the key of a title the facts keep only a prefix of still tells it from every other title.
 */
export function duplicateKey(text: string): string {
  const key = squash(text).toLowerCase()
  if (!key) return ''
  return key.length <= LITERAL_KEY_CHARS ? `=${key}` : `#${key.length}:${hash64(key)}`
}

/** Words of a text (letters or digits), lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’]*/gu) ?? []
}

/** Number of words in a text. */
export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0
}

/** A crude English stem so "audits", "audit" and "auditing" meet. */
export function stem(word: string): string {
  if (word.length <= 4) return word
  if (word.endsWith('ies')) return word.slice(0, -3) + 'y'
  if (word.endsWith('ing') && word.length > 6) {
    const base = word.slice(0, -3)
    // "running" -> "run", "sleeping" -> "sleep"
    return /([b-df-hj-np-tv-z])\1$/.test(base) && !/(ll|ss|zz)$/.test(base) ? base.slice(0, -1) : base
  }
  if (word.endsWith('es') && /(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1)
  return word
}

/** Content words of a text with their stems: no stopwords, numbers or short tokens. */
export function termPairs(text: string): { stem: string; word: string }[] {
  // A page may write one "word" of thousands of quotes ("a'''…b"): the lookbehind starts the
  // trailing run once, where a bare `['’]+$` started again from each quote in it.
  return words(text)
    .map((w) => w.replace(/['’]s$/, '').replace(/(?<!['’])['’]+$/, ''))
    .filter((w) => w.length > 2 && !STOPWORDS.has(w) && !/^\d+$/.test(w))
    .map((word) => ({ stem: stem(word), word }))
}

/** Content terms of a text: stemmed words without stopwords, numbers or short tokens. */
export function terms(text: string): string[] {
  return termPairs(text).map((t) => t.stem)
}

/** Terms and adjacent-term bigrams of a text, with counts. */
export function termCounts(text: string, withBigrams = true): Map<string, number> {
  const out = new Map<string, number>()
  const list = terms(text)
  for (let i = 0; i < list.length; i++) {
    out.set(list[i], (out.get(list[i]) ?? 0) + 1)
    if (withBigrams && i + 1 < list.length) {
      const bi = `${list[i]} ${list[i + 1]}`
      out.set(bi, (out.get(bi) ?? 0) + 1)
    }
  }
  return out
}

/** The `n` largest entries of a count map. */
export function topEntries(counts: Map<string, number>, n: number): [string, number][] {
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n)
}

/** A percent-encoded URL part decoded; null when it is not valid percent-encoding of UTF-8 ("%ZZ", "%E0"). */
export function decodeUriPart(text: string): string | null {
  try {
    return decodeURIComponent(text)
  } catch {
    return null
  }
}

/**
 * `text` percent-encoded as one URL part (a path segment or query value); null when it holds a lone
 * surrogate ("\ud800", which JSON allows), since UTF-8 cannot carry one and the built-in throws
 * URIError. For identifiers, where a changed character would name another object.
 */
export function encodeUriPart(text: string): string | null {
  return text.isWellFormed() ? encodeURIComponent(text) : null
}

/**
 * `text` as one URL path segment of an identifier (encodeUriPart); null when it cannot name one: an
 * empty text, one of dots (a dot segment, which would climb the path to another endpoint), or one
 * with a lone surrogate.
 */
export function pathSegment(text: string): string | null {
  return /^\.*$/.test(text) ? null : encodeUriPart(text)
}

/**
 * `text` percent-encoded as one URL part, a lone surrogate sent as U+FFFD as URLSearchParams and
 * TextEncoder send it. For search text and for values already restricted to ASCII, where no
 * character can be lost.
 */
export function encodeUriText(text: string): string {
  return encodeURIComponent(text.toWellFormed())
}

/** `text` percent-encoded as a whole URL (encodeURI); null when it holds a lone surrogate. */
export function encodeUri(text: string): string | null {
  return text.isWellFormed() ? encodeURI(text) : null
}

/** The last path segment of a URL as words ("/blog/trail-running-shoes" -> "trail running shoes"). */
export function slugWords(url: string): string {
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    return ''
  }
  const segments = path.split('/').filter(Boolean)
  const raw = segments[segments.length - 1] ?? ''
  const last = decodeUriPart(raw) ?? raw
  return last.replace(/\.[a-z0-9]+$/i, '').replace(/[-_.]+/g, ' ')
}

/** A word as the phrase functions compare it: lower-cased, possessive and trailing quotes dropped. */
function bare(word: string): string {
  // Linear on a run of quotes, as in termPairs.
  return word.replace(/['’]s$/, '').replace(/(?<!['’])['’]+$/, '')
}

function isContentWord(word: string): boolean {
  return word.length > 2 && !STOPWORDS.has(word) && !/^\d+$/.test(word)
}

/**
 * The 2-3 word phrases a text says: runs of adjacent content words (a stopword, number or short
 * word ends a run, so every phrase occurs in the text as written). Stemmed key -> the words as
 * written. A phrase never starts or ends with a `skip` stem (a brand name in every title), though
 * one may sit inside it. `acrossStopwords` lets runs pass over stopwords, numbers and short words
 * (the phrases then need not occur as written).
 */
export function phrasesOf(text: string, skip: ReadonlySet<string> = new Set(), acrossStopwords = false): Map<string, string> {
  const out = new Map<string, string>()
  let run: { stem: string; word: string }[] = []
  const flush = () => {
    for (let n = 2; n <= 3; n++) {
      for (let i = 0; i + n <= run.length; i++) {
        const part = run.slice(i, i + n)
        if (skip.has(part[0].stem) || skip.has(part[n - 1].stem)) continue
        const key = part.map((t) => t.stem).join(' ')
        if (!out.has(key)) out.set(key, part.map((t) => t.word).join(' '))
      }
    }
    run = []
  }
  for (const raw of words(text)) {
    const word = bare(raw)
    const s = stem(word)
    if (!isContentWord(word)) {
      if (!acrossStopwords) flush()
    } else run.push({ stem: s, word })
  }
  flush()
  return out
}

/** How often each stemmed phrase key occurs in a text, as adjacent words (keys never seen are left out). */
export function countPhrases(text: string, keys: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>()
  if (!keys.size) return out
  const stems = words(text).map((w) => stem(bare(w)))
  for (let i = 0; i < stems.length; i++) {
    for (let n = 2; n <= 3 && i + n <= stems.length; n++) {
      const key = stems.slice(i, i + n).join(' ')
      if (keys.has(key)) out.set(key, (out.get(key) ?? 0) + 1)
    }
  }
  return out
}
