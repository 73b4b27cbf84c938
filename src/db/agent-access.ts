/** What agents may use of the accounts that run them: grants, operator trust, and the agent a queued run acts for. */

export interface GrantRow {
  account_id: string
  agent_id: string
  /** JSON array of integration names. */
  integrations: string
  created_at: number
  updated_at: number
}

/** A grant with the agent's name, for listings (the agent may have become invisible since). */
export type ListedGrant = GrantRow & { agent_name: string | null }

/**
 * Creates or replaces an account's grant to an agent while the agent still has `workflow`, the one
 * the grant was decided on; null when it changed (or the agent is gone) since it was read. Checked
 * in the insert itself: a change between the read and a separate write would run its trigger
 * (which removes grants) before the grant exists, and the grant would outlive it.
 */
export async function putGrant(db: D1Database, accountId: string, agentId: string, integrations: string, now: number, workflow: string): Promise<GrantRow | null> {
  return db
    .prepare(
      `INSERT INTO agent_grants (account_id, agent_id, integrations, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?4 WHERE EXISTS (SELECT 1 FROM agents WHERE id = ?2 AND workflow = ?5)
       ON CONFLICT(account_id, agent_id) DO UPDATE SET integrations = excluded.integrations, updated_at = excluded.updated_at
       RETURNING *`,
    )
    .bind(accountId, agentId, integrations, now, workflow)
    .first<GrantRow>()
}

/** An account's grant to one agent, if any. */
export async function getGrant(db: D1Database, accountId: string, agentId: string): Promise<GrantRow | null> {
  return db.prepare('SELECT * FROM agent_grants WHERE account_id = ? AND agent_id = ?').bind(accountId, agentId).first<GrantRow>()
}

/** Removes an account's grant to an agent; false when there was none. */
export async function deleteGrant(db: D1Database, accountId: string, agentId: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM agent_grants WHERE account_id = ? AND agent_id = ?').bind(accountId, agentId).run()
  return res.meta.changes > 0
}

/** An account's grants, newest change first. */
export async function listGrants(db: D1Database, accountId: string): Promise<ListedGrant[]> {
  const { results } = await db
    .prepare(
      `SELECT g.*, a.name AS agent_name FROM agent_grants g LEFT JOIN agents a ON a.id = g.agent_id
        WHERE g.account_id = ? ORDER BY g.updated_at DESC, g.agent_id LIMIT 1000`,
    )
    .bind(accountId)
    .all<ListedGrant>()
  return results
}

/** Marks an agent trusted or not (operators); false when no such agent. */
export async function setTrusted(db: D1Database, agentId: string, trusted: boolean): Promise<boolean> {
  const res = await db
    .prepare('UPDATE agents SET trusted = ? WHERE id = ?')
    .bind(trusted ? 1 : 0, agentId)
    .run()
  return res.meta.changes > 0
}

/** Records that a queued run was started by a step of `agentId`. */
export async function recordRunAgent(db: D1Database, runId: string, agentId: string): Promise<void> {
  await db.prepare('INSERT OR IGNORE INTO run_agents (run_id, agent_id) VALUES (?, ?)').bind(runId, agentId).run()
}

/** The agent a run acts for, when an agent's step started it. */
export async function runAgent(db: D1Database, runId: string): Promise<string | null> {
  const row = await db.prepare('SELECT agent_id FROM run_agents WHERE run_id = ?').bind(runId).first<{ agent_id: string }>()
  return row?.agent_id ?? null
}

/** What the scope of an agent run needs: its name, owner and trust, read without visibility rules. */
export async function agentForScope(db: D1Database, agentId: string): Promise<{ id: string; name: string; owner_account_id: string; trusted: number } | null> {
  return db.prepare('SELECT id, name, owner_account_id, trusted FROM agents WHERE id = ?').bind(agentId).first()
}
