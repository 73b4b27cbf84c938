/** Sealed per-account credentials. Only sealed text is stored; opening happens in src/auth/secrets.ts. */

export interface SecretRow {
  account_id: string
  kind: string
  provider: string
  sealed: string
  meta: string
  created_at: number
  updated_at: number
}

export async function putSecretRow(db: D1Database, row: SecretRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO account_secrets (account_id, kind, provider, sealed, meta, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(account_id, kind) DO UPDATE SET provider = excluded.provider, sealed = excluded.sealed, meta = excluded.meta, updated_at = excluded.updated_at`,
    )
    .bind(row.account_id, row.kind, row.provider, row.sealed, row.meta, row.created_at, row.updated_at)
    .run()
}

export async function getSecretRow(db: D1Database, accountId: string, kind: string): Promise<SecretRow | null> {
  return db.prepare('SELECT * FROM account_secrets WHERE account_id = ? AND kind = ?').bind(accountId, kind).first<SecretRow>()
}

export async function listSecretRows(db: D1Database, accountId: string, kindPrefix: string): Promise<SecretRow[]> {
  const { results } = await db.prepare('SELECT * FROM account_secrets WHERE account_id = ? AND substr(kind, 1, length(?)) = ? ORDER BY kind').bind(accountId, kindPrefix, kindPrefix).all<SecretRow>()
  return results
}

export async function deleteSecretRow(db: D1Database, accountId: string, kind: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM account_secrets WHERE account_id = ? AND kind = ?').bind(accountId, kind).run()
  return res.meta.changes > 0
}
