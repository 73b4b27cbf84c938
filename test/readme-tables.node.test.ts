/**
 * The README's reference tables, checked against the code they describe: settings (names, kinds,
 * defaults) against `Env`, `readConfig`, the read sites and wrangler.toml; error codes against
 * ERROR_STATUS and the codes the code throws; actions against the registry; routes against the
 * routes the Hono app registers. Each test lists every drift it finds. It reads files and imports
 * modules: it uses no server (the node project starts one for its other files).
 */
import { readFileSync } from 'node:fs'
import ts from 'typescript'
import { describe, expect, it, vi } from 'vitest'
import { tomlTables } from '../scripts/lib/deploy.mjs'
import { curlExamples } from '../scripts/lib/readme-examples.mjs'
import { actions } from '../src/actions/registry'
import { createApp } from '../src/app'
import { readConfig } from '../src/config'
import type { Env } from '../src/env'
import { ERROR_STATUS } from '../src/http/errors'
import { codeSpans, section, tableRows } from './node/markdown'
import { envMembers, fallbackOf, literal, settingReads } from './node/settings-source'

// The offline encoder's WebAssembly is a module only the Worker's bundler compiles; nothing here runs it.
vi.mock('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm', () => ({ default: null }))

const readme = readFileSync('README.md', 'utf8')

