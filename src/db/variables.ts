/** Workflow variables, scoped by account and Workflow-Id. */

/** A stored variable: `value_kind` says where its value lives (see src/runtime/blobs.ts). */
export interface VariableRow {
  name: string
  value: string
  value_kind: string
  size: number
  version: string | null
}

/** The live variables of a scope among `names`. */
export async function getVariables(db: D1Database, accountId: string, workflowId: string, names: string[], now: number): Promise<Map<string, VariableRow>> {
  if (names.length === 0) return new Map()
  const { results } = await db
    .prepare(
      `SELECT name, value, value_kind, size, version FROM variables
        WHERE account_id = ? AND workflow_id = ? AND expires_at > ? AND name IN (SELECT value FROM json_each(?))`,
    )
    .bind(accountId, workflowId, now, JSON.stringify(names))
    .all<VariableRow>()
  return new Map(results.map((r) => [r.name, r]))
}

/** One variable to write. `version` is new for every write. */
export interface VariableWrite {
  name: string
  value: string
  kind: string
  size: number
  version: string
  now: number
  expiresAt: number
  /** The write is refused when the scope's live variables would then hold more bytes than this. */
  maxScopeBytes: number
}

export type VariableWriteResult =
  | { written: true; /** The row replaced, so its blob can be dropped. */ previous: { kind: string; version: string | null } | null }
  | { written: false; /** Bytes the scope's other live variables hold. */ scopeBytes: number }

/**
 * Sets a variable unless the scope's total would pass `maxScopeBytes` (checked and written in one
 * statement, so concurrent writes cannot both slip under the limit). On success the whole scope's
 * expiry moves forward, since a scope expires as one.
 */
export async function putVariable(db: D1Database, accountId: string, workflowId: string, w: VariableWrite): Promise<VariableWriteResult> {
  const others = `SELECT COALESCE(SUM(size), 0) FROM variables WHERE account_id = ?1 AND workflow_id = ?2 AND name <> ?3 AND expires_at > ?8`
  const [previous, inserted, , total] = await db.batch([
    db.prepare('SELECT value_kind AS kind, version FROM variables WHERE account_id = ? AND workflow_id = ? AND name = ?').bind(accountId, workflowId, w.name),
    db
      .prepare(
        `INSERT INTO variables (account_id, workflow_id, name, value, value_kind, size, version, updated_at, expires_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE ?6 + (${others}) <= ?10
         ON CONFLICT(account_id, workflow_id, name) DO UPDATE SET value = excluded.value, value_kind = excluded.value_kind, size = excluded.size,
           version = excluded.version, updated_at = excluded.updated_at, expires_at = excluded.expires_at
         RETURNING version`,
      )
      .bind(accountId, workflowId, w.name, w.value, w.kind, w.size, w.version, w.now, w.expiresAt, w.maxScopeBytes),
    db
      .prepare(
        `UPDATE variables SET expires_at = ?3 WHERE account_id = ?1 AND workflow_id = ?2 AND expires_at > ?4
            AND EXISTS (SELECT 1 FROM variables WHERE account_id = ?1 AND workflow_id = ?2 AND name = ?5 AND version = ?6)`,
      )
      .bind(accountId, workflowId, w.expiresAt, w.now, w.name, w.version),
    db.prepare('SELECT COALESCE(SUM(size), 0) AS bytes FROM variables WHERE account_id = ? AND workflow_id = ? AND name <> ? AND expires_at > ?').bind(accountId, workflowId, w.name, w.now),
  ])
  if (inserted.results.length === 0) return { written: false, scopeBytes: Number((total.results[0] as { bytes: number }).bytes) }
  const prev = previous.results[0] as { kind: string; version: string | null } | undefined
  return { written: true, previous: prev ?? null }
}

/** Bytes the live variables of a scope hold, leaving out `exceptName`. */
export async function scopeBytes(db: D1Database, accountId: string, workflowId: string, exceptName: string, now: number): Promise<number> {
  const row = await db
    .prepare('SELECT COALESCE(SUM(size), 0) AS bytes FROM variables WHERE account_id = ? AND workflow_id = ? AND name <> ? AND expires_at > ?')
    .bind(accountId, workflowId, exceptName, now)
    .first<{ bytes: number }>()
  return Number(row?.bytes ?? 0)
}

/** A variable whose value is in KV, for the purge to drop its blob. */
export interface VariableBlobRow {
  account_id: string
  workflow_id: string
  name: string
  version: string | null
}

/** Expired variables whose values are in KV, oldest first, at most `limit`. */
export async function expiredVariableBlobs(db: D1Database, now: number, limit: number): Promise<VariableBlobRow[]> {
  const { results } = await db
    .prepare("SELECT account_id, workflow_id, name, version FROM variables WHERE expires_at <= ? AND value_kind IN ('kv', 'sealed+kv') ORDER BY expires_at LIMIT ?")
    .bind(now, limit)
    .all<VariableBlobRow>()
  return results
}

/** Deletes the given expired variables (after their blobs were dropped). */
export async function deleteVariables(db: D1Database, rows: VariableBlobRow[], now: number): Promise<void> {
  if (rows.length === 0) return
  await db.batch(rows.map((r) => db.prepare('DELETE FROM variables WHERE account_id = ? AND workflow_id = ? AND name = ? AND expires_at <= ?').bind(r.account_id, r.workflow_id, r.name, now)))
}

/**
 * Drops expired variables held in their rows, expired idempotency keys and old rate-limit rows.
 * Variables with a value in KV stay until `deleteVariables` removes them after their blobs.
 */
export async function purgeExpired(db: D1Database, now: number): Promise<void> {
  await db.batch([
    db.prepare("DELETE FROM variables WHERE expires_at <= ? AND value_kind NOT IN ('kv', 'sealed+kv')").bind(now),
    db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?').bind(now),
    db.prepare('DELETE FROM rate_limit_counters WHERE day_start < ?').bind(now - 2 * 86_400_000),
  ])
}
