/**
 * `npm run eval:search -- --tune-text [--tune-sample N] [--query-variants]`: which text to embed for
 * an agent (and, with --query-variants, for a query), on the MetaTool dev half only. Every variant is
 * scored against the same lexical evidence (the Worker's, cached by calibration-data.mjs) with its
 * own vectors (199 agents: seconds; a query variant re-embeds the dev queries: about 7 minutes each),
 * at the shipped fusion and at the best point of the fusion grid (fusion-grid.mjs), so a text that
 * only wins under other weights shows as such. Also printed per variant: the encoder alone.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { collect, shippedAgentText, shippedQueryText } from './calibration-data.mjs'
import { KS, WEIGHTS } from './fusion-grid.mjs'
import { candidates, devSetFigures, feedbackCosines, metaToolFigures, partOf, SHIPPED_CALIBRATION } from './calibration-fit.mjs'
import { loadMetaTool, metaToolSql } from './metatool.mjs'
import { STOP } from './peers.mjs'
import { buildSeed, parameterText, renderSql } from '../seed/build.mjs'
import { importTs as loadTs } from './load-ts.mjs'

const POPULARITY = 0.02

const { nameWords } = await loadTs('src/agents/embedder.ts')

const clip = (t) => t.replace(/\s+/g, ' ').trim().slice(0, 2000)
/** Only the parameter names: param_text gives each parameter a line starting with its name. */
const paramNames = (p) =>
  p
    .split('\n')
    .map((l) => l.split(' ')[0])
    .filter(Boolean)
    .join(' ')

/** Agent texts: each a pure function of the stored fields, as the Worker's agentText is. */
export const AGENT_TEXTS = {
  shipped: shippedAgentText,
  'name. description params (as typed)': (a) => `${a.name}. ${a.description} ${a.param_text}`.slice(0, 2000),
  'name. description (no params)': (a) => clip(`${a.name}. ${a.description}`),
  'name. description param-names': (a) => clip(`${a.name}. ${a.description} ${paramNames(a.param_text)}`),
  'description only': (a) => clip(a.description),
  'description params': (a) => clip(`${a.description} ${a.param_text}`),
  'description. name': (a) => clip(`${a.description} ${a.name}.`),
  'description (name: …) params': (a) => clip(`${a.description} (${a.name}) ${a.param_text}`),
  'name: description params': (a) => clip(`${a.name}: ${a.description} ${a.param_text}`),
  'name-words. description params': (a) => clip(`${nameWords(a.name)}. ${a.description} ${a.param_text}`),
  'name-words lower. description params': (a) => clip(`${nameWords(a.name).toLowerCase()}. ${a.description} ${a.param_text}`),
  'name-words. description (no params)': (a) => clip(`${nameWords(a.name)}. ${a.description}`),
  'name lower. description params': (a) => clip(`${a.name.toLowerCase()}. ${a.description} ${a.param_text}`),
  'name-words lower: description params': (a) => clip(`${nameWords(a.name).toLowerCase()}: ${a.description} ${a.param_text}`),
  'name-words lower. description (no params)': (a) => clip(`${nameWords(a.name).toLowerCase()}. ${a.description}`),
  'description. name-words lower': (a) => clip(`${a.description} ${nameWords(a.name).toLowerCase()}.`),
  'name twice: name. name: description params': (a) => clip(`${a.name}. ${a.name}: ${a.description} ${a.param_text}`),
  'all lower-cased': (a) => shippedAgentText(a).toLowerCase(),
  // Several texts, their vectors summed with these weights (calibration-data.mjs agentVectors).
  'mean(shipped, name-words)': (a) => [
    [shippedAgentText(a), 1],
    [nameWordsLower(a), 1],
  ],
  'shipped + 0.5 name-words': (a) => [
    [shippedAgentText(a), 1],
    [nameWordsLower(a), 0.5],
  ],
  'mean(shipped, description)': (a) => [
    [shippedAgentText(a), 1],
    [clip(a.description), 1],
  ],
  'mean(name-words, description, params)': (a) => [[nameWordsLower(a), 1], [clip(a.description), 1], ...(a.param_text.trim() ? [[clip(a.param_text), 1]] : [])],
  'mean(name-words: sentence) by sentence': (a) => sentences(a.description).map((x) => [`${nameWordsLower(a)}: ${x}`, 1]),
  'shipped + mean of sentences': (a) => [[shippedAgentText(a), 1], ...sentences(a.description).map((x, _, all) => [x, 1 / all.length])],
}

function nameWordsLower(a) {
  return nameWords(a.name).toLowerCase()
}

/** A description's sentences (at least one: the whole text). */
function sentences(text) {
  const parts = clip(text)
    .split(/(?<=[.!?])\s+(?=\p{Lu})/u)
    .filter((x) => x.length > 0)
  return parts.length > 0 ? parts : [clip(text) || ' ']
}

/** Query texts (the Worker would apply the same before embedding a query). */
export const QUERY_TEXTS = {
  'lower-cased query, name-words lower agents': { query: (q) => shippedQueryText(q).toLowerCase(), agent: AGENT_TEXTS['name-words lower. description params'] },
  'query without stop words, name-words lower agents': {
    query: (q) =>
      shippedQueryText(q)
        .split(' ')
        .filter((w) => !STOP.has(w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '')))
        .join(' ') || shippedQueryText(q),
    agent: AGENT_TEXTS['name-words lower. description params'],
  },
}

/**
 * top-1 and nDCG@10 of every (w, K), exactly as calibration-fit.mjs's page() ranks (candidates: the
 * 100 nearest by cosine and every lexical match; the cosines of the query moved toward each cell's
 * first ranking; ties: executions, then position), but counting who beats the labelled agent
 * instead of sorting each page.
 */