describe("the README's settings table", () => {
  const members = envMembers('src/env.ts')
  const memberByName = new Map(members.map((m) => [m.name, m]))
  const reads = settingReads('src')
  const rows = tableRows(section(readme, '## Settings')).map((cells) => ({ names: codeSpans(cells[0]), kinds: cells[1].split('/'), defaults: cells[2], text: cells.join(' | ') }))

  /** Each documented setting: its kind and default as the README writes them, and its row's text. */
  const documented = new Map<string, { kind: string; default: string; row: string }>()
  const duplicates: string[] = []
  for (const row of rows) {
    const defaults = row.defaults.split(/,\s+/)
    row.names.forEach((name, i) => {
      if (documented.has(name)) duplicates.push(name)
      const kind = row.kinds.length === row.names.length ? row.kinds[i] : row.kinds.join('/')
      documented.set(name, { kind, default: defaults.length === row.names.length ? defaults[i] : row.defaults, row: row.text })
    })
  }

  it('has one row per member of Env, and the code reads every member and nothing else', () => {
    const read = new Set(reads.map((r) => r.name))
    expect(duplicates, 'settings with two rows').toEqual([])
    expect(
      members.filter((m) => !documented.has(m.name)).map((m) => m.name),
      'Env members without a row',
    ).toEqual([])
    expect(
      [...documented.keys()].filter((n) => !memberByName.has(n)),
      'rows naming no member of Env',
    ).toEqual([])
    expect(
      members.filter((m) => !read.has(m.name)).map((m) => m.name),
      'Env members the code never reads',
    ).toEqual([])
    expect(
      reads.filter((r) => !memberByName.has(r.name)).map((r) => `${r.name} (${r.file}:${r.line})`),
      'settings read but not in Env',
    ).toEqual([])
  })

  it('gives each setting its kind: binding, var, or secret (a string member whose doc starts "Secret.")', () => {
    const wrong: string[] = []
    for (const [name, doc] of documented) {
      const member = memberByName.get(name)
      if (!member) continue
      // A row of several names and fewer kinds ("var/secret" for three) lists the kinds it holds.
      const ok = doc.kind.includes('/') ? doc.kind.split('/').includes(member.kind) : doc.kind === member.kind
      if (!ok) wrong.push(`${name}: README says ${doc.kind}, the code has a ${member.kind}`)
    }
    for (const row of rows.filter((r) => r.kinds.length !== r.names.length)) {
      const kinds = new Set(row.names.map((n) => memberByName.get(n)?.kind))
      if (kinds.size !== new Set(row.kinds).size) wrong.push(`${row.names.join(', ')}: README says ${row.kinds.join('/')}, the code has ${[...kinds].join('/')}`)
    }
    expect(wrong).toEqual([])
  })

  const configNames = new Set(reads.filter((r) => r.file.endsWith('src/config.ts')).map((r) => r.name))
  const flat = (env: Record<string, string>) => flatten(readConfig(env as unknown as Env))
  const defaults = flat({})
  /** The fields of readConfig's result that setting `name` drives, found by setting it to probe values. */
  const fieldsOf = (name: string): string[] => {
    for (const probe of ['7777', 'true', 'platform', 'https://probe.example/x', 'probe@example.com']) {
      const changed = Object.entries(flat({ [name]: probe }))
        .filter(([k, v]) => v !== defaults[k])
        .map(([k]) => k)
      if (changed.length) return changed
    }
    return []
  }

  it("documents readConfig's defaults (calling it with an empty env)", () => {
    expect(configNames.size).toBeGreaterThan(15)
    const wrong: string[] = []
    for (const name of configNames) {
      const doc = documented.get(name)
      const fields = fieldsOf(name)
      if (!doc) continue
      if (fields.length === 0) {
        wrong.push(`${name}: readConfig reads it but no probe value changes its result`)
        continue
      }
      const code = fields.map((f) => rendered(defaults[f]))
      const value = documentedValue(doc.default)
      const other = typeof value === 'string' && memberByName.has(value) ? value : undefined
      if (other) {
        // "default: MAX_BODY_BYTES": the field follows that setting when this one is unset.
        const withOther = flat({ [other]: '7777' })
        if (!fields.some((f) => fieldsOf(other).some((g) => withOther[f] === withOther[g] && withOther[f] !== defaults[f])))
          wrong.push(`${name}: README says it defaults to ${other}, but it does not follow ${other}`)
      } else if (value === undefined || !code.includes(value)) wrong.push(`${name}: README says ${doc.default}, readConfig({}) has ${code.join(' / ')}`)
    }
    expect(wrong).toEqual([])
  })

  it('documents the fallback each other read site takes, and no default the code lacks', () => {
    const wrong: string[] = []
    for (const [name, doc] of documented) {
      const member = memberByName.get(name)
      if (!member || member.kind === 'binding' || configNames.has(name)) continue
      const fallbacks = reads.filter((r) => r.name === name).flatMap((r) => fallbackOf(r) ?? [])
      const literals = [...new Set(fallbacks.flatMap((f) => literal(f, f.getSourceFile()) ?? []).map(rendered))]
      const value = documentedValue(doc.default)
      if (literals.length === 1 && value !== literals[0]) wrong.push(`${name}: README says ${doc.default}, the code falls back to \`${literals[0]}\``)
      if (literals.length > 1) {
        // Defaults that depend on another setting (per embedder): the row names each one.
        const missing = literals.filter((l) => !codeSpans(doc.row).includes(l))
        if (missing.length) wrong.push(`${name}: the code falls back to ${literals.join(', ')}; the row does not name ${missing.join(', ')}`)
      }
      if (literals.length === 0 && value !== undefined && value !== 'unset') wrong.push(`${name}: README says ${doc.default}, the code has no such default`)
    }
    expect(wrong).toEqual([])
  })

  it('matches wrangler.toml: its [vars] hold the documented defaults, its bindings are those of Env', () => {
    const tables = tomlTables(readFileSync('wrangler.toml', 'utf8'))
    const vars = tables.find((t) => t.header === 'vars')?.keys ?? {}
    const bindings = new Set(tables.flatMap((t) => (typeof t.keys.binding?.value === 'string' ? [t.keys.binding.value] : [])))
    const wrong: string[] = []
    for (const [name, { value }] of Object.entries(vars)) {
      const member = memberByName.get(name)
      if (member?.kind !== 'var') wrong.push(`[vars] ${name}: Env has it as ${member?.kind ?? 'nothing'}`)
      const doc = documented.get(name)
      if (doc && documentedValue(doc.default) !== String(value)) wrong.push(`[vars] ${name} = "${String(value)}", README says ${doc.default}`)
    }
    for (const name of bindings) if (memberByName.get(name)?.kind !== 'binding') wrong.push(`wrangler.toml binds ${name}, which is no binding of Env`)
    for (const m of members.filter((m) => m.kind === 'binding')) {
      if (!m.optional && !bindings.has(m.name)) wrong.push(`${m.name}: Env requires it, wrangler.toml does not bind it`)
      const unset = documentedValue(documented.get(m.name)?.default ?? '') === 'unset'
      if (bindings.has(m.name) === unset) wrong.push(`${m.name}: README says ${documented.get(m.name)?.default}, wrangler.toml ${bindings.has(m.name) ? 'binds it' : 'does not bind it'}`)
    }
    expect(wrong).toEqual([])
  })
})

