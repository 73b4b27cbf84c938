/**
 * The lexical peers of `npm run eval:search`, configured as a user of each would from its docs, and
 * `--tune-peers`: the grid their options were chosen on (MetaTool dev half only).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import MiniSearch from 'minisearch'

/** Our stop words, read from the search code itself, so a peer filters exactly what we filter. */
export const STOP = new Set(
  readFileSync(join('src', 'agents', 'query.ts'), 'utf8')
    .match(/STOPWORDS = new Set\(\s*`([^`]*)`/)[1]
    .split(/\s+/)
    .filter(Boolean),
)

/** A small suffix stemmer (Porter's step 1 in spirit): enough to fold plurals and -ing/-ed forms. */
const stem = (w) =>
  w
    .replace(/(ies)$/, 'y')
    .replace(/(sses)$/, 'ss')
    .replace(/([^s])s$/, '$1')
    .replace(/(ing|ed)$/, '')
    .replace(/(ation|ations)$/, 'ate')

/**
 * MiniSearch's search options picked by `--tune-peers` on the dev half (best nDCG@10): name and
 * description boosts 10:4, prefix matching, BM25+ with b = 0.5 (documented option `bm25`), and no
 * fuzzy matching (the former configuration, fuzzy 0.2 with the default BM25+ options, had top-1
 * 0.4202 and nDCG@10 0.5501 there against 0.4328 and 0.5593; fuzzy 0.2 is printed as a peer too).
 */
export const MINISEARCH_TUNED = { boost: { name: 10, description: 4 }, fuzzy: 0, prefix: true, bm25: { k: 1.2, b: 0.5, d: 0.5 } }

/** MiniSearch over the agents' names and descriptions: query -> ids, best first. */
export function miniSearchRanker(agents, options) {
  const mini = new MiniSearch({
    fields: ['name', 'description'],
    storeFields: ['id'],
    processTerm: (t) => (STOP.has(t.toLowerCase()) ? null : stem(t.toLowerCase())),
    searchOptions: { ...options, combineWith: 'OR' },
  })
  mini.addAll(agents)
  return (query) => mini.search(query).map((r) => r.id)
}

/** `--tune-peers`: MiniSearch's options over the dev half, best nDCG@10 first. */
export function tunePeers(agents, labels, log = console.log) {
  const rows = []
  for (const boost of [
    { name: 10, description: 4 },
    { name: 2, description: 1 },
    { name: 1, description: 1 },
    { name: 4, description: 1 },
    { name: 1, description: 2 },
  ])
    for (const fuzzy of [0, 0.1, 0.2])
      for (const prefix of [true, false])
        for (const bm25 of [undefined, { k: 1.2, b: 0.5, d: 0.5 }, { k: 2, b: 0.75, d: 0.5 }]) {
          const options = { boost, fuzzy, prefix, ...(bm25 ? { bm25 } : {}) }
          const rank = miniSearchRanker(agents, options)
          let top1 = 0
          let ndcg10 = 0
          for (const { query, id } of labels) {
            const pos = rank(query).slice(0, 10).indexOf(id)
            if (pos === 0) top1++
            if (pos >= 0) ndcg10 += 1 / Math.log2(pos + 2)
          }
          rows.push({ options, top1: top1 / labels.length, ndcg10: ndcg10 / labels.length })
        }
  rows.sort((a, b) => b.ndcg10 - a.ndcg10 || b.top1 - a.top1)
  log(`MiniSearch on the MetaTool dev half (${labels.length} queries), best nDCG@10 first:`)
  for (const r of rows.slice(0, 15)) log(`  top1 ${r.top1.toFixed(4)} ndcg10 ${r.ndcg10.toFixed(4)}  ${JSON.stringify(r.options)}`)
  return rows
}
