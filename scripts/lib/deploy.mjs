/**
 * Pure parts of `npm run deploy:setup`: reading and rewriting wrangler.toml, reading wrangler's
 * output, and the deploy secrets file's text. No file or process I/O here, so tests run them on real texts.
 */
import { randomBytes } from 'node:crypto'

/** The secrets the Worker needs (deployed and under `npm run dev`), with how each is generated. */
export const WORKER_SECRETS = [
  { name: 'ADMIN_TOKEN', bytes: 24, encoding: 'hex' },
  { name: 'ENCRYPTION_KEY', bytes: 32, encoding: 'base64' },
  { name: 'WEBHOOK_SIGNING_SECRET', bytes: 24, encoding: 'hex' },
]

/** Fresh random values for the named WORKER_SECRETS: { NAME: value }. */
export function generateSecrets(names = WORKER_SECRETS.map((s) => s.name)) {
  return Object.fromEntries(WORKER_SECRETS.filter((s) => names.includes(s.name)).map((s) => [s.name, randomBytes(s.bytes).toString(s.encoding)]))
}

/** The deploy secrets file, beside wrangler.toml; .gitignore lists it. */
export const SECRETS_FILE = '.deploy-secrets.env'

function parseValue(raw) {
  const text = raw.trim()
  if (text.startsWith('"')) {
    const end = /^"(?:[^"\\]|\\.)*"/.exec(text)
    return end ? JSON.parse(end[0]) : text
  }
  if (text.startsWith("'")) {
    const end = text.indexOf("'", 1)
    return end > 0 ? text.slice(1, end) : text
  }
  const bare = text.replace(/\s+#.*$/, '')
  if (/^-?\d+$/.test(bare)) return Number(bare)
  if (bare === 'true' || bare === 'false') return bare === 'true'
  return bare
}

/**
 * The tables of a wrangler.toml as written: one entry per `[table]` or `[[array.table]]` element, with
 * its keys, their values (strings, numbers, booleans; anything else as raw text) and line numbers.
 */