describe("the README's error codes", () => {
  const rows = tableRows(section(readme, '## Error codes'))

  it('are exactly the codes of ERROR_STATUS, each with its status', () => {
    const documented = Object.fromEntries(rows.map((cells) => [codeSpans(cells[0])[0], Number(cells[1])]))
    expect(rows.length, 'one row per code').toBe(Object.keys(documented).length)
    expect(documented).toEqual(ERROR_STATUS)
  })

  it('name only codes the code produces, and the code produces only listed codes', () => {
    // Every string literal in src/ but the code list itself and the OpenAPI text that describes it.
    const strings = sourceStrings('src').filter((s) => !/src\/(http\/errors|interfaces\/openapi)\.ts$/.test(s.file))
    const texts = new Set(strings.map((s) => s.text))
    expect(
      Object.keys(ERROR_STATUS).filter((code) => !texts.has(code)),
      'codes nothing in src/ produces',
    ).toEqual([])
    const emitted = strings.filter((s) => s.emitted)
    expect(emitted.length).toBeGreaterThan(20)
    expect(
      emitted.filter((s) => !(s.text in ERROR_STATUS)).map((s) => `${s.text} (${s.where})`),
      'codes thrown or answered but not listed',
    ).toEqual([])
  })
})

describe("the README's actions", () => {
  const names = actions.map((a) => a.name)
  const text = section(readme, '## Actions')
  const headings = text.split('\n').filter((l) => l.startsWith('### '))
  const named = new Set(headings.flatMap(codeSpans))
  const posted = curlExamples(readme, { TOKEN: 'aak_x' }).flatMap(({ request }) => {
    const m = /^\/v1\/action\/([^/?]+)$/.exec(new URL(request.url).pathname)
    return m ? [{ name: m[1], method: request.method }] : []
  })

  it('give every registered action a ### heading that names it, and name nothing else', () => {
    expect(names.length).toBeGreaterThan(10)
    expect(
      names.filter((n) => !named.has(n)),
      'actions no heading names',
    ).toEqual([])
    // `invoke_agent_<id>` is a family of names, not one registered action.
    expect(
      [...named].filter((n) => !names.includes(n) && !n.includes('<')),
      'headings naming no action',
    ).toEqual([])
  })

  it('give every registered action a curl example that posts to /v1/action/<name>', () => {
    const examples = new Set(posted.filter((p) => p.method === 'POST').map((p) => p.name))
    expect(
      names.filter((n) => !examples.has(n)),
      'actions without a curl example',
    ).toEqual([])
    expect(
      posted.filter((p) => !names.includes(p.name) && !/^invoke_agent_[A-Za-z0-9]+$/.test(p.name)).map((p) => p.name),
      'examples posting to no action',
    ).toEqual([])
  })
})

describe("the README's routes", () => {
  const app = createApp()
  /** Every route the app registers, as "METHOD /path" (middleware, registered for ALL methods, left out). */
  const registered = [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))].map((r) => {
    const [method, path] = r.split(' ')
    return { method, path }
  })
  const mentioned = readmeRoutes(readme)

  it('are found in the README: the app registers the routes this reader expects', () => {
    expect(registered.length).toBeGreaterThan(40)
    expect(mentioned.length).toBeGreaterThan(40)
  })

  it('name every route the app registers', () => {
    const missing = registered.filter((r) => !mentioned.some((m) => m.method === r.method && samePath(m.path, r.path)))
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([])
  })

  it('name no route the app lacks', () => {
    const unknown = mentioned.filter((m) => !registered.some((r) => r.method === m.method && samePath(m.path, r.path)))
    expect(unknown.map((m) => `README.md:${m.line} ${m.method} ${m.path}`)).toEqual([])
  })
})

