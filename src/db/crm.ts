/** Built-in CRM storage: objects, symmetric associations and the per-account id counter. */

export interface CrmObjectRow {
  account_id: string
  object_type: string
  id: string
  /** JSON object of string values. */
  properties: string
  email: string | null
  domain: string | null
  created_at: number
  updated_at: number
}

/** One association to write; stored in both directions. */
export interface CrmLinkRow {
  to_type: string
  to_id: string
  association_type: string | null
}

/** Indexed columns derived from properties; `undefined` leaves the column as it is. */
export interface CrmIndexColumns {
  email?: string | null
  domain?: string | null
}

const LINK_UPSERT = 'ON CONFLICT(account_id, from_type, from_id, to_type, to_id) DO UPDATE SET association_type = excluded.association_type'

/** One object of an account, or null. */
export async function getCrmObject(db: D1Database, accountId: string, type: string, id: string): Promise<CrmObjectRow | null> {
  return db.prepare('SELECT * FROM crm_objects WHERE account_id = ? AND object_type = ? AND id = ?').bind(accountId, type, id).first<CrmObjectRow>()
}

/** The contact with this (lower-cased) email, or null. */
export async function findContactByEmail(db: D1Database, accountId: string, email: string): Promise<CrmObjectRow | null> {
  return db.prepare("SELECT * FROM crm_objects WHERE account_id = ? AND object_type = 'contacts' AND email = ?").bind(accountId, email).first<CrmObjectRow>()
}

/** Companies with this normalized domain, oldest first, at most `limit`. */
export async function findCompaniesByDomain(db: D1Database, accountId: string, domain: string, limit: number): Promise<CrmObjectRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM crm_objects WHERE account_id = ? AND object_type = 'companies' AND domain = ? ORDER BY CAST(id AS INTEGER) LIMIT ?")
    .bind(accountId, domain, limit)
    .all<CrmObjectRow>()
  return results
}

/** Objects of one type, in id order, after the id `after` (paging). */
export async function listCrmObjects(db: D1Database, accountId: string, type: string, after: number, limit: number): Promise<CrmObjectRow[]> {
  const { results } = await db
    .prepare('SELECT * FROM crm_objects WHERE account_id = ? AND object_type = ? AND CAST(id AS INTEGER) > ? ORDER BY CAST(id AS INTEGER) LIMIT ?')
    .bind(accountId, type, after, limit)
    .all<CrmObjectRow>()
  return results
}

/** Which of `refs` ("type:id") exist in the account. */
export async function existingCrmRefs(db: D1Database, accountId: string, refs: string[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set()
  const { results } = await db
    .prepare("SELECT object_type || ':' || id AS ref FROM crm_objects WHERE account_id = ? AND object_type || ':' || id IN (SELECT value FROM json_each(?))")
    .bind(accountId, JSON.stringify(refs))
    .all<{ ref: string }>()
  return new Set(results.map((r) => r.ref))
}

/** Ids associated with one object, grouped by the asked types, in id order. */
export async function listCrmAssociations(db: D1Database, accountId: string, type: string, id: string, toTypes: string[]): Promise<{ to_type: string; to_id: string }[]> {
  if (toTypes.length === 0) return []
  const { results } = await db
    .prepare(
      `SELECT to_type, to_id FROM crm_associations
        WHERE account_id = ? AND from_type = ? AND from_id = ? AND to_type IN (SELECT value FROM json_each(?))
        ORDER BY to_type, CAST(to_id AS INTEGER)`,
    )
    .bind(accountId, type, id, JSON.stringify(toTypes))
    .all<{ to_type: string; to_id: string }>()
  return results
}

function linkStatements(db: D1Database, accountId: string, type: string, idSql: 'given' | 'counter', id: string, links: CrmLinkRow[], now: number): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = []
  for (const l of links) {
    if (idSql === 'given') {
      // Only while the object exists, so a concurrent delete leaves no dangling links.
      const sql = `INSERT INTO crm_associations (account_id, from_type, from_id, to_type, to_id, association_type, created_at)
        SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM crm_objects WHERE account_id = ? AND object_type = ? AND id = ?) ${LINK_UPSERT}`
      out.push(db.prepare(sql).bind(accountId, type, id, l.to_type, l.to_id, l.association_type, now, accountId, type, id))
      out.push(db.prepare(sql).bind(accountId, l.to_type, l.to_id, type, id, l.association_type, now, accountId, type, id))
    } else {
      // The new object's id is the counter value bumped earlier in the same batch (a transaction).
      // Ids are never reused, so an object with that id exists only when this batch inserted it.
      const created = `EXISTS (SELECT 1 FROM crm_objects o WHERE o.account_id = c.account_id AND o.object_type = ? AND o.id = CAST(c.last_id AS TEXT))`
      out.push(
        db
          .prepare(
            `INSERT INTO crm_associations (account_id, from_type, from_id, to_type, to_id, association_type, created_at)
             SELECT ?, ?, CAST(last_id AS TEXT), ?, ?, ?, ? FROM crm_counters c WHERE account_id = ? AND ${created} ${LINK_UPSERT}`,
          )
          .bind(accountId, type, l.to_type, l.to_id, l.association_type, now, accountId, type),
      )
      out.push(
        db
          .prepare(
            `INSERT INTO crm_associations (account_id, from_type, from_id, to_type, to_id, association_type, created_at)
             SELECT ?, ?, ?, ?, CAST(last_id AS TEXT), ?, ? FROM crm_counters c WHERE account_id = ? AND ${created} ${LINK_UPSERT}`,
          )
          .bind(accountId, l.to_type, l.to_id, type, l.association_type, now, accountId, type),
      )
    }
  }
  return out
}

