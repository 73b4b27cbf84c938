/** API tokens: stored as SHA-256 hash plus the first characters, never in plain text. */
import { VOCABULARY_POINT_SQL } from './search-words'

export interface TokenRow {
  id: string
  account_id: string
  name: string
  hash: string
  start: string
  created_at: number
  expires_at: number | null
  revoked_at: number | null
  last_used_at: number | null
  /** The token's own limits below the account's (null: the account's alone). */
  rate_limit_per_minute: number | null
  rate_limit_per_day: number | null
}

/** What authentication needs about a token, read in one query with its account and teams. */
export interface TokenPrincipalRow {
  token_id: string
  account_id: string
  account_name: string
  expires_at: number | null
  revoked_at: number | null
  last_used_at: number | null
  rate_limit_per_minute: number | null
  rate_limit_per_day: number | null
  token_rate_limit_per_minute: number | null
  token_rate_limit_per_day: number | null
  team_ids: string | null
  /** `<epoch>:<version>:<index version>` of the agent catalog, read in the same query (migrations 0008, 0009). */
  catalog_version: string | null
  /** `<epoch>:<index version>:<vocabulary version>` (VOCABULARY_POINT_SQL, migrations 0016, 0018), read in the same query. */
  vocabulary_point: string | null
}

/**
 * Inserts a token unless its account already has `maxActive` active (unrevoked, unexpired) tokens;
 * one statement, so concurrent creations cannot pass the cap together. False when refused.
 */
export async function insertToken(db: D1Database, row: TokenRow, maxActive: number): Promise<boolean> {
  const res = await db
    .prepare(
      `INSERT INTO api_tokens (id, account_id, name, hash, start, created_at, expires_at, revoked_at, last_used_at, rate_limit_per_minute, rate_limit_per_day)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, NULL, ?8, ?9
        WHERE (SELECT count(*) FROM api_tokens WHERE account_id = ?2 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?6)) < ?10`,
    )
    .bind(row.id, row.account_id, row.name, row.hash, row.start, row.created_at, row.expires_at, row.rate_limit_per_minute, row.rate_limit_per_day, maxActive)
    .run()
  return res.meta.changes > 0
}

const PRINCIPAL_SELECT = `SELECT t.id AS token_id, t.account_id, a.name AS account_name, t.expires_at, t.revoked_at, t.last_used_at,
              a.rate_limit_per_minute, a.rate_limit_per_day,
              t.rate_limit_per_minute AS token_rate_limit_per_minute, t.rate_limit_per_day AS token_rate_limit_per_day,
              (SELECT group_concat(m.team_id) FROM team_members m WHERE m.account_id = t.account_id) AS team_ids,
              (SELECT epoch || ':' || version || ':' || index_version FROM catalog_version WHERE id = 1) AS catalog_version,
              ${VOCABULARY_POINT_SQL} AS vocabulary_point
         FROM api_tokens t JOIN accounts a ON a.id = t.account_id`

export async function findPrincipalByHash(db: D1Database, hash: string): Promise<TokenPrincipalRow | null> {
  return db.prepare(`${PRINCIPAL_SELECT} WHERE t.hash = ?`).bind(hash).first<TokenPrincipalRow>()
}

/** The same principal row by token id (a signed report link names its token by id). */
export async function findPrincipalByTokenId(db: D1Database, tokenId: string): Promise<TokenPrincipalRow | null> {
  return db.prepare(`${PRINCIPAL_SELECT} WHERE t.id = ?`).bind(tokenId).first<TokenPrincipalRow>()
}

/** Public view of a token: everything but the hash. */
export type TokenView = Omit<TokenRow, 'hash'>

const VIEW_COLUMNS = 'id, account_id, name, start, created_at, expires_at, revoked_at, last_used_at, rate_limit_per_minute, rate_limit_per_day'

export async function listTokens(db: D1Database, accountId: string): Promise<TokenView[]> {
  const { results } = await db.prepare(`SELECT ${VIEW_COLUMNS} FROM api_tokens WHERE account_id = ? ORDER BY created_at DESC, id`).bind(accountId).all<TokenView>()
  return results
}

export async function getToken(db: D1Database, id: string): Promise<TokenView | null> {
  return db.prepare(`SELECT ${VIEW_COLUMNS} FROM api_tokens WHERE id = ?`).bind(id).first<TokenView>()
}

/** Revokes a token; `accountId` scopes the change to its owner (null for operators). */
export async function revokeToken(db: D1Database, id: string, accountId: string | null, now: number): Promise<boolean> {
  const res = await db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND (? IS NULL OR account_id = ?)').bind(now, id, accountId, accountId).run()
  return res.meta.changes > 0
}

/** Sets a token's own limits; `accountId` scopes the change to its owner (null for operators). False when no such token. */
export async function updateTokenLimits(db: D1Database, id: string, accountId: string | null, limits: { rate_limit_per_minute: number | null; rate_limit_per_day: number | null }): Promise<boolean> {
  const res = await db
    .prepare('UPDATE api_tokens SET rate_limit_per_minute = ?, rate_limit_per_day = ? WHERE id = ? AND (? IS NULL OR account_id = ?)')
    .bind(limits.rate_limit_per_minute, limits.rate_limit_per_day, id, accountId, accountId)
    .run()
  return res.meta.changes > 0
}

/**
 * Sets last_used_at unless it was set within `intervalMs`: checked in the update itself, since a
 * burst of requests all read the old value and would each write.
 */
export async function touchToken(db: D1Database, id: string, now: number, intervalMs: number): Promise<void> {
  await db.prepare('UPDATE api_tokens SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1 - ?3)').bind(now, id, intervalMs).run()
}
