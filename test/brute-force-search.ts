import { env } from 'cloudflare:test'

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
  const { results } = await env.DB.prepare(
    `SELECT a.rowid, a.id, a.visibility, a.owner_account_id AS owner, a.team_id AS team, a.executions,
            0.98 * m.rel / (m.rel + 8) + 0.02 * (a.executions * 1.0 / (a.executions + 1000)) AS raw
       FROM (SELECT rowid AS rid, -bm25(agents_fts, ${DOCUMENTED_WEIGHTS}) AS rel FROM agents_fts WHERE agents_fts MATCH ?) m
       JOIN agents a ON a.rowid = m.rid`,
  )
    .bind(match)
    .all<{ rowid: number; id: string; visibility: string; owner: string; team: string | null; executions: number; raw: number }>()
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
  return visible.sort((a, b) => b.raw - a.raw || b.executions - a.executions || a.rowid - b.rowid).map((r) => r.id)
}
