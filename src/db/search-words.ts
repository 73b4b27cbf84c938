/** The search vocabulary (migration 0016): the agents' distinct indexed words, for typo lookup. */
import type { Query } from './agents'

/** A vocabulary word and how many agents hold it. */
export interface VocabularyWord {
  word: string
  agents: number
}

/**
 * What a near-word lookup asks for one query word: its padded positional trigrams (`[gram,
 * position]`), the largest edit distance, the word lengths that can be that near, and how many of
 * the trigrams a word that near shares at least (see migration 0016).
 */
export interface GramProbe {
  grams: [string, number][]
  distance: number
  minLength: number
  maxLength: number
  minShared: number
}

/**
 * Every vocabulary word sharing at least `minShared` of a probe's trigrams, each within `distance`
 * places of the query word's: a superset of the words within `distance` edits, with no LIMIT, so
 * nothing near is ever cut. One statement per probe, all in one round trip.
 */
export function nearWordsQueries(db: D1Database, probes: GramProbe[]): Query<VocabularyWord[]>[] {
  return probes.map((p) => ({
    statement: db
      .prepare(
        `SELECT w.word, w.agents FROM (
           SELECT g.word FROM json_each(?1) q
             JOIN search_word_grams g ON g.gram = q.value ->> 0 AND g.pos BETWEEN (q.value ->> 1) - ?2 AND (q.value ->> 1) + ?2
                  AND g.length BETWEEN ?3 AND ?4
            GROUP BY g.word HAVING count(DISTINCT q.key) >= ?5) c
           JOIN search_words w ON w.word = c.word`,
      )
      .bind(JSON.stringify(p.grams), p.distance, p.minLength, p.maxLength, p.minShared),
    read: ({ results }) => results as unknown as VocabularyWord[],
  }))
}