/** `{a: {b: 1}}` as `{"a.b": 1}`. */
function flatten(value: object, prefix = ''): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v !== null && typeof v === 'object' ? Object.entries(flatten(v as object, `${prefix}${k}.`)) : [[`${prefix}${k}`, v]])))
}

/** A default as the README writes it: `''` is "unset". */
function rendered(value: unknown): string {
  return value === '' || value === undefined ? 'unset' : String(value)
}

/** A README default cell's value: the text of a lone code span, "unset", or undefined for prose ("vendor APIs"). */
function documentedValue(cell: string): string | undefined {
  const code = /^`([^`]*)`$/.exec(cell.trim())
  if (code) return code[1]
  return cell.trim() === 'unset' ? 'unset' : undefined
}

/**
 * Every string literal under `dir`, with where it is; `emitted` marks an error code as the code
 * answers it: the first argument of `new ApiError(...)`, or an upper-case `code:` value (zod's
 * `code: 'custom'` issues are not ours).
 */
function sourceStrings(dir: string): { text: string; file: string; where: string; emitted: boolean }[] {
  const out: { text: string; file: string; where: string; emitted: boolean }[] = []
  for (const file of ts.sys.readDirectory(dir, ['.ts', '.tsx']).filter((f) => !f.endsWith('.d.ts'))) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) {
        const p = n.parent
        const emitted =
          (ts.isNewExpression(p) && p.expression.getText(sf) === 'ApiError' && p.arguments?.[0] === n) ||
          (ts.isPropertyAssignment(p) && p.name.getText(sf) === 'code' && p.initializer === n && /^[A-Z][A-Z0-9_]*$/.test(n.text))
        out.push({ text: n.text, file, where: `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`, emitted })
      }
      n.forEachChild(visit)
    }
    visit(sf)
  }
  return out
}

const METHODS = 'GET|POST|PUT|PATCH|DELETE'
const ROUTE = new RegExp(`^((?:${METHODS})(?:/(?:${METHODS}))*) (\\S+)`)

/**
 * Every "METHOD /path" code span of the README, one entry per method: `GET/POST /v1/tokens`, query
 * strings dropped, `[/mcp]` read both ways. In a table row, `.../:type/:id` continues the row's
 * previous path, and a path without a leading `/` sits under the row's `/prefix/*` (the admin row).
 */
function readmeRoutes(markdown: string): { method: string; path: string; line: number }[] {
  const out: { method: string; path: string; line: number }[] = []
  markdown.split('\n').forEach((text, i) => {
    const prefix = text.startsWith('|') ? codeSpans(text).find((s) => /^\/\S*\/\*$/.test(s)) : undefined
    let previous: string | undefined
    for (const span of codeSpans(text)) {
      const m = ROUTE.exec(span)
      if (!m) continue
      let path = m[2].replace(/\?.*$/, '')
      if (path.startsWith('.../') && previous) {
        const first = path.split('/')[1]
        const segments = previous.split('/')
        const at = segments.lastIndexOf(first)
        path = [...segments.slice(0, at < 0 ? segments.length : at), ...path.split('/').slice(1)].join('/')
      } else if (!path.startsWith('/')) {
        if (!prefix || path.startsWith('<')) continue
        path = `${prefix.slice(0, -1)}${path}`
      }
      previous = path
      const optional = /^(.*)\[([^\]]+)\](.*)$/.exec(path)
      const paths = optional ? [optional[1] + optional[3], optional[1] + optional[2] + optional[3]] : [path]
      for (const method of m[1].split('/')) for (const p of paths) out.push({ method, path: p, line: i + 1 })
    }
  })
  return out
}

/** Do two route paths name the same route? `:param` and `<placeholder>` match any segment; a README `*` matches the rest. */
function samePath(readmePath: string, routePath: string): boolean {
  const a = readmePath.split('/')
  const b = routePath.split('/')
  const isParam = (s: string) => s.startsWith(':') || s.startsWith('<')
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '*' && i === a.length - 1) return b.length >= a.length
    if (i >= b.length) return false
    if (a[i] !== b[i] && !isParam(a[i]) && !isParam(b[i])) return false
  }
  return a.length === b.length
}
