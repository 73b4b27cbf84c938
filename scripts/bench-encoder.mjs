#!/usr/bin/env node
/**
 * `npm run bench:encoder [-- --queries N] [-- --no-cpu]`: what one query costs the offline encoder,
 * one query at a time as a search embeds it, over the same MetaTool query texts in one run:
 * - the Worker's encoder (src/agents/encoder.ts: the direct pass of encoder-pass.ts on TensorFlow.js's
 *   WASM backend) against the same graph run by tfjs's graph executor on the same backend (what the
 *   Worker did before), each text twice in a row: the first call follows a text of another length
 *   ("mixed", as queries arrive), the second repeats the shape ("same length");
 * - the direct pass on the pure-JS CPU backend the WASM backend replaced (skipped with --no-cpu);
 * and whether all give the same vectors (stored vectors keep their embedder id only if they do).
 * Last line: `encoder ms/query wasm=<x> graph=<g> cpu=<y> ratio=<cpu/wasm> graph_ratio=<g/x> graph_cpu_ratio=<g/x in
 * process CPU time>`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as tf from '@tensorflow/tfjs-core'
import { loadMetaTool } from './lib/metatool.mjs'
import { importTs } from './lib/load-ts.mjs'

const args = process.argv.slice(2)
const QUERIES = args.includes('--queries') ? Number(args[args.indexOf('--queries') + 1]) : 100
const CPU = !args.includes('--no-cpu')

// Every fifth query of the test half: real query text of every length, the same texts every run.
const texts = loadMetaTool()
  .test.filter((_, i) => i % 5 === 0)
  .slice(0, QUERIES)
  .map((r) => r.query)

const { offlineEncoder, Tokenizer } = await importTs('src/agents/encoder.ts')
const fetchAsset = async (path) => new Response(readFileSync(join('assets', path)))
const direct = offlineEncoder(fetchAsset)
const graph = offlineEncoder(fetchAsset, { graph: true })
const tokenizer = new Tokenizer(JSON.parse(readFileSync(join('assets', 'encoder', 'vocab.json'), 'utf8')))
const lengths = texts.map((t) => tokenizer.encode(t).length)

const stats = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { mean: ms.reduce((s, x) => s + x, 0) / ms.length, p50: at(0.5), p95: at(0.95) }
}
const show = (s) => `mean ${s.mean.toFixed(1)} ms, p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`

/** Wall time, and this process's CPU time (less swayed by other processes on a shared machine). */
async function time(encoder, text) {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const [vector] = await encoder.embed([text])
  const used = process.cpuUsage(cpu)
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, vector }
}

await direct.embed(texts.slice(0, 3))
await graph.embed(texts.slice(0, 3))
const runs = { direct: { mixed: [], same: [], cpu: [], vectors: [] }, graph: { mixed: [], same: [], cpu: [], vectors: [] } }
for (const [i, text] of texts.entries()) {
  // Alternate which path goes first, so neither always follows the other's shape.
  const order = i % 2 ? ['direct', 'graph'] : ['graph', 'direct']
  for (const name of order) {
    const encoder = name === 'direct' ? direct : graph
    const first = await time(encoder, text)
    const second = await time(encoder, text)
    runs[name].mixed.push(first.ms)
    runs[name].same.push(second.ms)
    runs[name].cpu.push(first.cpuMs)
    runs[name].vectors.push(first.vector)
  }
}
const meanTokens = lengths.reduce((s, x) => s + x, 0) / lengths.length
console.log(`${texts.length} queries, ${meanTokens.toFixed(1)} tokens mean (${Math.min(...lengths)}-${Math.max(...lengths)}), tfjs backend ${tf.getBackend()}`)
for (const name of ['direct', 'graph']) {
  const label = name === 'direct' ? 'wasm direct pass (shipped)' : 'wasm graph executor (before)'
  console.log(`${label}: mixed lengths ${show(stats(runs[name].mixed))}; same length repeated ${show(stats(runs[name].same))}; process CPU time mixed mean ${stats(runs[name].cpu).mean.toFixed(1)} ms`)
}

function compare(a, b) {
  let maxDiff = 0
  let minCosine = 1
  a.forEach((v, i) => {
    let dot = 0
    for (let j = 0; j < v.length; j++) {
      maxDiff = Math.max(maxDiff, Math.abs(v[j] - b[i][j]))
      dot += v[j] * b[i][j]
    }
    minCosine = Math.min(minCosine, dot)
  })
  return `largest component difference ${maxDiff.toExponential(2)}, lowest cosine ${minCosine.toFixed(9)}`
}
console.log(`same vectors, direct pass vs graph: ${compare(runs.direct.vectors, runs.graph.vectors)}`)

const wasm = stats(runs.direct.mixed).mean
const graphMean = stats(runs.graph.mixed).mean
let cpu = NaN
if (CPU) {
  // The same encoder code and weights, moved to the CPU backend it used before.
  await import('@tensorflow/tfjs-backend-cpu')
  tf.env().set('IS_NODE', false)
  await tf.setBackend('cpu')
  await direct.embed(texts.slice(0, 3))
  const ms = []
  const vectors = []
  for (const text of texts) {
    const run = await time(direct, text)
    ms.push(run.ms)
    vectors.push(run.vector)
  }
  cpu = stats(ms).mean
  console.log(`cpu direct pass: ${show(stats(ms))}`)
  console.log(`same vectors, wasm vs cpu: ${compare(runs.direct.vectors, vectors)}`)
}
console.log(
  `encoder ms/query wasm=${wasm.toFixed(1)} graph=${graphMean.toFixed(1)} cpu=${CPU ? cpu.toFixed(1) : 'skipped'} ratio=${CPU ? (cpu / wasm).toFixed(1) : 'skipped'} graph_ratio=${(graphMean / wasm).toFixed(2)} graph_cpu_ratio=${(stats(runs.graph.cpu).mean / stats(runs.direct.cpu).mean).toFixed(2)}`,
)
