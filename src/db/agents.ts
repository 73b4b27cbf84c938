/** The agent catalog: rows, visibility-scoped reads, full-text search and reviews. */

export type Visibility = 'public' | 'private' | 'team'
export type VisibilityFilter = Visibility | 'all'

export interface AgentRow {
  rowid: number
  id: string
  slug: string | null
  icon: string
  name: string
  description: string
  visibility: Visibility
  owner_account_id: string
  team_id: string | null
  type: string
  executions: number
  reviews_count: number
  reviews_sum: number
  parameters: string
  workflow: string
  param_text: string
  created_at: number
  updated_at: number
}

export type NewAgent = Omit<AgentRow, 'rowid' | 'reviews_count' | 'reviews_sum'>

/** Who is looking: an account and the teams it belongs to. */
export interface Viewer {
  accountId: string
  teamIds: string[]
}

/**
 * SQL condition (on alias `a`) for the agents a viewer may see under a filter, with its bindings.
 * Private agents: only their owner. Team agents: members of their team (and their owner).
 */
export function visibilityClause(filter: VisibilityFilter, viewer: Viewer): { sql: string; binds: unknown[] } {
  const teams = JSON.stringify(viewer.teamIds)
  const own = `a.owner_account_id = ?`
  const inTeam = `a.team_id IN (SELECT value FROM json_each(?))`
  switch (filter) {
    case 'public':
      return { sql: `a.visibility = 'public'`, binds: [] }
    case 'private':
      return { sql: `a.visibility = 'private' AND ${own}`, binds: [viewer.accountId] }
    case 'team':
      return { sql: `a.visibility = 'team' AND (${inTeam} OR ${own})`, binds: [teams, viewer.accountId] }
    case 'all':
      return {
        sql: `(a.visibility = 'public' OR ${own} OR (a.visibility = 'team' AND ${inTeam}))`,
        binds: [viewer.accountId, teams],
      }
  }
}

const COLUMNS =
  'a.rowid, a.id, a.slug, a.icon, a.name, a.description, a.visibility, a.owner_account_id, a.team_id, a.type, a.executions, a.reviews_count, a.reviews_sum, a.parameters, a.workflow, a.param_text, a.created_at, a.updated_at'

export async function insertAgent(db: D1Database, a: NewAgent): Promise<void> {
  await db
    .prepare(
      `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(a.id, a.slug, a.icon, a.name, a.description, a.visibility, a.owner_account_id, a.team_id, a.type, a.executions, a.parameters, a.workflow, a.param_text, a.created_at, a.updated_at)
    .run()
}

/** An agent by id or slug, if the viewer may see it. */
export async function getVisibleAgent(db: D1Database, viewer: Viewer, idOrSlug: string): Promise<AgentRow | null> {
  const vis = visibilityClause('all', viewer)
  return db
    .prepare(`SELECT ${COLUMNS} FROM agents a WHERE (a.id = ? OR a.slug = ?) AND ${vis.sql} LIMIT 1`)
    .bind(idOrSlug, idOrSlug, ...vis.binds)
    .first<AgentRow>()
}

export async function slugTaken(db: D1Database, slug: string, exceptId: string | null): Promise<boolean> {
  const row = await db.prepare('SELECT id FROM agents WHERE (slug = ?1 OR id = ?1) AND id != ?2').bind(slug, exceptId ?? '').first()
  return row !== null
}

export async function listOwnAgents(db: D1Database, accountId: string, limit: number, afterRowid: number): Promise<AgentRow[]> {
  const { results } = await db
    .prepare(`SELECT ${COLUMNS} FROM agents a WHERE a.owner_account_id = ? AND a.rowid > ? ORDER BY a.rowid LIMIT ?`)
    .bind(accountId, afterRowid, limit)
    .all<AgentRow>()
  return results
}

export type AgentPatch = Partial<Pick<AgentRow, 'slug' | 'icon' | 'name' | 'description' | 'visibility' | 'team_id' | 'parameters' | 'workflow' | 'param_text'>>

/** Applies a patch to an agent its owner changes; false when no such agent of that owner. */
export async function updateAgent(db: D1Database, ownerId: string, id: string, patch: AgentPatch, now: number): Promise<boolean> {
  const keys = Object.keys(patch) as (keyof AgentPatch)[]
  const sets = [...keys.map((k) => `${k} = ?`), 'updated_at = ?']
  const res = await db
    .prepare(`UPDATE agents SET ${sets.join(', ')} WHERE id = ? AND owner_account_id = ?`)
    .bind(...keys.map((k) => patch[k] ?? null), now, id, ownerId)
    .run()
  return res.meta.changes > 0
}

export async function deleteAgent(db: D1Database, ownerId: string, id: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM agents WHERE id = ? AND owner_account_id = ?').bind(id, ownerId).run()
  return res.meta.changes > 0
}

export async function incrementExecutions(db: D1Database, id: string): Promise<void> {
  await db.prepare('UPDATE agents SET executions = executions + 1 WHERE id = ?').bind(id).run()
}

/** Sets the viewer's 1-5 rating (insert or update); triggers keep the agent's aggregates exact. */
export async function putReview(db: D1Database, agentId: string, accountId: string, rating: number, now: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO agent_reviews (agent_id, account_id, rating, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(agent_id, account_id) DO UPDATE SET rating = excluded.rating, updated_at = excluded.updated_at`,
    )
    .bind(agentId, accountId, rating, now, now)
    .run()
}

