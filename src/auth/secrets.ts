import { deleteSecretRow, getSecretRow, listSecretRows, putSecretRow } from '../db/secrets'
import { open, seal } from '../lib/crypto'

/** A connected credential as shown back: provider and facts, never the secret. */
export interface SecretInfo {
  kind: string
  provider: string
  meta: Record<string, unknown>
  connected_at: string
  updated_at: string
}

const context = (accountId: string, kind: string) => `secret:${accountId}:${kind}`

/**
 * Stores an account's credential sealed with ENCRYPTION_KEY (AES-GCM, bound to account and kind).
 * Throws MissingKeyError (503 naming ENCRYPTION_KEY) when the key is not configured.
 */
export async function putAccountSecret(
  db: D1Database,
  encryptionKey: string | undefined,
  accountId: string,
  kind: string,
  provider: string,
  secret: string,
  meta: Record<string, unknown> = {},
): Promise<SecretInfo> {
  const now = Date.now()
  const existing = await getSecretRow(db, accountId, kind)
  const row = {
    account_id: accountId,
    kind,
    provider,
    sealed: await seal(encryptionKey, secret, context(accountId, kind)),
    meta: JSON.stringify(meta),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  }
  await putSecretRow(db, row)
  return info(row)
}

/** Opens an account's credential, or null when none is connected. */
export async function getAccountSecret(db: D1Database, encryptionKey: string | undefined, accountId: string, kind: string): Promise<{ secret: string; info: SecretInfo } | null> {
  const row = await getSecretRow(db, accountId, kind)
  if (!row) return null
  return { secret: await open(encryptionKey, row.sealed, context(accountId, kind)), info: info(row) }
}

export async function describeAccountSecret(db: D1Database, accountId: string, kind: string): Promise<SecretInfo | null> {
  const row = await getSecretRow(db, accountId, kind)
  return row ? info(row) : null
}

export async function listAccountSecrets(db: D1Database, accountId: string, kindPrefix: string): Promise<SecretInfo[]> {
  return (await listSecretRows(db, accountId, kindPrefix)).map(info)
}

export async function deleteAccountSecret(db: D1Database, accountId: string, kind: string): Promise<boolean> {
  return deleteSecretRow(db, accountId, kind)
}

function info(row: { kind: string; provider: string; meta: string; created_at: number; updated_at: number }): SecretInfo {
  return {
    kind: row.kind,
    provider: row.provider,
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    connected_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }
}
