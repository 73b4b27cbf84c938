/** Workflow variables, scoped by account and Workflow-Id. */

export async function getVariables(
  db: D1Database,
  accountId: string,
  workflowId: string,
  names: string[],
  now: number,
): Promise<Map<string, string>> {
  if (names.length === 0) return new Map()
  const { results } = await db
    .prepare(
      `SELECT name, value FROM variables
        WHERE account_id = ? AND workflow_id = ? AND expires_at > ? AND name IN (SELECT value FROM json_each(?))`,
    )
    .bind(accountId, workflowId, now, JSON.stringify(names))
    .all<{ name: string; value: string }>()
  return new Map(results.map((r) => [r.name, r.value]))
}

/** Sets a variable; the whole scope's expiry moves forward, since a scope expires as one. */
export async function putVariable(
  db: D1Database,
  accountId: string,
  workflowId: string,
  name: string,
  value: string,
  now: number,
  expiresAt: number,
): Promise<void> {
  await db.batch([
    db
      .prepare(
        `INSERT INTO variables (account_id, workflow_id, name, value, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(account_id, workflow_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      )
      .bind(accountId, workflowId, name, value, now, expiresAt),
    db.prepare('UPDATE variables SET expires_at = ? WHERE account_id = ? AND workflow_id = ? AND expires_at > ?').bind(expiresAt, accountId, workflowId, now),
  ])
}

export async function purgeExpired(db: D1Database, now: number): Promise<void> {
  await db.batch([
    db.prepare('DELETE FROM variables WHERE expires_at <= ?').bind(now),
    db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?').bind(now),
    db.prepare('DELETE FROM rate_limit_counters WHERE day_start < ?').bind(now - 2 * 86_400_000),
  ])
}