export async function deleteReview(db: D1Database, agentId: string, accountId: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM agent_reviews WHERE agent_id = ? AND account_id = ?').bind(agentId, accountId).run()
  return res.meta.changes > 0
}

/** One scored search hit. */
export type ScoredAgent = AgentRow & { score: number }

// Column weights for bm25(): name, description, parameter text.
const WORD_WEIGHTS = '10.0, 4.0, 1.0'
const TRIGRAM_WEIGHTS = '3.0, 1.0'
/**
 * Relevance r = -bm25 (larger is better) maps to r / (r + K) in [0, 1). Popularity adds at most
 * 0.02 (executions / (executions + 1000)), enough to order near ties and no more.
 */
export const SCORE_K = 8
export const POPULARITY_WEIGHT = 0.02
const popularity = '(a.executions * 1.0 / (a.executions + 1000))'

/** Agents a viewer may see, most executed first (the listing for an empty query). */
export async function listByPopularity(
  db: D1Database,
  q: { viewer: Viewer; filter: VisibilityFilter; limit: number; offset: number },
): Promise<ScoredAgent[]> {
  const vis = visibilityClause(q.filter, q.viewer)
  const { results } = await db
    .prepare(
      `SELECT ${COLUMNS}, round(${popularity}, 6) AS score FROM agents a WHERE ${vis.sql}
        ORDER BY a.executions DESC, a.rowid LIMIT ? OFFSET ?`,
    )
    .bind(...vis.binds, q.limit, q.offset)
    .all<ScoredAgent>()
  return results
}

/** A page of text-search hits plus what the exactness check needs about the candidate window. */
export interface TextSearchPage {
  rows: ScoredAgent[]
  /** How many candidates the word index gave (fewer than asked = every match was considered). */
  candidates: number
  /** Lowest text relevance in the window. */
  minRel: number
}

/**
 * Scores the `window` best word-index matches by bm25 alone (FTS5 sorts those in C without touching
 * the wide agent rows), then joins, filters by visibility and blends popularity. The caller widens
 * the window until the page provably equals the exact ranking over all matches.
 */