export function tomlTables(text) {
  const lines = text.split('\n')
  const tables = [{ header: '', array: false, start: 0, end: lines.length, keys: {} }]
  lines.forEach((line, i) => {
    const head = /^\s*(\[\[?)\s*([\w.-]+)\s*\]\]?\s*(?:#.*)?$/.exec(line)
    if (head) {
      tables.at(-1).end = i
      tables.push({ header: head[2], array: head[1] === '[[', start: i, end: lines.length, keys: {} })
      return
    }
    const kv = /^\s*([\w-]+)\s*=\s*(.*)$/.exec(line)
    if (kv) tables.at(-1).keys[kv[1]] = { value: parseValue(kv[2]), line: i }
  })
  return tables
}

/**
 * What deploy:setup needs from wrangler.toml: the Worker's name, its D1 databases and KV namespaces
 * (binding, name, id) and every queue it produces to, consumes or dead-letters into.
 */
export function readWranglerConfig(text) {
  const tables = tomlTables(text)
  const get = (t, k) => t.keys[k]?.value
  const top = tables[0]
  const queues = new Set()
  for (const t of tables) {
    if (t.header === 'queues.producers' || t.header === 'queues.consumers') queues.add(get(t, 'queue'))
    if (t.header === 'queues.consumers' && get(t, 'dead_letter_queue')) queues.add(get(t, 'dead_letter_queue'))
  }
  queues.delete(undefined)
  return {
    name: get(top, 'name'),
    d1: tables.filter((t) => t.header === 'd1_databases').map((t) => ({ binding: get(t, 'binding'), name: get(t, 'database_name'), id: get(t, 'database_id') })),
    kv: tables.filter((t) => t.header === 'kv_namespaces').map((t) => ({ binding: get(t, 'binding'), id: get(t, 'id') })),
    queues: [...queues],
  }
}

/**
 * wrangler.toml with the given ids written in: `ids.d1[binding]` as that database's `database_id`,
 * `ids.kv[binding]` as that namespace's `id`. Every other line, comment and blank stays as it was.
 * Throws when a binding is not in the file.
 */
export function setResourceIds(text, ids) {
  const lines = text.split('\n')
  const tables = tomlTables(text)
  const edits = [
    ...Object.entries(ids.d1 ?? {}).map(([binding, id]) => ({ header: 'd1_databases', binding, key: 'database_id', id })),
    ...Object.entries(ids.kv ?? {}).map(([binding, id]) => ({ header: 'kv_namespaces', binding, key: 'id', id })),
  ]
  const inserts = []
  for (const edit of edits) {
    const table = tables.find((t) => t.header === edit.header && t.keys.binding?.value === edit.binding)
    if (!table) throw new Error(`wrangler.toml has no [[${edit.header}]] with binding = "${edit.binding}"`)
    const entry = `${edit.key} = ${JSON.stringify(edit.id)}`
    const existing = table.keys[edit.key]
    if (existing) lines[existing.line] = lines[existing.line].replace(/^(\s*)[\w-]+\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^#\s]*)/, (_m, indent) => indent + entry)
    else inserts.push({ after: table.keys.binding.line, entry })
  }
  for (const { after, entry } of inserts.sort((a, b) => b.after - a.after)) lines.splice(after + 1, 0, entry)
  return lines.join('\n')
}

/** The JSON value wrangler printed (`--json` forms, `kv namespace list`), skipping any line before it. */
export function parseJsonOutput(stdout) {
  const start = stdout.search(/^\s*[[{]/m)
  if (start < 0) throw new Error(`wrangler printed no JSON:\n${stdout}`)
  return JSON.parse(stdout.slice(start))
}

/** The rows of a table wrangler printed (cli-table3 box drawing), as objects keyed by the header row. */
export function parseTable(stdout) {
  // eslint-disable-next-line no-control-regex
  const rows = stdout
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((l) => /^\s*│/.test(l))
    .map((l) => l.trim().slice(1, -1).split('│').map((c) => c.trim()))
  if (!rows.length) return []
  const [head, ...body] = rows
  return body.map((cells) => Object.fromEntries(head.map((h, i) => [h, cells[i] ?? ''])))
}

/**
 * The Worker's workers.dev URL from `wrangler deploy` output, or null (workers.dev off, routes only):
 * the first workers.dev target listed on its own line under "Deployed <name> triggers" (other lines
 * may name the account's subdomain or a preview URL pattern).
 */
export function deployedUrl(output) {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\x1b\[[0-9;]*m/g, '')
  const after = text.slice(Math.max(0, text.search(/^Deployed .* triggers/m)))
  return /^\s+(https:\/\/[a-z0-9.-]+\.workers\.dev)\/?\s*$/im.exec(after)?.[1] ?? null
}

/** The deploy secrets file's text: which Worker and URL the secrets belong to, then the secrets. */
export function renderSecretsFile({ worker, url, secrets, createdAt }) {
  return [
    `# Secrets of the Worker "${worker}", written once by npm run deploy:setup on ${createdAt}.`,
    '# Keep this file private (git ignores it). The admin CLI reads ADMIN_TOKEN from it for WORKER_URL only.',
    `WORKER_NAME=${worker}`,
    ...(url ? [`WORKER_URL=${url}`] : []),
    ...Object.entries(secrets).map(([k, v]) => `${k}=${v}`),
    '',
  ].join('\n')
}

/** KEY=VALUE lines of a .env-style file (.dev.vars, the deploy secrets file); comments skipped. */
export function parseEnvFile(text) {
  const out = {}
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line)
    if (m) out[m[1]] = m[2].trim()
  }
  return out
}

/**
 * What to do about the Worker's secrets. `present`: the names `wrangler secret list` shows; `saved`: the
 * parsed deploy secrets file, or null; `fresh`: newly generated values to use when there is no file.
 * Only secrets the Worker lacks are put, so a rerun never replaces one (a new ENCRYPTION_KEY would make
 * stored connections unreadable). Returns { file: text to save first or null, put: {NAME: value},
 * notes: lines to print } or { error }.
 */
export function planSecrets({ worker, url, saved, present, fresh, createdAt }) {
  if (saved?.WORKER_NAME && saved.WORKER_NAME !== worker) return { error: `${SECRETS_FILE} belongs to the Worker "${saved.WORKER_NAME}", not "${worker}"` }
  const names = WORKER_SECRETS.map((s) => s.name)
  const missing = names.filter((n) => !present.includes(n))
  let file = null
  let values = saved ?? {}
  if (!saved && missing.length) {
    values = Object.fromEntries(missing.map((n) => [n, fresh[n]]))
    file = renderSecretsFile({ worker, url, secrets: values, createdAt })
  }
  const unknown = missing.filter((n) => !values[n])
  if (unknown.length) {
    return { error: `the Worker lacks ${unknown.join(', ')} and ${SECRETS_FILE} has no value for it: add NAME=value lines there, or move the file away to generate new ones` }
  }
  const notes = names
    .filter((n) => present.includes(n))
    .map((n) => {
      if (saved?.[n]) return `${n}: already set on the Worker, kept (the value in ${SECRETS_FILE})`
      const advice = n === 'ADMIN_TOKEN' ? ': export it for the admin CLI, or set a new one with npx wrangler secret put ADMIN_TOKEN' : ''
      return `${n}: already set on the Worker, kept (its value is in no local file${advice})`
    })
  if (saved?.WORKER_URL && url && saved.WORKER_URL !== url) notes.push(`note: ${SECRETS_FILE} names ${saved.WORKER_URL}, this deploy answered at ${url}`)
  return { file, put: Object.fromEntries(missing.map((n) => [n, values[n]])), notes }
}
