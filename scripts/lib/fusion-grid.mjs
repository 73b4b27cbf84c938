/**
 * `npm run eval:search -- --tune [--tune-sample N]`: the fusion's weights on the MetaTool dev half
 * (its first N queries by hash, default all of them): MetaTool top-1 and nDCG@10 of
 * raw = w · r / (r + K) + (1 - w) · max(0, cos) for each (w, K) on a grid, scored offline over the
 * Worker's own lexical relevance and the index's cosines (calibration-data.mjs) as the Worker ranks,
 * each cell through the shipped logistic map (SLOPE, OFFSET), so that the feedback's least part and
 * popularity's tie-breaking act on the part as in the Worker; at the shipped (w, K) this is exactly
 * the Worker's ranking, elsewhere the map is not the one a fit would give that cell. Pick on
 * nDCG@10 with top-1 as tie-break, preferring round values where the optimum is flat: the printed
 * neighbourhood shows how flat it is.
 */
import { metaToolFigures, partOf, SHIPPED_CALIBRATION, SHIPPED_FEEDBACK } from './calibration-fit.mjs'
import { collect } from './calibration-data.mjs'
import { loadMetaTool, metaToolSql } from './metatool.mjs'

export const WEIGHTS = [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]
export const KS = [8, 16, 24, 32, 48, 64, 96, 128, 192]

export async function tune({ sample = Infinity, log = console.log } = {}) {
  const mt = loadMetaTool()
  const labels = mt.dev.slice(0, sample)
  const started = Date.now()
  const data = await collect({ name: 'tune-metatool', sql: metaToolSql(mt.agents), agents: mt.agents, queries: labels.map((q) => q.query), log })
  log(`MetaTool dev half: ${labels.length} queries' evidence in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const rows = []
  for (const LEXICAL_WEIGHT of WEIGHTS)
    for (const LEXICAL_K of KS) rows.push({ LEXICAL_WEIGHT, LEXICAL_K, ...metaToolFigures(mt.agents, labels, data, partOf({ ...SHIPPED_CALIBRATION, LEXICAL_WEIGHT, LEXICAL_K })) })
  const lexical = metaToolFigures(mt.agents, labels, data, (r) => r)
  const semantic = metaToolFigures(mt.agents, labels, data, (r, cos) => cos)
  log(`lexical alone: top-1 ${lexical.top1.toFixed(4)} nDCG@10 ${lexical.ndcg10.toFixed(4)}; index cosine alone (with the feedback): top-1 ${semantic.top1.toFixed(4)} nDCG@10 ${semantic.ndcg10.toFixed(4)}`)
  log(`nDCG@10 / top-1 on the MetaTool dev half (${labels.length} queries); rows: lexical weight, columns: K`)
  log(`w     ${KS.map((k) => String(k).padEnd(15)).join(' ')}`)
  for (const w of WEIGHTS) {
    const cells = KS.map((k) => rows.find((x) => x.LEXICAL_WEIGHT === w && x.LEXICAL_K === k)).map((x) => `${x.ndcg10.toFixed(4)}/${x.top1.toFixed(4)}`)
    log(`${w.toFixed(2)}  ${cells.join(' ')}`)
  }
  const best = [...rows].sort((a, b) => b.ndcg10 - a.ndcg10 || b.top1 - a.top1)
  log('best by nDCG@10 (top-1 breaks ties):')
  for (const x of best.slice(0, 10)) log(`  w=${x.LEXICAL_WEIGHT} K=${x.LEXICAL_K}: nDCG@10 ${x.ndcg10.toFixed(4)} top-1 ${x.top1.toFixed(4)}`)
  return { rows, data, labels, agents: mt.agents }
}

/**
 * `npm run eval:search -- --tune-feedback [--tune-sample N]`: the pseudo-relevance feedback
 * (src/agents/hybrid.ts FEEDBACK_AGENTS, FEEDBACK_WEIGHT) on the MetaTool dev half, at the shipped
 * calibration: top-1 and nDCG@10 for each number of feedback agents and weight (0 agents: none).
 */
export async function tuneFeedback({ sample = Infinity, log = console.log } = {}) {
  const mt = loadMetaTool()
  const labels = mt.dev.slice(0, sample)
  const data = await collect({ name: 'tune-metatool', sql: metaToolSql(mt.agents), agents: mt.agents, queries: labels.map((q) => q.query), log })
  const part = partOf(SHIPPED_CALIBRATION)
  const none = metaToolFigures(mt.agents, labels, data, part, { agents: 0 })
  log(`MetaTool dev half (${labels.length} queries), shipped calibration; no feedback: nDCG@10 ${none.ndcg10.toFixed(4)} top-1 ${none.top1.toFixed(4)}`)
  const weights = [0.25, 0.5, 0.75, 1, 1.5]
  log(`nDCG@10 / top-1; rows: feedback agents, columns: weight (shipped: ${SHIPPED_FEEDBACK.agents} at ${SHIPPED_FEEDBACK.weight})`)
  log(`agents ${weights.map((w) => String(w).padEnd(15)).join(' ')}`)
  for (const agents of [1, 3, 5, 8, 12, 16, 24]) {
    const cells = weights.map((weight) => metaToolFigures(mt.agents, labels, data, part, { agents, weight })).map((x) => `${x.ndcg10.toFixed(4)}/${x.top1.toFixed(4)}`)
    log(`${String(agents).padEnd(6)} ${cells.join(' ')}`)
  }
}
