/**
 * Offline scoring of a candidate search-score formula over collected relevance data
 * (calibration-data.mjs), as src/agents/search.ts ranks a hybrid search: candidates are every lexical
 * match and the 100 agents nearest the query; they are ranked, the query's vector is moved toward the
 * FEEDBACK_AGENTS best visible ones (those clearing feedbackLeast; hybrid.ts), and they
 * are ranked again by that vector's cosines;
 * the page is the 10 best visible candidates by score.
 */
import { importTs as loadTs } from './load-ts.mjs'

const { FEEDBACK_AGENTS, FEEDBACK_WEIGHT, feedbackLeast } = await loadTs('src/agents/hybrid.ts')
/** The shipped calibration constants (LEXICAL_WEIGHT, LEXICAL_K, SLOPE, OFFSET), from the Worker's source. */
export const SHIPPED_CALIBRATION = { ...(await loadTs('src/agents/calibration.ts')) }
/** The shipped pseudo-relevance feedback (`agents: 0`: none). */
export const SHIPPED_FEEDBACK = { agents: FEEDBACK_AGENTS, weight: FEEDBACK_WEIGHT }
const POPULARITY = 0.02
const CANDIDATES = 100

/** The candidates of one query: the CANDIDATES nearest by cosine and every lexical match. */
export function candidates({ r, cos }) {
  const cand = new Set(
    cos
      .map((c, i) => i)
      .sort((a, b) => cos[b] - cos[a] || a - b)
      .slice(0, CANDIDATES),
  )
  r.forEach((x, i) => x > 0 && cand.add(i))
  return cand
}

/** The visible candidates by score under `part(r, cos)`: [{ i, p (the part), score, e }] best first. */
function ranked(r, cos, cand, agents, part) {
  const hits = []
  for (const i of cand) {
    if (!agents[i].visible) continue
    const e = agents[i].executions ?? 0
    const p = part(r[i], cos[i])
    hits.push({ i, p, score: p + (POPULARITY * e) / (e + 1000), e })
  }
  return hits.sort((a, b) => b.score - a.score || b.e - a.e || a.i - b.i)
}

/** The cosines the final ranking of one query uses under `part`: those of its moved vector. */
export function feedbackCosines(d, agents, part, cand = candidates(d), feedback = SHIPPED_FEEDBACK) {
  if (feedback.agents === 0) return d.cos
  const best = ranked(d.r, d.cos, cand, agents, part).slice(0, feedback.agents)
  const least = feedbackLeast(best.map((h) => h.p))
  return d.moved(
    best.filter((h) => h.p >= least).map((h) => h.i),
    feedback.weight,
  )
}

/** The page of one query: [{ i, score, e }] best first, under `part(r, cos)`. */
export function page(d, agents, part, size = 10, feedback = SHIPPED_FEEDBACK) {
  const cand = candidates(d)
  return ranked(d.r, feedbackCosines(d, agents, part, cand, feedback), cand, agents, part).slice(0, size)
}

/** MetaTool figures (top-1, nDCG@10) of `part` over a sample: [{ id }] labels, data per query. */
export function metaToolFigures(agents, labels, data, part, feedback = SHIPPED_FEEDBACK) {
  let top1 = 0
  let ndcg = 0
  labels.forEach(({ id }, q) => {
    const pos = page(data[q], agents, part, 10, feedback).findIndex((h) => agents[h.i].id === id)
    if (pos === 0) top1++
    if (pos >= 0) ndcg += 1 / Math.log2(pos + 2)
  })
  return { top1: top1 / labels.length, ndcg10: ndcg / labels.length }
}

/**
 * Dev-set calibration figures of `part`: the highest threshold (to 0.01) keeping 95% of the
 * answerable queries whose labelled agent is on the first page, and the no-match queries it refuses.
 */
export function devSetFigures(agents, devSet, data, part, { exact = false } = {}) {
  const found = []
  const noMatchBest = []
  let top1 = 0
  devSet.forEach((e, q) => {
    const hits = page(data[q], agents, part)
    if (e.kind === 'none') return noMatchBest.push(hits[0]?.score ?? 0)
    const h = hits.find((x) => e.relevant.includes(agents[x.i].id))
    if (h) found.push(h.score)
    if (h && hits[0] === h) top1++
  })
  found.sort((a, b) => b - a)
  const at = found[Math.ceil(0.95 * found.length) - 1]
  const threshold = exact ? at : Math.floor(at * 100) / 100
  return {
    answerable: devSet.length - noMatchBest.length,
    top1,
    found: found.length,
    threshold,
    kept: found.filter((s) => s >= threshold).length,
    refused: noMatchBest.filter((s) => s < threshold).length,
    noMatch: noMatchBest.length,
    foundMedian: found[found.length >> 1],
    noMatchMedian: noMatchBest.sort((a, b) => a - b)[noMatchBest.length >> 1],
  }
}

const sigmoid = (x) => 1 / (1 + Math.exp(-x))

