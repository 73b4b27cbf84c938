import { countWordMatches, searchAgents, type ScoredAgent, type Viewer, type VisibilityFilter } from '../db/agents'
import { queryTerms, trigramMatch, wordMatch } from './query'

/** Below this many word-index matches, trigram (typo-tolerant) hits are merged in. */
const FUZZY_THRESHOLD = 5

export interface CatalogSearch {
  viewer: Viewer
  query: string
  filter: VisibilityFilter
  limit: number
  page: number
}

/**
 * Ranked catalog search. The decision to add fuzzy hits depends only on the query, never on the
 * page, so every page is a slice of one and the same ordering.
 */
export async function searchCatalog(db: D1Database, s: CatalogSearch): Promise<ScoredAgent[]> {
  const offset = s.page * s.limit
  // Past any real catalog size; also keeps the OFFSET an exact integer for SQLite.
  if (offset > 1e9) return []
  const terms = queryTerms(s.query)
  const match = wordMatch(terms)
  let fuzzy: string | null = null
  if (match) {
    const candidate = trigramMatch(terms)
    if (candidate && (await countWordMatches(db, match, FUZZY_THRESHOLD)) < FUZZY_THRESHOLD) fuzzy = candidate
  }
  return searchAgents(db, { viewer: s.viewer, filter: s.filter, match, fuzzy, limit: s.limit, offset })
}