function gridFigures(agents, labels, data, cells) {
  const slot = new Map(agents.map((a, i) => [a.id, i]))
  const sums = cells.map(() => ({ top1: 0, ndcg10: 0 }))
  labels.forEach(({ id }, q) => {
    const { r } = data[q]
    const cand = candidates(data[q])
    const t = slot.get(id)
    if (!cand.has(t) || !agents[t].visible) return
    const list = [...cand].filter((i) => agents[i].visible)
    const pop = (i) => {
      const e = agents[i].executions ?? 0
      return (POPULARITY * e) / (e + 1000)
    }
    cells.forEach((part, c) => {
      const cos = feedbackCosines(data[q], agents, part, cand)
      const ts = part(r[t], cos[t]) + pop(t)
      const te = agents[t].executions ?? 0
      let above = 0
      for (const i of list) {
        if (i === t) continue
        const s = part(r[i], cos[i]) + pop(i)
        const e = agents[i].executions ?? 0
        if (s > ts || (s === ts && (e > te || (e === te && i < t)))) above++
        if (above >= 10) break
      }
      if (above === 0) sums[c].top1++
      if (above < 10) sums[c].ndcg10 += 1 / Math.log2(above + 2)
    })
  })
  return sums.map((s) => ({ top1: s.top1 / labels.length, ndcg10: s.ndcg10 / labels.length }))
}

export async function tuneText({ sample = Infinity, queryVariants = false, only = '', log = console.log } = {}) {
  const calibration = SHIPPED_CALIBRATION
  const { LEXICAL_WEIGHT, LEXICAL_K } = calibration
  const devSet = JSON.parse(readFileSync(join('test', 'fixtures', 'search-dev-set.json'), 'utf8'))
  const demo = JSON.parse(readFileSync(join('scripts', 'seed', 'demo-agents.json'), 'utf8'))
  const demoAgents = demo.map((a) => ({ id: a.id, name: a.name, description: a.description, param_text: parameterText(a.parameters), executions: a.executions, visible: a.visibility === 'public' }))
  const demoSql = renderSql(buildSeed(demo))
  const mt = loadMetaTool()
  const labels = mt.dev.slice(0, sample)
  const sql = metaToolSql(mt.agents)
  const grid = WEIGHTS.flatMap((w) => KS.map((k) => ({ w, k })))
  // Each cell through the shipped logistic map, as fusion-grid.mjs scores its cells.
  const cells = [partOf(calibration), (r, cos) => cos, ...grid.map(({ w, k }) => partOf({ ...calibration, LEXICAL_WEIGHT: w, LEXICAL_K: k }))]
  const variants = [
    ...Object.entries(AGENT_TEXTS).map(([name, agent]) => ({ name, agent, query: shippedQueryText })),
    ...(queryVariants ? Object.entries(QUERY_TEXTS).map(([name, v]) => ({ name, ...v })) : []),
  ].filter((v) => v.name === 'shipped' || v.name.includes(only))
  const rows = []
  for (const v of variants) {
    const started = Date.now()
    const data = await collect({ name: 'tune-metatool', sql, agents: mt.agents, queries: labels.map((q) => q.query), agentText: v.agent, queryText: v.query, log })
    const [shipped, encoder, ...g] = gridFigures(mt.agents, labels, data, cells)
    if (rows.length === 0) {
      // The counting shortcut must rank exactly as page() does.
      const check = metaToolFigures(mt.agents, labels, data, cells[0])
      if (Math.abs(check.top1 - shipped.top1) > 1e-12 || Math.abs(check.ndcg10 - shipped.ndcg10) > 1e-12)
        throw new Error(`grid figures ${JSON.stringify(shipped)} differ from page()'s ${JSON.stringify(check)}`)
    }
    const dev = devSetFigures(
      demoAgents,
      devSet,
      await collect({ name: 'fit-dev-set', sql: demoSql, agents: demoAgents, queries: devSet.map((e) => e.query), agentText: v.agent, queryText: v.query, log }),
      partOf(calibration),
    )
    const bi = g.reduce((b, x, i) => (x.ndcg10 > g[b].ndcg10 || (x.ndcg10 === g[b].ndcg10 && x.top1 > g[b].top1) ? i : b), 0)
    rows.push({ name: v.name, shipped, encoder, best: g[bi], at: grid[bi], dev })
    log(`${v.name}: scored in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  const f = (x) => x.toFixed(4)
  log(`\nMetaTool dev half (${labels.length} queries): agent/query text variants`)
  log('(our dev set, shipped calibration: top-1 of its answerable queries, no-match queries refused at the min_score keeping 95%)')
  log(`${'variant'.padEnd(46)} ${`w=${LEXICAL_WEIGHT} K=${LEXICAL_K}`.padEnd(15)}  ${'best grid point'.padEnd(26)}  ${'encoder alone'.padEnd(15)}  our dev set`)
  log(`${''.padEnd(46)} ${'top1   ndcg10'.padEnd(15)}  ${'top1   ndcg10 (w, K)'.padEnd(26)}  ${'top1   ndcg10'.padEnd(15)}  top1     refused`)
  for (const x of rows) {
    const best = `${f(x.best.top1)} ${f(x.best.ndcg10)} (${x.at.w}, ${x.at.k})`
    const dev = `${x.dev.top1}/${x.dev.answerable}  ${x.dev.refused}/${x.dev.noMatch} at ${x.dev.threshold.toFixed(2)}`
    log(`${x.name.padEnd(46)} ${f(x.shipped.top1)} ${f(x.shipped.ndcg10)}  ${best.padEnd(26)}  ${f(x.encoder.top1)} ${f(x.encoder.ndcg10)}  ${dev}`)
  }
  return rows
}
