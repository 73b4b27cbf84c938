/**
 * Turns user text into safe FTS5 MATCH expressions. Every term is a quoted string of letters and
 * digits, so quotes, operators (AND, NEAR, *, ^, :) and column filters in user input are inert.
 */

const STOPWORDS = new Set(
  `a an and are as at be but by can could do does for from had has have help how i i'd i'm if in into is it its me my
  need of on or please should so some that the their them then there these this to up us want was we what when where
  which who why will with would you your find get give tell show make use using any about can't im id
  our ours just well basically actually really kinda sorta of maybe perhaps literally anyway also too very quite hey hi
  hello thanks thank ok okay um uh yeah lot lots bit am been being did doing got going let lets able figure someone
  something anything everything than such own don doesn isn aren wasn couldn wouldn shouldn cannot s t ll ve re d m`.split(/\s+/),
)

const MAX_TERMS = 24
const MAX_TERM_LENGTH = 48

/** Lowercased word tokens of the query, as the unicode61 tokenizer would split them. */
export function queryTerms(query: string): string[] {
  const words =
    query
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
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
 * Optimal string alignment distance (edits and adjacent transpositions) of two words, or a value
 * above 2 as soon as it is known to exceed 2 (only distances up to 2 are ever used).
 */
export function editDistance(a: string, b: string): number {
  const x = [...a]
  const y = [...b]
  if (Math.abs(x.length - y.length) > 2) return 3
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [i, ...Array<number>(y.length).fill(0)])
  for (let j = 1; j <= y.length; j++) d[0][j] = j
  for (let i = 1; i <= x.length; i++) {
    let rowMin = Infinity
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
      rowMin = Math.min(rowMin, d[i][j])
    }
    if (rowMin > 2) return 3
  }
  return d[x.length][y.length]
}