/** An indexed value no object of the type may have yet for an upsert to create one (by email or domain). */
export interface CrmUnless {
  column: 'email' | 'domain'
  value: string
}

/**
 * Creates an object with its associations in one transaction; returns the new id. With `unless`,
 * nothing is created when an object of the type already has that email or domain (checked in the
 * insert itself, so concurrent upserts create one object): then the answer is null.
 */
export async function insertCrmObject(
  db: D1Database,
  accountId: string,
  type: string,
  properties: Record<string, string>,
  index: CrmIndexColumns,
  links: CrmLinkRow[],
  now: number,
  unless: CrmUnless | null = null,
): Promise<string | null> {
  const column = unless?.column === 'domain' ? 'domain' : 'email'
  const results = await db.batch([
    // A refused upsert still takes an id here: ids may skip, and are never reused.
    db.prepare('INSERT INTO crm_counters (account_id, last_id) VALUES (?, 1) ON CONFLICT(account_id) DO UPDATE SET last_id = last_id + 1').bind(accountId),
    db
      .prepare(
        `INSERT INTO crm_objects (account_id, object_type, id, properties, email, domain, created_at, updated_at)
         SELECT ?1, ?2, CAST(last_id AS TEXT), ?3, ?4, ?5, ?6, ?6 FROM crm_counters WHERE account_id = ?1
            AND (?7 IS NULL OR NOT EXISTS (SELECT 1 FROM crm_objects WHERE account_id = ?1 AND object_type = ?2 AND ${column} = ?7))
         RETURNING id`,
      )
      .bind(accountId, type, JSON.stringify(properties), index.email ?? null, index.domain ?? null, now, unless?.value ?? null),
    ...linkStatements(db, accountId, type, 'counter', '', links, now),
  ])
  const inserted = results[1] as D1Result<{ id: string }>
  return inserted.results[0]?.id ?? null
}

/**
 * Merges `properties` into an object (json_patch, so concurrent writers of different properties
 * both land) and writes associations, in one transaction. False when the object does not exist.
 */
export async function patchCrmObject(
  db: D1Database,
  accountId: string,
  type: string,
  id: string,
  properties: Record<string, string>,
  index: CrmIndexColumns,
  links: CrmLinkRow[],
  now: number,
): Promise<boolean> {
  const setEmail = index.email !== undefined
  const setDomain = index.domain !== undefined
  const results = await db.batch([
    db
      .prepare(
        `UPDATE crm_objects SET properties = json_patch(properties, ?),
           email = CASE WHEN ? THEN ? ELSE email END,
           domain = CASE WHEN ? THEN ? ELSE domain END,
           updated_at = ?
         WHERE account_id = ? AND object_type = ? AND id = ?`,
      )
      .bind(JSON.stringify(properties), setEmail ? 1 : 0, index.email ?? null, setDomain ? 1 : 0, index.domain ?? null, now, accountId, type, id),
    ...linkStatements(db, accountId, type, 'given', id, links, now),
  ])
  return results[0].meta.changes > 0
}

/** Deletes an object and every association touching it. False when it did not exist. */
export async function deleteCrmObject(db: D1Database, accountId: string, type: string, id: string): Promise<boolean> {
  const results = await db.batch([
    db.prepare('DELETE FROM crm_objects WHERE account_id = ? AND object_type = ? AND id = ?').bind(accountId, type, id),
    db.prepare('DELETE FROM crm_associations WHERE account_id = ? AND ((from_type = ? AND from_id = ?) OR (to_type = ? AND to_id = ?))').bind(accountId, type, id, type, id),
  ])
  return results[0].meta.changes > 0
}

/**
 * Bytes of JSON a record's properties hold at most, enforced by the table's triggers
 * (migrations/0019_crm_record_size.sql). Half of D1's 2,000,000 bytes a value, so a record at the
 * limit merged with an update of as much is still a value D1 computes before the check refuses it.
 */
export const CRM_RECORD_MAX_BYTES = 1_000_000

/** True for the triggers' refusal of a record past CRM_RECORD_MAX_BYTES; nothing of its batch was written. */
export function isRecordTooLarge(err: unknown): boolean {
  return err instanceof Error && err.message.includes('crm record properties too large')
}

/** True for D1's unique-constraint failure (a second contact with the same email). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/i.test(err.message)
}
