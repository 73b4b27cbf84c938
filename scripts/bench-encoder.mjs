#!/usr/bin/env node
/**
 * `npm run bench:encoder [-- --queries N]`: what one query costs the offline encoder, on the backend
 * the Worker ships (TensorFlow.js WASM, the Worker's own encoder.ts) against the pure-JS CPU backend
 * it replaced, over the same MetaTool query texts in the same run, one query at a time as a search
 * embeds it; and whether the two give the same vectors (stored vectors keep their embedder id only
 * if they do). Last line: `encoder ms/query wasm=<x> cpu=<y> ratio=<cpu/wasm>`.
 */
import * as tf from '@tensorflow/tfjs-core'
import { loadMetaTool } from './lib/metatool.mjs'
import { nodeEncoder } from './lib/node-encoder.mjs'

const args = process.argv.slice(2)
const QUERIES = args.includes('--queries') ? Number(args[args.indexOf('--queries') + 1]) : 100

// Every fifth query of the test half: real query text of every length, the same texts every run.
const texts = loadMetaTool()
  .test.filter((_, i) => i % 5 === 0)
  .slice(0, QUERIES)
  .map((r) => r.query)

const embed = await nodeEncoder()

async function timed(label) {
  await embed(texts.slice(0, 3))
  const ms = []
  const vectors = []
  for (const text of texts) {
    const start = performance.now()
    vectors.push(...(await embed([text])))
    ms.push(performance.now() - start)
  }
  const sorted = [...ms].sort((a, b) => a - b)
  const mean = ms.reduce((s, x) => s + x, 0) / ms.length
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  console.log(`${label} (tfjs backend ${tf.getBackend()}): ${texts.length} queries, mean ${mean.toFixed(1)} ms, p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms`)
  return { mean, vectors }
}

const wasm = await timed('wasm')
// The same encoder, graph and weights, moved to the CPU backend it used before.
await import('@tensorflow/tfjs-backend-cpu')
tf.env().set('IS_NODE', false)
await tf.setBackend('cpu')
const cpu = await timed('cpu')

let maxDiff = 0
let minCosine = 1
wasm.vectors.forEach((v, i) => {
  let dot = 0
  for (let j = 0; j < v.length; j++) {
    maxDiff = Math.max(maxDiff, Math.abs(v[j] - cpu.vectors[i][j]))
    dot += v[j] * cpu.vectors[i][j]
  }
  minCosine = Math.min(minCosine, dot)
})
console.log(`same vectors: largest component difference ${maxDiff.toExponential(2)}, lowest cosine ${minCosine.toFixed(9)}`)
console.log(`encoder ms/query wasm=${wasm.mean.toFixed(1)} cpu=${cpu.mean.toFixed(1)} ratio=${(cpu.mean / wasm.mean).toFixed(1)}`)
