/**
 * MetaTool (../shared/benchmarks/metatool): its 199 tools as agents and its labelled queries, split
 * into a dev half and a test half by a fixed hash of the query text (FNV-1a, even = dev), each half
 * in a fixed order (by hash), so "the first N" is a fixed sample.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parameterText, renderSql } from '../seed/build.mjs'

/** Minimal CSV reader for the two-column file (quoted fields with doubled quotes). */
function parseCsv(text) {
  const rows = []
  let row = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (ch === '"') quoted = false
      else field += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') row.push(field), (field = '')
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(field), rows.push(row), (row = []), (field = '')
    } else field += ch
  }
  if (field || row.length) row.push(field), rows.push(row)
  return rows
}

/** Tool names are identifiers ("ResearchHelper"); as agent names they read as words ("Research Helper"). */
const humanize = (name) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ')

/** FNV-1a, 32 bits, of the query text: the fixed split. */
export const fnv = (text) => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

const params = { type: 'object', properties: {}, required: [], additionalProperties: false }

export function loadMetaTool() {
  const data = join('..', 'shared', 'benchmarks', 'metatool')
  const descriptions = JSON.parse(readFileSync(join(data, 'plugin_des.json'), 'utf8'))
  const agents = Object.keys(descriptions).map((tool, i) => ({
    id: `mt${String(i).padStart(3, '0')}`,
    tool,
    name: humanize(tool),
    description: descriptions[tool],
    param_text: parameterText(params),
    visible: true,
  }))
  const byTool = new Map(agents.map((a) => [a.tool, a]))
  const rows = parseCsv(readFileSync(join(data, 'all_clean_data.csv'), 'utf8'))
    .slice(1)
    .filter((r) => r.length >= 2 && r[0].trim() && byTool.has(r[1].trim()))
    .map(([query, tool]) => ({ query, id: byTool.get(tool.trim()).id }))
  const half = (parity) => rows.filter((r) => fnv(r.query) % 2 === parity).sort((a, b) => fnv(a.query) - fnv(b.query) || (a.query < b.query ? -1 : 1))
  return { agents, rows, dev: half(0), test: half(1) }
}

/** The SQL that loads the MetaTool agents as public agents of one account. */
export function metaToolSql(agents, now = Date.now()) {
  const workflow = { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] }
  return renderSql([
    { sql: 'INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)', params: ['acc_metatool', 'MetaTool', now] },
    ...agents.map((a) => ({
      sql: `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
          VALUES (?, NULL, '/icons/agent.svg', ?, ?, 'public', 'acc_metatool', 'studio', 0, ?, ?, ?, ?, ?)`,
      params: [a.id, a.name, a.description, JSON.stringify(params), JSON.stringify(workflow), a.param_text, now, now],
    })),
  ])
}
