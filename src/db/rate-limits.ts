/** Fixed-window request counters per token. */

export interface RateCount {
  allowed: boolean
  minuteCount: number
  dayCount: number
}

/**
 * Counts one request against the token's minute and day windows in a single atomic upsert (run it
 * alone or first in a batch, and read it with `readCount`).
 * D1 runs statements one at a time per database, so the counts are exact under any concurrency
 * (the Workers Rate Limiting binding is approximate and per location, which the contract rules out).
 * A request over either limit is not counted, so rejected retries never eat the daily quota.
 */
export function countRequestStatement(
  db: D1Database,
  tokenId: string,
  minuteStart: number,
  dayStart: number,
  perMinute: number,
  perDay: number,
): D1PreparedStatement {
  // cur_m / cur_d: the counts in the current windows (0 when the stored window is older).
  const curM = 'CASE WHEN minute_start = ?2 THEN minute_count ELSE 0 END'
  const curD = 'CASE WHEN day_start = ?3 THEN day_count ELSE 0 END'
  const ok = `(${curM} < ?4 AND ${curD} < ?5)`
  return db
    .prepare(
      `INSERT INTO rate_limit_counters (token_id, minute_start, minute_count, day_start, day_count, last_allowed)
       VALUES (?1, ?2, 1, ?3, 1, 1)
       ON CONFLICT(token_id) DO UPDATE SET
         minute_count = ${curM} + ${ok},
         day_count = ${curD} + ${ok},
         last_allowed = ${ok},
         minute_start = ?2,
         day_start = ?3
       RETURNING minute_count, day_count, last_allowed`,
    )
    .bind(tokenId, minuteStart, dayStart, perMinute, perDay)
}

/** The count from the statement's result. */
export function readCount(result: D1Result<Record<string, unknown>>): RateCount {
  const row = result.results[0] as { minute_count: number; day_count: number; last_allowed: number } | undefined
  if (!row) throw new Error('rate-limit upsert returned no row')
  return { allowed: row.last_allowed === 1, minuteCount: row.minute_count, dayCount: row.day_count }
}
