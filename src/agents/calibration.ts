/**
 * The calibrated relevance part of a hybrid search, so that one `min_score` means about the same
 * for every query:
 *
 *   raw  = LEXICAL_WEIGHT · r / (r + LEXICAL_K) + (1 - LEXICAL_WEIGHT) · max(0, cos)
 *   part = (1 - POPULARITY_WEIGHT) / (1 + exp(-SLOPE · (raw - OFFSET)))
 *
 * r = -bm25 (0 when no word matches); cos is the agent's cosine with the query's vector (in the
 * final ranking, once the feedback of hybrid.ts has moved it), 0 for an agent without a vector yet.
 * The part increases with raw, so it ranks as raw does; SLOPE and OFFSET are a logistic fit of "the
 * best hit is a right answer" on its raw evidence, so the part reads roughly as that probability
 * (times 0.98).
 * On our dev set the offline encoder's cosine does not tell a no-match query's best agent from a
 * real match (both median 0.54; the query's cosines relative to the catalog's mean did no better),
 * while the words do (bm25 relevance of the best no-match agent: median 3.9, of a right agent: 17.5),
 * so the fit leans on the lexical part as far as the MetaTool dev-half figures allow.
 * Every constant was chosen on the MetaTool dev half and our dev set only; after the embedder or the
 * feedback changes, `npm run eval:search -- --fit --fit-weights 0.75,128` refits SLOPE and OFFSET
 * for the weights `--tune` chose (without `--fit-weights`, the weights too), and prints them
 * (scripts/lib/calibration-fit.mjs).
 */
import { POPULARITY_WEIGHT } from './ranking'

export const LEXICAL_WEIGHT = 0.75
export const LEXICAL_K = 128
export const SLOPE = 24.696
export const OFFSET = 0.2103

/** The uncalibrated evidence of an agent: bm25 relevance `rel` and cosine `cos`. */
export function rawRelevance(rel: number, cos: number): number {
  return LEXICAL_WEIGHT * (rel > 0 ? rel / (rel + LEXICAL_K) : 0) + (1 - LEXICAL_WEIGHT) * Math.max(0, cos)
}

/** The calibrated relevance part, in [0, 1 - POPULARITY_WEIGHT], increasing in the raw evidence. */
export function calibratedPart(rel: number, cos: number): number {
  return (1 - POPULARITY_WEIGHT) / (1 + Math.exp(-SLOPE * (rawRelevance(rel, cos) - OFFSET)))
}
