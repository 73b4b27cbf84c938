/**
 * Turns user text into safe FTS5 MATCH expressions. Every term is a quoted string of letters and
 * digits, so quotes, operators (AND, NEAR, *, ^, :) and column filters in user input are inert.
 */

const STOPWORDS = new Set(
  `a an and are as at be but by can could do does for from had has have help how i i'd i'm if in into is it its me my
  need of on or please should so some that the their them then there these this to up us want was we what when where
  which who why will with would you your find get give tell show make use using any about can't im id`.split(/\s+/),
)

const MAX_TERMS = 24
const MAX_TERM_LENGTH = 48

/** Lowercased word tokens of the query, as the unicode61 tokenizer would split them. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []
  const trimmed = words.map((w) => w.slice(0, MAX_TERM_LENGTH))
  const content = trimmed.filter((w) => !STOPWORDS.has(w))
  const terms = content.length > 0 ? content : trimmed
  return [...new Set(terms)].slice(0, MAX_TERMS)
}

/**
 * One term as an FTS5 phrase; with `prefix`, it also matches words it begins, so "transcri" finds
 * "transcript" while the caller is still typing. Terms hold only letters and digits, so quoting makes
 * any operator inert.
 * @example phrase('transcri', true) // '"transcri"*'
 */
export function phrase(term: string, prefix = false): string {
  return prefix ? `"${term}"*` : `"${term}"`
}

/**
 * The trigram-index expression for typo tolerance: the trigrams of each term of 4+ characters,
 * joined by OR, so a misspelt word still shares most of its trigrams with the right one.
 */
export function trigramMatch(terms: string[]): string | null {
  const grams = new Set<string>()
  for (const term of terms) {
    if (term.length < 4) continue
    const chars = [...term]
    for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''))
  }
  if (grams.size === 0) return null
  return [...grams]
    .slice(0, 64)
    .map((g) => `"${g}"`)
    .join(' OR ')
}

/** Lowercased word tokens of a text. */
export function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [])]
}

/**
 * Is `word` a plausible misspelling of `term` (or the same word)? Optimal string alignment
 * distance (edits and adjacent transpositions) within 1 for terms of 4-7 characters, 2 for longer
 * ones.
 */
export function closeEnough(term: string, word: string): boolean {
  if (term === word) return true
  const max = term.length >= 8 ? 2 : 1
  if (Math.abs(term.length - word.length) > max || word.length < 3) return false
  const a = [...term]
  const b = [...word]
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    let rowMin = Infinity
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
      rowMin = Math.min(rowMin, d[i][j])
    }
    if (rowMin > max) return false
  }
  return d[a.length][b.length] <= max
}
