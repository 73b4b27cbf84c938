import { env } from 'cloudflare:test'

/**
 * The production limits of Cloudflare's stores (developers.cloudflare.com/d1/platform/limits,
 * /kv/platform/limits). Local miniflare enforces KV's, a statement's 100 bound parameters and 100 KB
 * of SQL, and a Queue message's 128 KB, but stores a D1 value or row of any size: tests hold the
 * Worker to D1's with the wrappers below.
 */
export const D1_MAX_VALUE_BYTES = 2_000_000
export const KV_MAX_VALUE_BYTES = 25 * 1024 * 1024
export const KV_MAX_KEY_BYTES = 512

const encoder = new TextEncoder()

/** Bytes a bound value takes in D1: UTF-8 for text, the bytes of a BLOB. */
function boundBytes(value: unknown): number {
  if (typeof value === 'string') return value.length * 3 <= D1_MAX_VALUE_BYTES ? value.length : encoder.encode(value).byteLength
  if (value instanceof ArrayBuffer) return value.byteLength
  if (ArrayBuffer.isView(value)) return value.byteLength
  return 0
}

/**
 * The D1 binding with production D1's refusal of a bound value over 2,000,000 bytes (local D1
 * stores any size): a statement binding one fails, and so does a batch holding it, as D1 runs a
 * batch as one transaction.
 */
export function withD1ValueLimit(db: D1Database): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>()
  const oversized = new WeakSet<object>()
  const tooBig = () => new Error('D1_ERROR: string or blob too big: SQLITE_TOOBIG')
  const wrap = (statement: D1PreparedStatement, big: boolean): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown
        if (typeof value !== 'function') return value
        if (prop === 'bind')
          return (...values: unknown[]) =>
            wrap(
              target.bind(...values),
              values.some((v) => boundBytes(v) > D1_MAX_VALUE_BYTES),
            )
        if (big && (prop === 'first' || prop === 'all' || prop === 'run' || prop === 'raw')) return () => Promise.reject(tooBig())
        return (value as (...a: unknown[]) => unknown).bind(target)
      },
    })
    real.set(proxy, statement)
    if (big) oversized.add(proxy)
    return proxy
  }
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => wrap(target.prepare(sql), false)
      if (prop === 'batch') {
        return async (statements: D1PreparedStatement[]) => {
          if (statements.some((s) => oversized.has(s))) throw tooBig()
          return target.batch(statements.map((s) => real.get(s) ?? s))
        }
      }
      const value = Reflect.get(target, prop) as unknown
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}

/**
 * Runs `fn` with the Worker's D1 binding refusing bound values over 2,000,000 bytes, as production
 * D1 does (the test and the Worker share the `env` object, as `withSettings` relies on).
 */
export async function withProductionD1<T>(fn: () => Promise<T>): Promise<T> {
  const bindings = env as unknown as { DB: D1Database }
  const db = bindings.DB
  bindings.DB = withD1ValueLimit(db)
  try {
    return await fn()
  } finally {
    bindings.DB = db
  }
}

/** A row past D1's limits: its table, its bytes in all and its largest value's. */
export interface OversizedRow {
  table: string
  rowBytes: number
  valueBytes: number
}

/**
 * The largest row of every table (SQLite's, D1's and virtual tables aside; a full-text index is read
 * through its shadow tables) when it, or one of its values, is past D1's 2,000,000 bytes, which
 * production D1 would have refused to write.
 */
export async function oversizedRows(db: D1Database = env.DB): Promise<OversizedRow[]> {
  const { results: tables } = await db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'")
    .all<{ name: string; sql: string }>()
  const out: OversizedRow[] = []
  for (const { name } of tables.filter((t) => !/^CREATE VIRTUAL TABLE/i.test(t.sql))) {
    const { results: columns } = await db.prepare('SELECT name FROM pragma_table_info(?)').bind(name).all<{ name: string }>()
    const sizes = columns.map((c) => `coalesce(length(CAST("${c.name}" AS BLOB)), 0)`)
    const row = await db
      .prepare(`SELECT coalesce(max(${sizes.join(' + ')}), 0) AS row_bytes, coalesce(max(max(${[...sizes, '0'].join(', ')})), 0) AS value_bytes FROM "${name}"`)
      .first<{ row_bytes: number; value_bytes: number }>()
    if (row && row.row_bytes > D1_MAX_VALUE_BYTES) out.push({ table: name, rowBytes: row.row_bytes, valueBytes: row.value_bytes })
  }
  return out
}