/** The raw evidence of src/agents/calibration.ts under constants `c`. */
export const rawOf = (c) => (r, cos) => c.LEXICAL_WEIGHT * (r > 0 ? r / (r + c.LEXICAL_K) : 0) + (1 - c.LEXICAL_WEIGHT) * Math.max(0, cos)
/** The calibrated part under constants `c`. */
export const partOf = (c) => {
  const raw = rawOf(c)
  return (r, cos) => 0.98 * sigmoid(c.SLOPE * (raw(r, cos) - c.OFFSET))
}

/** SLOPE and OFFSET: logistic regression (Newton's method) of "the best hit is a right answer" on its raw evidence. */
function logistic(d, weights) {
  const raw = rawOf(weights)
  const samples = []
  const add = (agents, data, q, right) => {
    const h = page(data[q], agents, raw, 1)[0]
    if (h) samples.push({ x: h.score - (POPULARITY * h.e) / (h.e + 1000), y: right(agents[h.i].id) ? 1 : 0 })
  }
  d.mtSample.forEach(({ id }, q) => add(d.mtAgents, d.mtd, q, (x) => x === id))
  d.devSet.forEach((e, q) => add(d.demoAgents, d.dev, q, (x) => e.relevant.includes(x)))
  let w0 = 0
  let w1 = 0
  for (let it = 0; it < 50; it++) {
    let g0 = 0, g1 = 0, h00 = 0, h01 = 0, h11 = 0
    for (const { x, y } of samples) {
      const p = sigmoid(w0 + w1 * x)
      const w = p * (1 - p)
      g0 += y - p
      g1 += (y - p) * x
      h00 += w
      h01 += w * x
      h11 += w * x * x
    }
    const det = h00 * h11 - h01 * h01
    w0 += (h11 * g0 - h01 * g1) / det
    w1 += (h00 * g1 - h01 * g0) / det
  }
  return { ...weights, SLOPE: Math.round(w1 * 1000) / 1000, OFFSET: Math.round((-w0 / w1) * 10000) / 10000, samples }
}

/**
 * Fits the constants: for each pair of weights on a grid, SLOPE and OFFSET by logistic regression;
 * kept are those whose MetaTool dev figures (top-1, nDCG@10) do not drop below the uncalibrated
 * fusion's (0.45, 64), and among them the one refusing the most no-match dev-set queries at the
 * threshold keeping 95% of the answerable ones found (ties: the higher MetaTool figures).
 * `weights` ([LEXICAL_WEIGHT, LEXICAL_K]) fixes the pair (chosen for ranking by `--tune`) and fits
 * only SLOPE and OFFSET.
 * @param d { demoAgents, devSet, dev, mtAgents, mtSample, mtd } from calibration-data.mjs
 */
export function fit(d, log = console.log, weights = null) {
  const judge = (w) => {
    const c = logistic(d, w)
    const part = partOf(c)
    return { c, mt: metaToolFigures(d.mtAgents, d.mtSample, d.mtd, part), dev: devSetFigures(d.demoAgents, d.devSet, d.dev, part, { exact: true }) }
  }
  const linear = (r, cos) => 0.98 * rawOf({ LEXICAL_WEIGHT: 0.45, LEXICAL_K: 64 })(r, cos)
  const b = { mt: metaToolFigures(d.mtAgents, d.mtSample, d.mtd, linear), dev: devSetFigures(d.demoAgents, d.devSet, d.dev, linear, { exact: true }) }
  log(`uncalibrated fusion (0.45, 64): MetaTool dev top-1 ${b.mt.top1.toFixed(4)} nDCG@10 ${b.mt.ndcg10.toFixed(4)}; dev set refuses ${b.dev.refused} of ${b.dev.noMatch}`)
  let best = null
  const grid = weights ? [weights[0]] : [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]
  for (const LEXICAL_WEIGHT of grid)
    for (const LEXICAL_K of weights ? [weights[1]] : [8, 16, 24, 32, 48, 64, 96, 128, 192]) {
      const j = judge({ LEXICAL_WEIGHT, LEXICAL_K })
      log(`  ${LEXICAL_WEIGHT} ${LEXICAL_K}: MetaTool dev ${j.mt.top1.toFixed(4)} ${j.mt.ndcg10.toFixed(4)}; dev set found ${j.dev.found} refuses ${j.dev.refused}`)
      if (!weights && (j.mt.top1 < b.mt.top1 || j.mt.ndcg10 < b.mt.ndcg10)) continue
      if (!best || j.dev.refused > best.dev.refused || (j.dev.refused === best.dev.refused && j.mt.top1 + j.mt.ndcg10 > best.mt.top1 + best.mt.ndcg10)) best = j
    }
  const { samples, ...c } = best.c
  const dev = devSetFigures(d.demoAgents, d.devSet, d.dev, partOf(c))
  log(`logistic fit over ${samples.length} best hits (${samples.filter((s) => s.y).length} right)`)
  log(`calibrated: MetaTool dev top-1 ${best.mt.top1.toFixed(4)} nDCG@10 ${best.mt.ndcg10.toFixed(4)}; dev set: min_score ${dev.threshold.toFixed(2)} keeps ${dev.kept} of ${dev.found} found, refuses ${dev.refused} of ${dev.noMatch} no-match queries`)
  log('constants for src/agents/calibration.ts:')
  for (const [k, v] of Object.entries(c)) log(`export const ${k} = ${v}`)
  return { c, dev, mt: best.mt }
}
