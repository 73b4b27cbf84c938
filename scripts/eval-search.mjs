#!/usr/bin/env node
/**
 * `npm run eval:search`: MetaTool's 199 tools loaded as agents, its 20,614 labelled queries sent
 * through the real search action of a local Worker, scored beside a plain BM25 baseline (MiniSearch)
 * over the same texts in the same run. Metrics: top-1 accuracy, recall@5, MRR@10, nDCG@10.
 * Options: --limit N (first N queries, for a quick look), --concurrency N.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import MiniSearch from 'minisearch'
import { renderSql, parameterText } from './seed/build.mjs'
import { createBenchToken, pool, startDevServer } from './lib/devserver.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : fallback
}
const data = join('..', 'shared', 'benchmarks', 'metatool')
const descriptions = JSON.parse(readFileSync(join(data, 'plugin_des.json'), 'utf8'))

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

const tools = Object.keys(descriptions)
const agents = tools.map((tool, i) => ({ id: `mt${String(i).padStart(3, '0')}`, tool, name: humanize(tool), description: descriptions[tool] }))
const byTool = new Map(agents.map((a) => [a.tool, a]))
const rows = parseCsv(readFileSync(join(data, 'all_clean_data.csv'), 'utf8'))
  .slice(1)
  .filter((r) => r.length >= 2 && r[0].trim() && byTool.has(r[1].trim()))
  .map(([query, tool]) => ({ query, id: byTool.get(tool.trim()).id }))
const queries = rows.slice(0, opt('limit', rows.length))

function metrics(rankings) {
  let top1 = 0, r5 = 0, mrr = 0, ndcg = 0
  for (const { ranked, id } of rankings) {
    const pos = ranked.slice(0, 10).indexOf(id)
    if (pos === 0) top1++
    if (pos >= 0 && pos < 5) r5++
    if (pos >= 0) {
      mrr += 1 / (pos + 1)
      ndcg += 1 / Math.log2(pos + 2)
    }
  }
  const n = rankings.length
  return { top1: top1 / n, recall5: r5 / n, mrr10: mrr / n, ndcg10: ndcg / n }
}

// Baseline: MiniSearch's BM25 over name + description, default settings (no stemming, no fuzzy, no prefix).
const mini = new MiniSearch({ fields: ['name', 'description'], storeFields: ['id'] })
mini.addAll(agents)
const baseline = metrics(queries.map(({ query, id }) => ({ id, ranked: mini.search(query).map((r) => r.id) })))

// Ours: the same agents in D1, searched through POST /v1/action/search of the real Worker.
const now = Date.now()
const params = { type: 'object', properties: {}, required: [], additionalProperties: false }
const workflow = { steps: [{ id: 'find', action: 'search', input: { query: 'x' } }] }
const sql = renderSql([
  { sql: 'INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)', params: ['acc_metatool', 'MetaTool', now] },
  ...agents.map((a) => ({
    sql: `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
          VALUES (?, NULL, '/icons/agent.svg', ?, ?, 'public', 'acc_metatool', 'studio', 0, ?, ?, ?, ?, ?)`,
    params: [a.id, a.name, a.description, JSON.stringify(params), JSON.stringify(workflow), parameterText(params), now, now],
  })),
])
const server = await startDevServer({ name: 'eval-search', sql: [sql] })
let ours
try {
  const { token } = await createBenchToken(server, 'eval')
  const started = Date.now()
  let done = 0
  const rankings = await pool(
    queries.map(({ query, id }) => async () => {
      const res = await fetch(`${server.url}/v1/action/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, limit: 10 }),
        signal: AbortSignal.timeout(60_000),
      })
      const body = await res.json()
      if (++done % 2000 === 0) console.log(`... ${done} queries`)
      if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(body)}`)
      return { id, ranked: body.response.map((h) => h.function.metadata.id) }
    }),
    opt('concurrency', 8),
  )
  ours = metrics(rankings)
  console.log(`queries: ${queries.length} through the Worker in ${((Date.now() - started) / 1000).toFixed(1)} s`)
} finally {
  await server.stop()
}

const f = (x) => x.toFixed(4)
console.log('metric      ours     baseline (MiniSearch BM25, name+description)')
for (const k of ['top1', 'recall5', 'mrr10', 'ndcg10']) console.log(`${k.padEnd(10)}  ${f(ours[k])}   ${f(baseline[k])}`)
console.log(`top1 ours=${f(ours.top1)} baseline=${f(baseline.top1)} ndcg10 ours=${f(ours.ndcg10)} baseline=${f(baseline.ndcg10)}`)
