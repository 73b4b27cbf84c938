/**
 * Offline scoring of a candidate search-score formula over collected relevance data
 * (calibration-data.mjs), as fuse() in src/agents/hybrid.ts scores: candidates are every lexical match
 * and the 100 agents nearest the query; the page is the 10 best visible candidates by score.
 */
const POPULARITY = 0.02
const CANDIDATES = 100

/** mean and standard deviation of the query's cosines over every agent (the whole vector index). */
export function cosineStats(cos) {
  let s = 0
  let ss = 0
  for (const c of cos) (s += c), (ss += c * c)
  const mean = s / cos.length
  return { mean, sd: Math.sqrt(Math.max(0, ss / cos.length - mean * mean)) }
}

/** The page of one query: [{ i, score }] best first, under `part(r, cos, stats)`. */
export function page({ r, cos }, agents, part, size = 10) {
  const stats = cosineStats(cos)
  const order = cos.map((c, i) => i).sort((a, b) => cos[b] - cos[a] || a - b).slice(0, CANDIDATES)
  const cand = new Set(order)
  r.forEach((x, i) => x > 0 && cand.add(i))
  const hits = []
  for (const i of cand) {
    if (!agents[i].visible) continue
    const e = agents[i].executions ?? 0
    hits.push({ i, score: part(r[i], cos[i], stats) + (POPULARITY * e) / (e + 1000), e })
  }
  hits.sort((a, b) => b.score - a.score || b.e - a.e || a.i - b.i)
  return hits.slice(0, size)
}

/** MetaTool figures (top-1, nDCG@10) of `part` over a sample: [{ id }] labels, data per query. */
export function metaToolFigures(agents, labels, data, part) {
  let top1 = 0
  let ndcg = 0
  labels.forEach(({ id }, q) => {
    const pos = page(data[q], agents, part).findIndex((h) => agents[h.i].id === id)
    if (pos === 0) top1++
    if (pos >= 0) ndcg += 1 / Math.log2(pos + 2)
  })
  return { top1: top1 / labels.length, ndcg10: ndcg / labels.length }
}

/**
 * Dev-set calibration figures of `part`: the highest threshold (to 0.01) keeping 95% of the
 * answerable queries whose labelled agent is on the first page, and the no-match queries it refuses.
 */
export function devSetFigures(agents, devSet, data, part) {
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
  const threshold = Math.floor(found[Math.ceil(0.95 * found.length) - 1] * 100) / 100
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
