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
})
