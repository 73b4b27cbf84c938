/**
 * The stem agents_fts keeps for a word: the Porter stemmer as SQLite's FTS5 `porter` tokenizer
 * applies it to one token of its `unicode61 remove_diacritics 2` tokenizer (a search_words word).
 * FTS5 works on the token's UTF-8 bytes: only ASCII letters take part in the rules (every other byte
 * counts as a consonant), tokens shorter than 3 or longer than 64 bytes are kept as they are.
 * test/stem.test.ts holds this equal to FTS5 itself.
 */

const MIN_BYTES = 3
const MAX_BYTES = 64

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** a, e, i, o, u; y too when `yIsVowel` (after a consonant, in the measure). */
const isVowel = (c: number, yIsVowel: boolean) => c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || (yIsVowel && c === 121)

/**
 * Past the first vowel-consonant sequence of `w[from, to)` (a consonant just before `from` when
 * `prevConsonant`): the index after its consonant, or 0 when there is none.
 */
function pastVC(w: Uint8Array, from: number, to: number, prevConsonant: boolean): number {
  let consonant = prevConsonant
  let i = from
  for (; i < to; i++) if (!(consonant = !isVowel(w[i], consonant))) break
  for (i++; i < to; i++) if ((consonant = !isVowel(w[i], consonant))) return i + 1
  return 0
}

/** Porter's measure of `w[0, n)` compared with 0, 1 or more: m > 0. */
const measureAbove0 = (w: Uint8Array, n: number) => pastVC(w, 0, n, false) !== 0

/** m > 1. */
function measureAbove1(w: Uint8Array, n: number): boolean {
  const at = pastVC(w, 0, n, false)
  return at !== 0 && pastVC(w, at, n, true) !== 0
}

/** m = 1. */
function measureIs1(w: Uint8Array, n: number): boolean {
  const at = pastVC(w, 0, n, false)
  return at !== 0 && pastVC(w, at, n, true) === 0
}

/** *v*: the stem holds a vowel (y counts as one anywhere but first). */
function hasVowel(w: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(w[i], i > 0)) return true
  return false
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCVC(w: Uint8Array, n: number): boolean {
  const last = w[n - 1]
  if (last === 119 || last === 120 || last === 121) return false
  let mask = 0
  let consonant = false
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(w[i], consonant)
    mask = ((mask << 1) | Number(consonant)) & 7
  }
  return mask === 5
}

type Condition = (w: Uint8Array, n: number) => boolean

/** m > 1 and the stem ends in s or t. */
const measureAbove1EndsST: Condition = (w, n) => (w[n - 1] === 115 || w[n - 1] === 116) && measureAbove1(w, n)

interface Rule {
  suffix: Uint8Array
  to: Uint8Array
  when: Condition
}

/** Rules of one condition, written `suffix>replacement` (an empty replacement drops the suffix). */
const rules = (when: Condition, list: string): Rule[] =>
  list.split(' ').map((rule) => {
    const [suffix, to] = rule.split('>')
    return { suffix: encoder.encode(suffix), to: encoder.encode(to), when }
  })

/**
 * Steps 2 to 4: within a step, the longest suffix the word ends in (with a non-empty stem before it)
 * is the only one tried; it is replaced when its condition holds for the stem.
 */
const STEP2 = rules(
  measureAbove0,
  'ational>ate tional>tion enci>ence anci>ance izer>ize logi>log bli>ble alli>al entli>ent eli>e ousli>ous ization>ize ation>ate ator>ate alism>al iveness>ive fulness>ful ousness>ous aliti>al iviti>ive biliti>ble',
)
const STEP3 = rules(measureAbove0, 'icate>ic ative> alize>al iciti>ic ical>ic ful> ness>')
const STEP4 = [...rules(measureAbove1, 'al> ance> ence> er> ic> able> ible> ant> ement> ment> ent> ou> ism> ate> iti> ous> ive> ize>'), ...rules(measureAbove1EndsST, 'ion>')]

const endsWith = (w: Uint8Array, n: number, s: Uint8Array) => {
  if (n <= s.length) return false
  for (let i = 0; i < s.length; i++) if (w[n - s.length + i] !== s[i]) return false
  return true
}

/** One of steps 2-4 on `w[0, n)`: the new length (the word rewritten in place). */
function step(w: Uint8Array, n: number, table: Rule[]): number {
  let best: Rule | null = null
  for (const r of table) if (endsWith(w, n, r.suffix) && (!best || r.suffix.length > best.suffix.length)) best = r
  if (!best) return n
  const stem = n - best.suffix.length
  if (!best.when(w, stem)) return n
  w.set(best.to, stem)
  return stem + best.to.length
}

const AT = encoder.encode('at')
const BL = encoder.encode('bl')
const IZ = encoder.encode('iz')
const EED = encoder.encode('eed')
const ED = encoder.encode('ed')
const ING = encoder.encode('ing')
const E = 101
const L = 108
const S = 115
const Y = 121
const Z = 122

/** The stem of one unicode61 token, as FTS5's porter tokenizer makes it. */
export function porterStem(token: string): string {
  const bytes = encoder.encode(token)
  if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) return token
  // Room for the one letter step 1b may add.
  const w = new Uint8Array(bytes.length + 1)
  w.set(bytes)
  let n = bytes.length

  // Step 1a: sses -> ss, ies -> i, ss stays, s goes.
  if (w[n - 1] === S) {
    if (w[n - 2] === E) n = (n > 4 && w[n - 4] === S && w[n - 3] === S) || (n > 3 && w[n - 3] === 105) ? n - 2 : n - 1
    else if (w[n - 2] !== S) n -= 1
  }

  // Step 1b: (m > 0) eed -> ee; (*v*) ed and (*v*) ing go, and the stem is then tidied.
  const before = n
  if (endsWith(w, n, EED)) {
    if (measureAbove0(w, n - 3)) n -= 1
  } else if (endsWith(w, n, ED)) {
    if (hasVowel(w, n - 2)) n -= 2
  } else if (endsWith(w, n, ING)) {
    if (hasVowel(w, n - 3)) n -= 3
  }
  if (n < before - 1) {
    if (endsWith(w, n, AT) || endsWith(w, n, BL) || endsWith(w, n, IZ)) w[n++] = E
    else {
      const c = w[n - 1]
      if (!isVowel(c, false) && c !== L && c !== S && c !== Z && c === w[n - 2]) n -= 1
      else if (measureIs1(w, n) && endsCVC(w, n)) w[n++] = E
    }
  }

  // Step 1c: (*v*) y -> i.
  if (w[n - 1] === Y && hasVowel(w, n - 1)) w[n - 1] = 105

  n = step(w, n, STEP2)
  n = step(w, n, STEP3)
  n = step(w, n, STEP4)

  // Step 5a: (m > 1) e goes, and (m = 1 and not *o) e.
  if (w[n - 1] === E && (measureAbove1(w, n - 1) || (measureIs1(w, n - 1) && !endsCVC(w, n - 1)))) n -= 1
  // Step 5b: (m > 1 and *d and *l) a double l is single.
  if (n > 1 && w[n - 1] === L && w[n - 2] === L && measureAbove1(w, n - 1)) n -= 1

  return text(w.subarray(0, n))
}

/**
 * The stem's bytes as text. Step 1b can split a character (two equal non-ASCII bytes count as a
 * double consonant); such a stem is kept as its bytes behind a NUL, which no token holds, so stems
 * stay equal exactly when FTS5's are.
 */
function text(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes)
  } catch {
    return `\0${String.fromCharCode(...bytes)}`
  }
}
