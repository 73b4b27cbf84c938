import { env } from 'cloudflare:test'
import { LEXICAL_K, LEXICAL_WEIGHT, OFFSET, SLOPE } from '../src/agents/calibration'
import { FEEDBACK_AGENTS, FEEDBACK_FLOOR, FEEDBACK_SHARE, FEEDBACK_WEIGHT } from '../src/agents/hybrid'
import { compact, decodeUnit, indexCosine } from '../src/agents/vector-index'

/**
 * The bm25 column weights the README documents (name, description, parameter text), written out
 * here rather than imported from the Worker, so a change to the Worker's shows up as a failure.
 */
const DOCUMENTED_WEIGHTS = '2.0, 1.0, 0.25'

/** `-bm25` with the documented weights of every agent the FTS5 query `match` matches, by rowid. */
export async function bruteForceRelevance(match: string): Promise<Map<number, number>> {
  const { results } = await env.DB.prepare(`SELECT rowid AS rid, -bm25(agents_fts, ${DOCUMENTED_WEIGHTS}) AS rel FROM agents_fts WHERE agents_fts MATCH ?`)
    .bind(match)
    .all<{ rid: number; rel: number }>()
  return new Map(results.map((r) => [r.rid, r.rel]))
}

/**
 * The documented relevance of a query whose `words` match and whose misspelt words were corrected
 * to `corrections` (README, Search score step 3): each word's bm25, then each correction's at half
 * weight, summed in that order. By rowid.
 */
export async function bruteForceTypoRelevance(words: string[], corrections: string[]): Promise<Map<number, number>> {
  const rels = new Map<number, number>()
  for (const [phrases, weight] of [
    [words, 1],
    [corrections, 0.5],
  ] as const) {
    for (const w of phrases) for (const [rowid, rel] of await bruteForceRelevance(`"${w}"`)) rels.set(rowid, rels.has(rowid) ? rels.get(rowid)! + rel * weight : rel * weight)
  }
  return rels
}

/** The documented lexical score of relevance `rel` and `executions`, before rounding. */
export const documentedScore = (rel: number, executions: number) => (0.98 * rel) / (rel + 8) + 0.02 * (executions / (executions + 1000))

/**
 * Inserts a generated agent: id, name, description, visibility, owner, team, executions, parameter
 * text (no parameters, an empty workflow, created at 0).
 */
export const insertAgent = () =>
  env.DB.prepare(
    `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
     VALUES (?, NULL, '/icons/agent.svg', ?, ?, ?, ?, ?, 'studio', ?, '{"type":"object","properties":{},"required":[]}', '{"steps":[]}', ?, 0, 0)`,
  )

/**
 * The lexical search's promise, checked the slow way: every agent matching `match` (an FTS5 query)
 * scored with the documented formula, filtered by `status` as `viewer` (a member of `teamId`) sees
 * them, and ordered by score, then executions, then age. The agent ids in order.
 */
export async function bruteForceSearch(match: string, status: string, viewer: string, teamId: string): Promise<string[]> {
  return bruteForceRanking(await bruteForceRelevance(match), status, viewer, teamId)
}

/**
 * The agents of `rels` (relevance by rowid) that `viewer` (a member of `teamId`) sees under `status`,
 * scored with the documented formula and ordered by score, then executions, then age. The agent ids
 * in order.
 */
export async function bruteForceRanking(rels: Map<number, number>, status: string, viewer: string, teamId: string): Promise<string[]> {
  const { results } = await env.DB.prepare(
    `SELECT a.rowid, a.id, a.visibility, a.owner_account_id AS owner, a.team_id AS team, a.executions
       FROM agents a WHERE a.rowid IN (SELECT value FROM json_each(?))`,
  )
    .bind(JSON.stringify([...rels.keys()]))
    .all<{ rowid: number; id: string; visibility: string; owner: string; team: string | null; executions: number }>()
  const own = (r: { owner: string }) => r.owner === viewer
  const mine = (r: { team: string | null }) => r.team === teamId
  const visible = results.filter((r) =>
    status === 'public'
      ? r.visibility === 'public'
      : status === 'private'
        ? r.visibility === 'private' && own(r)
        : status === 'team'
          ? r.visibility === 'team' && (mine(r) || own(r))
          : r.visibility === 'public' || own(r) || (r.visibility === 'team' && mine(r)),
  )
  const raw = (r: { rowid: number; executions: number }) => documentedScore(rels.get(r.rowid)!, r.executions)
  return visible
    .map((r) => ({ ...r, raw: raw(r) }))
    .sort((a, b) => b.raw - a.raw || b.executions - a.executions || a.rowid - b.rowid)
    .map((r) => r.id)
}

/** A hybrid candidate the caller may see: its bm25 relevance (0: no word matches) and stored int8 codes. */
export interface HybridCandidate {
  rowid: number
  id: string
  executions: number
  rel: number
  vec: Int8Array | null
}

/**
 * The hybrid search's promise, checked the slow way: every candidate scored by the documented
 * fusion (the index's cosine of its codes), then scored again with the query's vector moved toward
 * the first ranking's FEEDBACK_AGENTS best, those whose relevance part is at least FEEDBACK_FLOOR and
 * FEEDBACK_SHARE of the best of them (the mean of their codes' unit vectors at FEEDBACK_WEIGHT,
 * summed in doubles, then a float32 unit vector like any query vector). Ids and rounded scores in order.
 */
export function bruteForceHybrid(q: Float32Array, candidates: HybridCandidate[]): { id: string; score: number }[] {
  const ranked = (v: Float32Array) =>
    candidates
      .map((a) => {
        const cos = a.vec ? indexCosine(v, a.vec) : 0
        const raw = LEXICAL_WEIGHT * (a.rel > 0 ? a.rel / (a.rel + LEXICAL_K) : 0) + (1 - LEXICAL_WEIGHT) * Math.max(0, cos)
        const part = 0.98 / (1 + Math.exp(-SLOPE * (raw - OFFSET)))
        return { a, part, raw: part + 0.02 * (a.executions / (a.executions + 1000)) }
      })
      .sort((x, y) => y.raw - x.raw || y.a.executions - x.a.executions || x.a.rowid - y.a.rowid)
  const best = ranked(q).slice(0, FEEDBACK_AGENTS)
  const least = Math.max(FEEDBACK_FLOOR, FEEDBACK_SHARE * Math.max(...best.map((x) => x.part)))
  const feedback = best
    .filter((x) => x.a.vec && x.part >= least)
    .map((x) => {
      const c = compact(x.a.vec!)
      return decodeUnit(c.packed, 0, q.length, c.scale)!
    })
  let moved = q
  if (feedback.length > 0) {
    const sum = Array.from(q, (x, d) => feedback.reduce((s, v) => s + (FEEDBACK_WEIGHT / feedback.length) * v[d], x))
    const norm = Math.hypot(...sum)
    moved = Float32Array.from(sum, (x) => x / norm)
    bruteForceHybrid.moved++
  }
  return ranked(moved).map((x) => ({ id: x.a.id, score: Math.round(x.raw * 1e6) / 1e6 }))
}
/** How many rankings the feedback moved (a test can check its queries exercised it). */
bruteForceHybrid.moved = 0
