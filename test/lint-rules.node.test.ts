import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const eslint = new ESLint()

/** The rule ids the project's lint reports for `code` placed at `filePath`. */
async function rulesAt(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result.messages.map((m) => m.ruleId ?? 'fatal')
}

/** The lines of `code` at `filePath` that the lint reports under `rule`. */
async function linesAt(filePath: string, code: string, rule: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return [...new Set(result.messages.filter((m) => m.ruleId === rule).map((m) => m.line))]
}

const globalFetch = 'export const get = (url: string) => fetch(url)\n'
const viaGlobalThis = 'export const get = (url: string) => globalThis.fetch(url)\n'
const sqlText = "export const q = 'SELECT id FROM agents WHERE id = ?'\n"
const sqlTemplate = 'export const q = (t: string) => `UPDATE ${t} SET name = ?`\nexport const r = `DELETE FROM runs WHERE id = ?`\nexport const s = (c: string) => `SELECT ${c} FROM agents`\n'
const prepare = "export const q = (db: D1Database) => db.prepare('x')\n"
const prose = "export const m = 'Select one agent from the list, then update its name'\nexport const n = (x: string) => `Update ${x} from the settings`\n"

// An address check whose domain part splits a run of dots every way, and a trailing trim that
// rescans a run of dots from each of them: both cost seconds on a 100,000-character string.
const backtracking = 'export const isEmail = (s: string) => /^[^@]+@[^@]+\\.[^@]+$/.test(s)\n'
const rescanning = "export const bareHost = (s: string) => s.replace(/\\.+$/, '')\n"
const linear = "export const bareHost = (s: string) => s.replace(/(?<!\\.)\\.+$/, '')\n"

// Each throws URIError on text from outside: a lone surrogate, or bad percent-encoding.
const uriBuiltins =
  'export const a = (s: string) => encodeURIComponent(s)\nexport const b = (s: string) => encodeURI(s)\nexport const c = (s: string) => decodeURIComponent(s)\nexport const d = (s: string) => decodeURI(s)\n'
// The same through the global object.
const uriMembers = 'export const a = (s: string) => globalThis.encodeURIComponent(s)\nexport const b = (s: string) => self.decodeURI(s)\nexport const c = (s: string) => globalThis["encodeURI"](s)\n'

describe('the design rules in the lint', () => {
  it('refuses the global fetch outside the guarded client', async () => {
    expect(await rulesAt('src/actions/probe/index.ts', globalFetch)).toEqual(['no-restricted-globals'])
    expect(await rulesAt('src/research/probe.ts', viaGlobalThis)).toEqual(['no-restricted-syntax'])
    expect(await rulesAt('src/db/probe.ts', globalFetch)).toEqual(['no-restricted-globals'])
  })

  it('lets the guarded client and its resolver call fetch', async () => {
    expect(await rulesAt('src/providers/web/fetch.ts', globalFetch)).toEqual([])
    expect(await rulesAt('src/providers/web/dns.ts', globalFetch)).toEqual([])
  })

  it('refuses SQL text and prepared statements outside src/db/, and not prose', async () => {
    expect(await rulesAt('src/agents/probe.ts', sqlText)).toEqual(['no-restricted-syntax'])
    expect(await linesAt('src/agents/probe.ts', sqlTemplate, 'no-restricted-syntax')).toEqual([1, 2, 3])
    expect(await rulesAt('src/runtime/probe.ts', prepare)).toEqual(['no-restricted-syntax'])
    expect(await rulesAt('src/providers/web/fetch.ts', sqlText)).toEqual(['no-restricted-syntax'])
    expect(await rulesAt('src/agents/probe.ts', prose)).toEqual([])
  })

  it('allows SQL in src/db/ and both in tests', async () => {
    expect(await rulesAt('src/db/probe.ts', sqlText + prepare)).toEqual([])
    expect(await rulesAt('test/probe.test.ts', globalFetch + sqlText.replace('q =', 'q2 ='))).toEqual([])
  })

  it('refuses a regex in src/ that backtracks super-linearly (ReDoS), and one that rescans a run where it reads outside text', async () => {
    expect(await rulesAt('src/agents/probe.ts', backtracking)).toEqual(['regexp/no-super-linear-backtracking'])
    expect(await rulesAt('src/crawler/probe.ts', backtracking)).toEqual(['regexp/no-super-linear-backtracking'])
    expect(await rulesAt('src/crawler/probe.ts', rescanning)).toEqual(['regexp/no-super-linear-move'])
    expect(await rulesAt('src/providers/web/probe.ts', rescanning)).toEqual(['regexp/no-super-linear-move'])
    expect(await rulesAt('src/crawler/probe.ts', linear)).toEqual([])
    // Route tables and settings are the project's own text: a rescan there is not an attack.
    expect(await rulesAt('src/http/probe.ts', rescanning)).toEqual([])
    expect(await rulesAt('test/probe.test.ts', backtracking + rescanning)).toEqual([])
  })

  it('refuses the URI built-ins in src/ outside the helpers of lib/text.ts', async () => {
    for (const path of ['src/providers/probe/client.ts', 'src/db/probe.ts', 'src/providers/web/fetch.ts', 'src/reports/probe.tsx']) {
      expect(await linesAt(path, uriBuiltins, 'no-restricted-globals'), path).toEqual([1, 2, 3, 4])
      expect(await linesAt(path, uriMembers, 'no-restricted-syntax'), path).toEqual([1, 2, 3])
    }
    expect(await rulesAt('src/lib/text.ts', uriBuiltins)).toEqual([])
    expect(await rulesAt('test/probe.test.ts', uriBuiltins)).toEqual([])
  })
})
