/** Accounts, teams and memberships. */

export interface AccountRow {
  id: string
  name: string
  rate_limit_per_minute: number | null
  rate_limit_per_day: number | null
  created_at: number
}

export interface TeamRow {
  id: string
  name: string
  created_at: number
}

export async function insertAccount(db: D1Database, row: AccountRow): Promise<void> {
  await db
    .prepare('INSERT INTO accounts (id, name, rate_limit_per_minute, rate_limit_per_day, created_at) VALUES (?, ?, ?, ?, ?)')
    .bind(row.id, row.name, row.rate_limit_per_minute, row.rate_limit_per_day, row.created_at)
    .run()
}

export async function getAccount(db: D1Database, id: string): Promise<AccountRow | null> {
  return db.prepare('SELECT * FROM accounts WHERE id = ?').bind(id).first<AccountRow>()
}

export async function listAccounts(db: D1Database, limit: number, after: string | null): Promise<AccountRow[]> {
  const { results } = await db
    .prepare('SELECT * FROM accounts WHERE id > ? ORDER BY id LIMIT ?')
    .bind(after ?? '', limit)
    .all<AccountRow>()
  return results
}

/** Sets or clears (null) an account's rate-limit override; returns false when the account does not exist. */
export async function updateAccountLimits(db: D1Database, id: string, perMinute: number | null, perDay: number | null): Promise<boolean> {
  const res = await db.prepare('UPDATE accounts SET rate_limit_per_minute = ?, rate_limit_per_day = ? WHERE id = ?').bind(perMinute, perDay, id).run()
  return res.meta.changes > 0
}

export async function insertTeam(db: D1Database, row: TeamRow): Promise<void> {
  await db.prepare('INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)').bind(row.id, row.name, row.created_at).run()
}

export async function getTeam(db: D1Database, id: string): Promise<TeamRow | null> {
  return db.prepare('SELECT * FROM teams WHERE id = ?').bind(id).first<TeamRow>()
}

export async function listTeams(db: D1Database): Promise<(TeamRow & { members: number })[]> {
  const { results } = await db.prepare('SELECT t.*, (SELECT count(*) FROM team_members m WHERE m.team_id = t.id) AS members FROM teams t ORDER BY t.id').all<TeamRow & { members: number }>()
  return results
}

export async function addTeamMember(db: D1Database, teamId: string, accountId: string, role: string, now: number): Promise<void> {
  await db
    .prepare('INSERT INTO team_members (team_id, account_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(team_id, account_id) DO UPDATE SET role = excluded.role')
    .bind(teamId, accountId, role, now)
    .run()
}

export async function removeTeamMember(db: D1Database, teamId: string, accountId: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM team_members WHERE team_id = ? AND account_id = ?').bind(teamId, accountId).run()
  return res.meta.changes > 0
}

export async function listTeamMembers(db: D1Database, teamId: string): Promise<{ account_id: string; role: string; created_at: number }[]> {
  const { results } = await db
    .prepare('SELECT account_id, role, created_at FROM team_members WHERE team_id = ? ORDER BY created_at, account_id')
    .bind(teamId)
    .all<{ account_id: string; role: string; created_at: number }>()
  return results
}

export async function teamIdsOf(db: D1Database, accountId: string): Promise<string[]> {
  const { results } = await db.prepare('SELECT team_id FROM team_members WHERE account_id = ? ORDER BY team_id').bind(accountId).all<{ team_id: string }>()
  return results.map((r) => r.team_id)
}
