import { env } from 'cloudflare:test'

/**
 * The storage scan every test file gets (test/setup.ts runs it after the file's tests): each secret a
 * test handed to the Worker is searched for, in plain text, in every row of every D1 table, every KV
 * key and value, and every log line the file printed. Secrets are the deployment's own (admin token,
 * encryption key, webhook secret), every token the helpers create, the fakes' credentials, whatever a
 * test sends to a secret field through `request()`, and any value a test marks with `markSecret`.
 */
const secrets = new Set<string>()
const logs: string[] = []
let accountsCreated = 0

/** Shorter values would match unrelated text; a test that marks one has a bug. */
const MIN_SECRET_LENGTH = 8

/** Registers a value the file's storage and logs must never hold in plain text; returns it. */
export function markSecret<T extends string>(value: T): T {
  if (value.length < MIN_SECRET_LENGTH) throw new Error(`markSecret: "${value}" is too short to search for (at least ${MIN_SECRET_LENGTH} characters)`)
  secrets.add(value)
  return value
}

/** Counts an account the helpers created, so the scan can prove it sees the file's writes. */
export function noteAccountCreated(): void {
  accountsCreated++
}

/** Fields whose values are secret wherever a test sends them (connections, keys, passwords). */
const SECRET_FIELDS = new Set(['password', 'api_key', 'access_token', 'app_password'])

/**
 * Marks the values a request body sends to secret fields (called by `request()`). A variable's
 * `value` is data the caller asked to keep, so it is not searched.
 */
export function markSecretsIn(body: unknown, depth = 0): void {
  if (depth > 8 || body === null || typeof body !== 'object') return
  for (const [k, v] of Object.entries(body)) {
    if (SECRET_FIELDS.has(k) && typeof v === 'string' && v.length >= MIN_SECRET_LENGTH && !v.includes('{{')) secrets.add(v)
    else if (k !== 'value') markSecretsIn(v, depth + 1)
  }
}

/** Records every console line the file prints (the Worker shares the test's isolate), still printing it. */
export function captureLogs(): void {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level].bind(console)
    console[level] = (...args: unknown[]) => {
      logs.push(args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' '))
      original(...args)
    }
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

export interface ScanReport {
  secrets: number
  tables: number
  rows: number
  kvKeys: number
  logLines: number
  found: string[]
  /** Reasons the scan could not be trusted (it saw nothing, or not this file's writes). */
  problems: string[]
}

/** Names of the tables to read: every table but SQLite's and D1's own; a full-text table is read through its shadow tables. */
async function tableNames(db: D1Database): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'")
    .all<{ name: string; sql: string }>()
  return results.filter((r) => !/^CREATE VIRTUAL TABLE/i.test(r.sql)).map((r) => r.name)
}

/** Where secrets were found, and how much was searched. */
export interface StorageSearch {
  /** "<where>: <first characters of the secret>..." per hit. */
  found: string[]
  tables: number
  rows: number
  kvKeys: number
}

/** Searches every D1 row (index internals aside), every KV key and value, and every captured log line for each of `needles`. */
export async function searchStorage(needles: readonly string[], name: (s: string) => string = (s) => `${s.slice(0, 6)}...`): Promise<StorageSearch> {
  const found: string[] = []
  const scan = (where: string, text: string) => {
    for (const s of needles) if (text.includes(s)) found.push(`${where}: ${name(s)}`)
  }
  const tables = await tableNames(env.DB)
  let rows = 0
  for (const table of tables) {
    const { results } = await env.DB.prepare(`SELECT * FROM "${table}"`).all()
    rows += results.length
    scan(`D1 ${table}`, JSON.stringify(results))
  }
  let kvKeys = 0
  let cursor: string | undefined
  do {
    const page = await env.CACHE.list({ cursor })
    for (const k of page.keys) {
      kvKeys++
      scan(`KV ${k.name}`, k.name + ((await env.CACHE.get(k.name)) ?? ''))
    }
    cursor = page.list_complete ? undefined : page.cursor
  } while (cursor)
  scan('logs', logs.join('\n'))
  return { found, tables: tables.length, rows, kvKeys }
}

/**
 * Scans this file's D1, KV and logs for every registered secret. A canary secret is planted in D1
 * and KV first and must be found, so a scan that reads nothing (or the wrong storage) fails.
 */
export async function scanStorage(): Promise<ScanReport> {
  const known = [env.ADMIN_TOKEN, env.ENCRYPTION_KEY, env.WEBHOOK_SIGNING_SECRET].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH)
  const canary = `scan-canary-${crypto.randomUUID()}`
  const all = [...new Set([...known, ...secrets]), canary]
  await env.CACHE.put('scan-canary', canary)
  await env.DB.batch([env.DB.prepare('CREATE TABLE IF NOT EXISTS scan_canary (value TEXT NOT NULL)'), env.DB.prepare('INSERT INTO scan_canary (value) VALUES (?)').bind(canary)])
  const search = await searchStorage(all, (s) => (s === canary ? 'canary' : `${s.slice(0, 6)}...`))
  await env.CACHE.delete('scan-canary')
  await env.DB.prepare('DROP TABLE scan_canary').run()

  const problems: string[] = []
  const canaryHits = search.found.filter((f) => f.endsWith(': canary'))
  if (canaryHits.length !== 2) problems.push(`the canary planted in D1 and KV was found ${canaryHits.length} times, not 2: the scan does not read this file's storage`)
  if (search.tables < 10) problems.push(`only ${search.tables} D1 tables were read`)
  const accounts = await env.DB.prepare('SELECT COUNT(*) AS n FROM accounts').first<{ n: number }>()
  if ((accounts?.n ?? 0) < accountsCreated) problems.push(`the file created ${accountsCreated} accounts but the scan sees ${accounts?.n ?? 0}`)
  return {
    secrets: all.length - 1,
    tables: search.tables - 1,
    rows: search.rows - 1,
    kvKeys: search.kvKeys - 1,
    logLines: logs.length,
    found: search.found.filter((f) => !f.endsWith(': canary')),
    problems,
  }
}
