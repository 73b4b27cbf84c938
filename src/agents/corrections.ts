/**
 * Typo correction: the vocabulary words (migration 0016) nearest a query word the index does not
 * know. The lookup reads only the words that can be near (by positional trigrams and length, never
 * cut by rank), and edit distance decides, so the answer equals scanning the whole vocabulary.
 */
import { runQuery, type Read } from '../db/agents'
import { nearWordsQuery, type GramProbe, type VocabularyWord } from '../db/search-words'
import { editDistance } from './query'
import { cached, sawVocabulary, vocabularyKey } from './search-state'

/** Corrections kept per unknown word, nearest first (cached per index version and word, search-state.ts). */
export const MAX_CORRECTIONS = 3

/** Fewest characters a word needs to get corrections: shorter ones have too many near spellings. */
export const MIN_TYPO_LENGTH = 4

/** Edits a correction may be away: 1, or 2 for words of 8+ characters. */
export const typoDistance = (chars: number) => (chars >= 8 ? 2 : 1)

/**
 * What the vocabulary lookup needs for one word, or null for a word too short to correct. The
 * word padded with two '#' (never a token character) on each side has length + 2 trigrams; an edit
 * destroys at most 4 of them (an adjacent swap touches 4, anything else 3 or fewer) and moves the
 * rest by at most one place, so a word within k edits shares at least length + 2 - 4k of them, each
 * within k places. That is at least 2 for every length the lookup serves.
 */
export function gramProbe(term: string): GramProbe | null {
  const chars = [...term]
  if (chars.length < MIN_TYPO_LENGTH) return null
  const k = typoDistance(chars.length)
  const padded = ['#', '#', ...chars, '#', '#']
  const grams: [string, number][] = []
  for (let i = 0; i < chars.length + 2; i++) grams.push([padded.slice(i, i + 3).join(''), i])
  return { grams, distance: k, minLength: chars.length - k, maxLength: chars.length + k, minShared: chars.length + 2 - 4 * k }
}

/**
 * The corrections of `term` among `words`: those within its typo distance (OSA, as `editDistance`),
 * only the nearest ones ("invocies" means "invoices", not also "invoice": one stem, counted twice),
 * the most common first, then in code-unit order, at most MAX_CORRECTIONS.
 */
export function nearest(term: string, words: VocabularyWord[]): string[] {
  const chars = [...term].length
  if (chars < MIN_TYPO_LENGTH) return []
  const k = typoDistance(chars)
  const found = words
    .filter((w) => w.word !== term && w.word.length >= 3)
    .map((w) => ({ w: w.word, d: editDistance(term, w.word), n: w.agents }))
    .filter((c) => c.d <= k)
    .sort((a, b) => a.d - b.d || b.n - a.n || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0))
  return found
    .filter((c) => c.d === found[0].d)
    .slice(0, MAX_CORRECTIONS)
    .map((c) => c.w)
}

/** Whether a query word the index does not know gets corrections: long enough, and not a number. */
export function correctable(term: string): boolean {
  return [...term].length >= MIN_TYPO_LENGTH && !/^\d+$/.test(term)
}

/**
 * A word's cached corrections: under the index version, or under the vocabulary version a search
 * read at this index version (corrections of none or one word, which only the vocabulary's words
 * decide; see search-state.ts's sawVocabulary).
 */
function cachedCorrections(indexVersion: string | null, term: string): string[] | undefined {
  if (!indexVersion) return undefined
  const vocabulary = vocabularyKey(indexVersion)
  return cached.typo(indexVersion, term) ?? (vocabulary ? cached.typo(vocabulary, term) : undefined)
}

/**
 * The probe to send along with the first read of a word's relevance list (db/agents.ts's
 * phraseListsQuery), so that if the word matches nothing its near words come back in the same round
 * trip; null when the word is not `correctable` or its corrections are cached already.
 */
export function typoProbe(indexVersion: string | null, term: string): GramProbe | null {
  if (!correctable(term) || cachedCorrections(indexVersion, term)) return null
  return gramProbe(term)
}

/**
 * The corrections of each word (see `nearest`): from the cache, from the near words the lists read
 * brought (`fetched`, found at vocabulary point `vocabulary`), and what is still missing read in one
 * round trip.
 */
export async function correctionsOf(
  db: D1Database,
  read: Read,
  indexVersion: string | null,
  unknown: string[],
  fetched: Map<string, VocabularyWord[]> = new Map(),
  vocabulary: string | null = null,
): Promise<string[][]> {
  const out: (string[] | undefined)[] = unknown.map((t) => cachedCorrections(indexVersion, t))
  const remember = (i: number, near: string[], point: string | null) => {
    out[i] = near
    if (!indexVersion) return
    cached.setTypo(indexVersion, unknown[i], near)
    const [epoch, , version] = (point ?? '').split(':')
    if (near.length <= 1 && version !== undefined && indexVersion.startsWith(`${epoch}:`)) cached.setTypo(`${epoch}:w${version}`, unknown[i], near)
  }
  unknown.forEach((t, i) => {
    const words = fetched.get(t)
    if (!out[i] && words) remember(i, nearest(t, words), vocabulary)
  })
  const ask = unknown.flatMap((t, i) => {
    const probe = out[i] ? null : gramProbe(t)
    return probe ? [{ i, probe }] : []
  })
  if (ask.length > 0) {
    const found = await runQuery(
      read,
      nearWordsQuery(
        db,
        ask.map((a) => a.probe),
      ),
    )
    sawVocabulary(found.vocabulary)
    ask.forEach(({ i }, j) => remember(i, nearest(unknown[i], found.near[j]), found.vocabulary))
  }
  return out.map((c) => c ?? [])
}
