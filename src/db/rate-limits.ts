/**
 * Fixed-window request counters: one row per account and one per token (rows are keyed by id, and
 * account ids `acc_...` never collide with token ids `tok_...`).
 */

/** Requests counted in the current minute and day windows of one row. */
export interface WindowCount {
  minuteCount: number
  dayCount: number
}

export interface RateCount {
  allowed: boolean
  account: WindowCount
  token: WindowCount
}

export interface RateLimits {
  perMinute: number
  perDay: number
}

// The counts in the current windows of a row (0 when its stored window is older): ?2 minute, ?3 day.
const curM = (row: string) => `(CASE WHEN ${row}minute_start = ?2 THEN ${row}minute_count ELSE 0 END)`
const curD = (row: string) => `(CASE WHEN ${row}day_start = ?3 THEN ${row}day_count ELSE 0 END)`

function upsert(admitted: string, decides: string): string {
  return `INSERT INTO rate_limit_counters (token_id, minute_start, minute_count, day_start, day_count, last_allowed)
       VALUES (?1, ?2, ${admitted}, ?3, ${admitted}, ${admitted})
       ON CONFLICT(token_id) DO UPDATE SET
         minute_count = ${curM('')} + ${decides},
         day_count = ${curD('')} + ${decides},
         last_allowed = ${decides},
         minute_start = ?2,
         day_start = ?3
       RETURNING minute_count, day_count, last_allowed`
}

/**
 * Counts one request against its account's and its token's minute and day windows: two upserts to
 * run first, in this order, in one batch (read them with `readCount`). A D1 batch is one
 * transaction and D1 runs one statement at a time per database, so the counts are exact under any
 * concurrency, across all the tokens of an account (the Workers Rate Limiting binding is approximate
 * and per location, which the contract rules out). The first statement decides: the request is
 * allowed when the account is under its limits and the token under its own (`token` holds the
 * token's limits, at most the account's); the second adds to the token's row what the first
 * allowed. A request over any limit is not counted, so rejected retries never eat a quota.
 */
export function countRequestStatements(
  db: D1Database,
  accountId: string,
  tokenId: string,
  minuteStart: number,
  dayStart: number,
  account: RateLimits,
  token: RateLimits,
): [D1PreparedStatement, D1PreparedStatement] {
  const tokenOk = `COALESCE((SELECT ${curM('t.')} < ?6 AND ${curD('t.')} < ?7 FROM rate_limit_counters t WHERE t.token_id = ?8), 1)`
  const accountOk = `(${curM('')} < ?4 AND ${curD('')} < ?5 AND ${tokenOk})`
  const decided = '(SELECT a.last_allowed FROM rate_limit_counters a WHERE a.token_id = ?4)'
  return [
    db.prepare(upsert(tokenOk, accountOk)).bind(accountId, minuteStart, dayStart, account.perMinute, account.perDay, token.perMinute, token.perDay, tokenId),
    db.prepare(upsert(decided, decided)).bind(tokenId, minuteStart, dayStart, accountId),
  ]
}

function windowOf(result: D1Result<Record<string, unknown>>): { count: WindowCount; allowed: boolean } {
  const row = result.results[0] as { minute_count: number; day_count: number; last_allowed: number } | undefined
  if (!row) throw new Error('rate-limit upsert returned no row')
  return { count: { minuteCount: row.minute_count, dayCount: row.day_count }, allowed: row.last_allowed === 1 }
}

/** The counts from the two statements' results. */
export function readCount(accountResult: D1Result<Record<string, unknown>>, tokenResult: D1Result<Record<string, unknown>>): RateCount {
  const account = windowOf(accountResult)
  return { allowed: account.allowed, account: account.count, token: windowOf(tokenResult).count }
}
