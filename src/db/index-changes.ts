/**
 * What a search needs to keep using a relevance list read at an older index version (migration
 * 0017, src/agents/stale-lists.ts): FTS5's row and token totals, the agents whose text changed since,
 * and how many agents each phrase matches now.
 */
/** FTS5's totals, as bm25 reads them: indexed rows, and tokens over every column. */
export interface FtsTotals {
  rows: number
  tokens: number
}

/**
 * FTS5's averages record (`agents_fts_data` row 1, as hex): the row count, then each column's
 * token total, as SQLite varints. Null when it cannot be read so.
 */
export function parseTotals(hex: string | null | undefined): FtsTotals | null {
  if (!hex || !/^(?:[0-9A-F]{2})+$/i.test(hex)) return null
  const bytes = Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16))
  const values: number[] = []
  let i = 0
  while (i < bytes.length) {
    let v = 0
    for (let n = 1; ; n++) {
      if (i >= bytes.length) return null
      const c = bytes[i++]
      if (n === 9) {
        v = v * 256 + c
        break
      }
      v = v * 128 + (c & 0x7f)
      if (!(c & 0x80)) break
    }
    if (!Number.isSafeInteger(v)) return null
    values.push(v)
  }
  if (values.length < 2) return null
  return { rows: values[0], tokens: values.slice(1).reduce((a, b) => a + b, 0) }
}

/** The averages record as one column, read in the same statement as what depends on it. */
export const TOTALS_SQL = `(SELECT hex(block) FROM agents_fts_data WHERE id = 1)`

/** `<epoch>:<index version>` as one column. */
export const INDEX_POINT_SQL = `(SELECT epoch || ':' || index_version FROM catalog_version WHERE id = 1)`

/**
 * 1 when the change log (migration 0017) still holds every index version after the one in SQL
 * parameter `since` (versions are consecutive and the log is trimmed from below), else 0.
 */
export const logReachesSql = (since: string) =>
  `(SELECT coalesce(min(index_version) <= ${since} + 1, (SELECT index_version FROM catalog_version WHERE id = 1) = ${since}) FROM index_changes WHERE index_version > ${since})`

/** The distinct agents the change log names after the index version in SQL parameter `since`. */
export const changedSinceSql = (since: string) => `SELECT DISTINCT agent_rowid FROM index_changes WHERE index_version > ${since}`

export interface IndexCheck {
  /** `<epoch>:<index version>` now. */
  index: string
  totals: FtsTotals | null
  /** Agents whose text changed after the index version asked about; null when the log no longer reaches back that far. */
  changed: number[] | null
  /** How many agents each phrase matches now. */
  counts: number[]
}

/**
 * The index now, the agents changed after index version `since`, and the match count of each of
 * `phrases` (FTS5 expressions). Counting walks a phrase's agents without scoring them.
 */
export function indexCheckQuery(db: D1Database, since: number, phrases: string[]): { statement: D1PreparedStatement; read: (result: D1Result<Record<string, unknown>>) => IndexCheck } {
  if (!Number.isSafeInteger(since) || since < 0) throw new Error(`not an index version: ${since}`)
  const counts = phrases.map((_, i) => `(SELECT count(*) FROM agents_fts WHERE agents_fts MATCH ?${i + 2}) AS n${i}`)
  return {
    statement: db
      .prepare(
        `SELECT ${INDEX_POINT_SQL} AS idx, ${TOTALS_SQL} AS totals,
                ${logReachesSql('?1')} AS complete,
                (SELECT coalesce(group_concat(agent_rowid, ' '), '') FROM (${changedSinceSql('?1')})) AS changed
                ${counts.map((c) => `, ${c}`).join('')}`,
      )
      .bind(since, ...phrases),
    read: ({ results }) => {
      const row = results[0] as Record<string, string | number | null>
      const changed = String(row.changed ?? '')
      return {
        index: String(row.idx),
        totals: parseTotals(row.totals as string | null),
        changed: row.complete === 1 ? (changed ? changed.split(' ').map(Number) : []) : null,
        counts: phrases.map((_, i) => Number(row[`n${i}`])),
      }
    },
  }
}

/** `<epoch>:<index version>` now. */
export function indexPointQuery(db: D1Database): { statement: D1PreparedStatement; read: (result: D1Result<Record<string, unknown>>) => string } {
  return { statement: db.prepare(`SELECT ${INDEX_POINT_SQL} AS idx`), read: ({ results }) => String((results[0] as { idx?: string } | undefined)?.idx) }
}
