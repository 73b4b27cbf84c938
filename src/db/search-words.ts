/** The search vocabulary (migration 0016): the agents' distinct indexed words, for typo lookup. */

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

/** A probe's trigrams as the one JSON parameter `nearWordsSql` reads. */
export const probeParam = (p: GramProbe) => JSON.stringify(p.grams)

/** An integer of a probe, to write into SQL: never text from a caller. */
const int = (n: number) => {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`)
  return String(n)
}

/**
 * A scalar subquery: every vocabulary word sharing at least `minShared` of the probe's trigrams,
 * each within `distance` places of the query word's, as a JSON array of `[word, agents]`. Pairs are
 * counted (a word repeating a trigram may count it twice), which only lets more words through: a
 * superset of the words within `distance` edits, with no LIMIT, so nothing near is ever cut.
 * `param` is the SQL parameter holding `probeParam(p)`.
 */
export const nearWordsSql = (param: string, p: GramProbe) =>
  `(SELECT json_group_array(json_array(w.word, w.agents)) FROM search_words w WHERE w.word IN (
      SELECT g.word FROM json_each(${param}) q
        JOIN search_word_grams g ON g.gram = q.value ->> 0
             AND g.pos BETWEEN (q.value ->> 1) - ${int(p.distance)} AND (q.value ->> 1) + ${int(p.distance)}
             AND g.length BETWEEN ${int(p.minLength)} AND ${int(p.maxLength)}
       GROUP BY g.word HAVING count(*) >= ${int(p.minShared)}))`

/** Reads what `nearWordsSql` returns. */
export function parseNearWords(text: string | null | undefined): VocabularyWord[] {
  return text ? (JSON.parse(text) as [string, number][]).map(([word, agents]) => ({ word, agents })) : []
}

/**
 * `<epoch>:<index version>:<vocabulary version>` as one column, read in the same statement as near
 * words or relevance lists so that what they were found in is known exactly (see migrations 0016
 * and 0018).
 */
export const VOCABULARY_POINT_SQL = `(SELECT epoch || ':' || index_version || ':' || vocabulary_version FROM catalog_version WHERE id = 1)`

/** The near words of each probe and the vocabulary point they were found at, in one statement. */
export function nearWordsQuery(
  db: D1Database,
  probes: GramProbe[],
): { statement: D1PreparedStatement; read: (result: D1Result<Record<string, unknown>>) => { near: VocabularyWord[][]; vocabulary: string | null } } {
  return {
    statement: db.prepare(`SELECT ${[...probes.map((p, i) => `${nearWordsSql(`?${i + 1}`, p)} AS n${i}`), `${VOCABULARY_POINT_SQL} AS vocabulary`].join(', ')}`).bind(...probes.map(probeParam)),
    read: ({ results }) => {
      const row = (results[0] ?? {}) as Record<string, string | null>
      return { near: probes.map((_, i) => parseNearWords(row[`n${i}`])), vocabulary: row.vocabulary ?? null }
    },
  }
}
