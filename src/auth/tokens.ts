import { insertToken, type TokenView } from '../db/tokens'
import { sha256Hex } from '../lib/crypto'
import { bytesToBase62, newId } from '../lib/ids'

export const TOKEN_PREFIX = 'aak_'
/** `aak_` + base62 of 32 random bytes (43 characters). */
export const TOKEN_PATTERN = /^aak_[0-9A-Za-z]{43}$/
const START_LENGTH = TOKEN_PREFIX.length + 6

/** Creates a token for an account; the plain value is returned once and never stored. */
export async function createToken(
  db: D1Database,
  accountId: string,
  name: string,
  expiresAt: number | null,
  now: number,
): Promise<{ token: string; view: TokenView }> {
  const token = TOKEN_PREFIX + bytesToBase62(crypto.getRandomValues(new Uint8Array(32)))
  const row = {
    id: newId('tok'),
    account_id: accountId,
    name,
    hash: await sha256Hex(token),
    start: token.slice(0, START_LENGTH),
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
    last_used_at: null,
  }
  await insertToken(db, row)
  const { hash: _hash, ...view } = row
  return { token, view }
}

/** Token as shown by the API: times as ISO strings. */
export function presentToken(t: TokenView) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
  return {
    id: t.id,
    account_id: t.account_id,
    name: t.name,
    start: t.start,
    created_at: iso(t.created_at),
    expires_at: iso(t.expires_at),
    revoked_at: iso(t.revoked_at),
    last_used_at: iso(t.last_used_at),
  }
}