export async function searchTopByText(
  db: D1Database,
  q: { viewer: Viewer; filter: VisibilityFilter; match: string; window: number; limit: number; offset: number },
): Promise<TextSearchPage> {
  const vis = visibilityClause(q.filter, q.viewer)
  // MATERIALIZED keeps bm25() inside the FTS query (SQLite refuses it once flattened into the join).
  const { results } = await db
    .prepare(
      `WITH top AS MATERIALIZED (
         SELECT f.rowid AS rid, -bm25(agents_fts, ${WORD_WEIGHTS}) AS rel FROM agents_fts f
          WHERE agents_fts MATCH ? ORDER BY bm25(agents_fts, ${WORD_WEIGHTS}) LIMIT ?)
       SELECT ${COLUMNS}, round(0.98 * top.rel / (top.rel + ${SCORE_K}) + 0.02 * ${popularity}, 6) AS score,
              (SELECT count(*) FROM top) AS n_candidates, (SELECT min(rel) FROM top) AS min_rel
         FROM top JOIN agents a ON a.rowid = top.rid
        WHERE ${vis.sql}
        ORDER BY score DESC, a.executions DESC, a.rowid
        LIMIT ? OFFSET ?`,
    )
    .bind(q.match, q.window, ...vis.binds, q.limit, q.offset)
    .all<ScoredAgent & { n_candidates: number; min_rel: number }>()
  if (results.length === 0) {
    const stats = await db
      .prepare(
        `WITH top AS MATERIALIZED (SELECT -bm25(agents_fts, ${WORD_WEIGHTS}) AS rel FROM agents_fts WHERE agents_fts MATCH ? ORDER BY bm25(agents_fts, ${WORD_WEIGHTS}) LIMIT ?)
         SELECT count(*) AS n, min(rel) AS m FROM top`,
      )
      .bind(q.match, q.window)
      .first<{ n: number; m: number | null }>()
    return { rows: [], candidates: stats?.n ?? 0, minRel: stats?.m ?? 0 }
  }
  const { n_candidates, min_rel } = results[0]
  const rows = results.map(({ n_candidates: _n, min_rel: _m, ...row }) => row as ScoredAgent)
  return { rows, candidates: n_candidates, minRel: min_rel }
}

/** Candidates from the trigram index for the typo fallback, best trigram overlap first, with `rel`. */
export async function trigramCandidates(
  db: D1Database,
  q: { viewer: Viewer; filter: VisibilityFilter; match: string; limit: number },
): Promise<(AgentRow & { rel: number })[]> {
  const vis = visibilityClause(q.filter, q.viewer)
  const { results } = await db
    .prepare(
      `WITH hits AS MATERIALIZED (SELECT t.rowid AS rid, -bm25(agents_trigram, ${TRIGRAM_WEIGHTS}) AS rel FROM agents_trigram t WHERE agents_trigram MATCH ? ORDER BY rank LIMIT 500)
       SELECT ${COLUMNS}, hits.rel AS rel FROM hits JOIN agents a ON a.rowid = hits.rid
        WHERE ${vis.sql} ORDER BY hits.rel DESC, a.rowid LIMIT ?`,
    )
    .bind(q.match, ...vis.binds, q.limit)
    .all<AgentRow & { rel: number }>()
  return results
}

/** What the search needs to know before ranking, in one round trip. */
export interface MatchStats {
  /** Rows the exact-terms expression matches, counted up to `cap`. */
  exact: number
  /** Whether the last query term is a word of the index (else it is treated as a prefix). */
  lastTermKnown: boolean
  /** Rows the expression with the last term as a prefix matches, counted up to `cap`. */
  prefixed: number
}

export async function matchStats(db: D1Database, exact: string, lastTerm: string, prefixed: string, cap: number): Promise<MatchStats> {
  const row = await db
    .prepare(
      `WITH k AS (SELECT (SELECT count(*) FROM (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?2 LIMIT 1)) AS last_known)
       SELECT k.last_known,
              CASE WHEN k.last_known > 0 THEN (SELECT count(*) FROM (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?1 LIMIT ?4)) ELSE 0 END AS exact,
              -- CASE evaluates lazily: the prefix expansion only runs for a last term the index does not know.
              CASE WHEN k.last_known > 0 THEN 0 ELSE (SELECT count(*) FROM (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?3 LIMIT ?4)) END AS prefixed
         FROM k`,
    )
    .bind(exact, lastTerm, prefixed, cap)
    .first<{ exact: number; last_known: number; prefixed: number }>()
  return { exact: row?.exact ?? 0, lastTermKnown: (row?.last_known ?? 0) > 0, prefixed: row?.prefixed ?? 0 }
}
