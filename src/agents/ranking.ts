/**
 * How search scores an agent, in one place: the constants and formulas that both the Worker and the
 * SQL of src/db/agents.ts use (the SQL embeds these constants, so the doubles come out equal).
 *
 *   score = part + POPULARITY_WEIGHT · executions / (executions + 1000)
 *
 * where part, the relevance part in [0, 1 - POPULARITY_WEIGHT], is
 *   - lexical search: (1 - POPULARITY_WEIGHT) · r / (r + SCORE_K), r = -bm25 with WORD_WEIGHTS;
 *   - hybrid search: the fused part of hybrid.ts (fusedPart), computed in the Worker.
 * Popularity adds at most POPULARITY_WEIGHT: enough to order near ties and no more. A misspelt word's
 * corrections count TYPO_WEIGHT of an exact match's relevance.
 */

/** Column weights for bm25(): name, description, parameter text. */
export const WORD_WEIGHTS = '2.0, 1.0, 0.25'
export const SCORE_K = 8
export const POPULARITY_WEIGHT = 0.02
/** A misspelt word ranks below the word it was meant to be: its corrections count this much. */
export const TYPO_WEIGHT = 0.5

/** The relevance part of a blended score, computed as the SQL computes it. */
export const relevancePart = (rel: number) => ((1 - POPULARITY_WEIGHT) * rel) / (rel + SCORE_K)

/** The score rankCandidatesQuery computes in SQL, operation for operation, so the doubles are equal. */
export const blendedScore = (rel: number, executions: number) => relevancePart(rel) + POPULARITY_WEIGHT * (executions / (executions + 1000))

/**
 * The least relevance whose score can still reach `score` (popularity adds at most
 * POPULARITY_WEIGHT), lowered by a hair so rounding can only let a match through to be scored;
 * -Infinity when any match can.
 */
export function relevanceFloor(score: number): number {
  const y = (score - POPULARITY_WEIGHT) / (1 - POPULARITY_WEIGHT)
  if (y <= 0) return -Infinity
  const rel = (SCORE_K * y) / (1 - y)
  return rel - 1e-9 * (1 + Math.abs(rel))
}

/**
 * The score of a precomputed relevance part in [0, 1 - POPULARITY_WEIGHT] (hybrid search fuses the
 * lexical and semantic parts in the Worker), popularity added as rankCandidatesQuery adds it in SQL.
 */
export const partScore = (part: number, executions: number) => part + POPULARITY_WEIGHT * (executions / (executions + 1000))

/** The least part whose score can still reach `score`, lowered by a hair as in relevanceFloor. */
export function partFloor(score: number): number {
  const part = score - POPULARITY_WEIGHT
  return part - 1e-9 * (1 + Math.abs(part))
}
