#!/usr/bin/env node
/**
 * `node scripts/eval-query-distill.mjs [--queries N]`: can a search query skip the offline encoder's
 * transformer pass? Measures distilled (static, Model2Vec-style) query encoders against the full
 * encoder on the MetaTool DEV half (the first N dev queries by hash, default 800; the split of
 * eval-search.mjs), agents always embedded by the full encoder as the Worker stores them.
 *
 * Distilled variants, all from one pass of the full encoder over each of its 8,002 vocabulary pieces
 * alone (worker threads):
 * - output mean: the weighted mean of the pieces' final (unit) vectors, SIF weights a / (a + p) with p
 *   from the vocabulary's unigram log-probabilities (a = 0: plain mean), normalized;
 * - the same with the pieces' common direction removed (SIF's first-component removal);
 * - pre-head mean: the weighted mean of what the transformer gives each piece alone, then the
 *   encoder's own pooling output layer (tanh dense, unit length), so only the context is lost.
 * Per variant: fid (mean cosine to the full encoder's vector of the same query), the encoder-alone
 * ranking, and a hybrid proxy in this process (a plain bm25 over name and description, weights 10:4,
 * our stop words, fused as the Worker fuses: 0.45 · r/(r+64) + 0.55 · max(0, cos)), next to
 * lexical-only (r/(r+8)). Last, the full encoder's milliseconds per query, one by one and batched.
 * Embeddings are cached in node_modules/.cache/query-distill/ (the first run
 * embeds every piece and query with the CPU backend: 10-30 minutes on a shared 2-core machine).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

const DIMS = 512
const ROWS = 8002
const RESERVED = 6
const POOLED = 'module_apply_default/Encoder_en/KonaTransformer/div'
const HEAD = 'module/Encoder_en/hidden_layers/tanh_layer_0'
const cache = join('node_modules', '.cache', 'query-distill')

async function loadModel() {
  const tf = await import('@tensorflow/tfjs-core')
  await import('@tensorflow/tfjs-backend-cpu')
  const { loadGraphModel } = await import('@tensorflow/tfjs-converter')
  const artifacts = JSON.parse(readFileSync(join('assets', 'encoder', 'model.json'), 'utf8'))
  const data = readFileSync(join('assets', 'encoder', 'weights.bin'))
  tf.env().set('IS_NODE', false)
  await tf.setBackend('cpu')
  const weightData = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)
  return { tf, model: await loadGraphModel(tf.io.fromMemory({ modelTopology: artifacts.modelTopology, weightSpecs: artifacts.weightSpecs, weightData })) }
}

if (!isMainThread) {
  // Pieces [from, to), each a text of its own: the final vector and the pooled transformer output.
  const { from, to } = workerData
  const { tf, model } = await loadModel()
  const output = new Float32Array((to - from) * DIMS)
  const pooled = new Float32Array((to - from) * DIMS)
  for (let start = from; start < to; start += 64) {
    const ids = Array.from({ length: Math.min(to, start + 64) - start }, (_, i) => start + i)
    const indices = tf.tensor2d(
      ids.map((_, row) => [row, 0]),
      [ids.length, 2],
      'int32',
    )
    const values = tf.tensor1d(ids, 'int32')
    const [o, p] = await model.executeAsync({ indices, values }, [model.outputNodes[0], POOLED])
    output.set(await o.data(), (start - from) * DIMS)
    pooled.set(await p.data(), (start - from) * DIMS)
    tf.dispose([indices, values, o, p])
  }
  const head = from === 0 ? Float32Array.from([...(await model.weights[`${HEAD}/weights`][0].data()), ...(await model.weights[`${HEAD}/bias`][0].data())]) : null
  parentPort.postMessage({ output, pooled, head })
} else await main()

/** The float32 file `name` in the cache, or `make()`'s array written there. */
async function cached(name, make) {
  const file = join(cache, name)
  if (existsSync(file)) {
    const b = readFileSync(file)
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength))
  }
  const made = await make()
  mkdirSync(cache, { recursive: true })
  writeFileSync(file, Buffer.from(made.buffer, made.byteOffset, made.byteLength))
  return made
}

async function pieceTables() {
  const threads = Math.max(1, Math.min(4, availableParallelism()))
  const bounds = Array.from({ length: threads + 1 }, (_, i) => Math.round((i * ROWS) / threads))
  const started = Date.now()
  const results = await Promise.all(
    bounds.slice(0, -1).map(
      (from, i) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { from, to: bounds[i + 1] } })
          worker.once('message', resolve)
          worker.once('error', reject)
        }),
    ),
  )
  console.log(`pieces embedded in ${((Date.now() - started) / 1000).toFixed(0)} s over ${threads} threads`)
  const output = new Float32Array(ROWS * DIMS)
  const pooled = new Float32Array(ROWS * DIMS)
  results.forEach((r, i) => (output.set(r.output, bounds[i] * DIMS), pooled.set(r.pooled, bounds[i] * DIMS)))
  writeFileSync(join(cache, 'pooled.f32'), Buffer.from(pooled.buffer))
  writeFileSync(join(cache, 'head.f32'), Buffer.from(results[0].head.buffer))
  return output
}

async function main() {
  mkdirSync(cache, { recursive: true })
  const args = process.argv.slice(2)
  const n = Number(args[args.indexOf('--queries') + 1]) || 800
  const { importTs } = await import('./lib/load-ts.mjs')
  const { Tokenizer, offlineEncoder } = await importTs('src/agents/encoder.ts')

  const data = join('..', 'shared', 'benchmarks', 'metatool')
  const descriptions = JSON.parse(readFileSync(join(data, 'plugin_des.json'), 'utf8'))
  const humanize = (name) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ')
  const agents = Object.keys(descriptions).map((tool, i) => ({ i, tool, name: humanize(tool), description: descriptions[tool] }))
  const byTool = new Map(agents.map((a) => [a.tool, a]))
  const fnv = (text) => {
    let h = 0x811c9dc5
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
    return h >>> 0
  }
  // Two-column CSV; a query may be quoted with doubled quotes, a tool name never is.
  const rows = readFileSync(join(data, 'all_clean_data.csv'), 'utf8')
    .split(/\r?\n/)
    .slice(1)
    .map((line) => {
      const at = line.lastIndexOf(',')
      let query = line.slice(0, at)
      if (query.startsWith('"') && query.endsWith('"')) query = query.slice(1, -1).replaceAll('""', '"')
      return { query, agent: byTool.get(line.slice(at + 1).trim()) }
    })
    .filter((r) => r.query.trim() && r.agent)
  const qs = rows
    .filter((r) => fnv(r.query) % 2 === 0)
    .sort((a, b) => fnv(a.query) - fnv(b.query) || (a.query < b.query ? -1 : 1))
    .slice(0, n)
  console.log(`MetaTool dev half: ${qs.length} queries, ${agents.length} agents`)

  const encoder = offlineEncoder(async (path) => new Response(readFileSync(join('assets', path))))
  const embedAll = async (texts) => {
    const out = new Float32Array(texts.length * DIMS)
    for (let i = 0; i < texts.length; i += 32) (await encoder.embed(texts.slice(i, i + 32))).forEach((v, k) => out.set(v, (i + k) * DIMS))
    return out
  }
  const rowsOf = (f) => Array.from({ length: f.length / DIMS }, (_, i) => f.subarray(i * DIMS, (i + 1) * DIMS))
  const A = rowsOf(await cached('agents.f32', () => embedAll(agents.map((a) => `${a.name}. ${a.description} `))))
  let t0 = Date.now()
  const TQ = rowsOf(await cached(`dev-${qs.length}.f32`, () => embedAll(qs.map((q) => q.query))))
  console.log(`full encoder: queries ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  const T = await cached('output.f32', pieceTables)
  // pieceTables() writes these two beside its own output.
  if (!existsSync(join(cache, 'pooled.f32')) || !existsSync(join(cache, 'head.f32'))) await pieceTables()
  const P = await cached('pooled.f32')
  const H = await cached('head.f32')

  const vocab = JSON.parse(readFileSync(join('assets', 'encoder', 'vocab.json'), 'utf8'))
  const tok = new Tokenizer(vocab)
  const dot = (a, b) => {
    let s = 0
    for (let i = 0; i < DIMS; i++) s += a[i] * b[i]
    return s
  }
  const unit = (v) => {
    const l = Math.sqrt(dot(v, v))
    if (l > 0) for (let i = 0; i < DIMS; i++) v[i] /= l
    return v
  }
  const weight = (id, a) => (id < RESERVED || id >= vocab.length ? 0 : a === 0 ? 1 : a / (a + Math.exp(vocab[id][1])))

  // bm25 proxy of the lexical part.
  const STOP = new Set(readFileSync(join('src', 'agents', 'query.ts'), 'utf8').match(/STOPWORDS = new Set\(\s*`([^`]*)`/)[1].split(/\s+/).filter(Boolean))
  const stem = (w) => w.replace(/(ies)$/, 'y').replace(/(sses)$/, 'ss').replace(/([^s])s$/, '$1').replace(/(ing|ed)$/, '')
  const words = (t) => (t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem)
  const docs = agents.map((a) => ({ n: words(a.name), d: words(a.description) }))
  const avg = { n: docs.reduce((s, d) => s + d.n.length, 0) / docs.length, d: docs.reduce((s, d) => s + d.d.length, 0) / docs.length }
  const df = new Map()
  for (const d of docs) for (const w of new Set([...d.n, ...d.d])) df.set(w, (df.get(w) ?? 0) + 1)
  const bm25 = (q, d) => {
    let s = 0
    for (const w of new Set((q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((x) => !STOP.has(x)).map(stem))) {
      const m = df.get(w)
      if (!m) continue
      const idf = Math.log((docs.length - m + 0.5) / (m + 0.5) + 1)
      for (const [c, wt] of [['n', 10], ['d', 4]]) {
        const f = d[c].filter((x) => x === w).length
        if (f) s += (wt * idf * (f * 2.2)) / (f + 1.2 * (0.25 + (0.75 * d[c].length) / avg[c]))
      }
    }
    return s
  }
  const R = qs.map((q) => docs.map((d) => bm25(q.query, d)))
  const metrics = (score) => {
    let top1 = 0
    let ndcg = 0
    qs.forEach((q, i) => {
      const s = agents.map((_, j) => score(i, j))
      let rank = 0
      for (const x of s) if (x > s[q.agent.i]) rank++
      if (rank === 0) top1++
      if (rank < 10) ndcg += 1 / Math.log2(rank + 2)
    })
    return `top1=${(top1 / qs.length).toFixed(4)} ndcg10=${(ndcg / qs.length).toFixed(4)}`
  }
  const fused = (Q) => (i, j) => 0.45 * (R[i][j] / (R[i][j] + 64)) + 0.55 * Math.max(0, dot(Q[i], A[j]))
  const report = (name, Q) => {
    const fid = qs.reduce((s, _, i) => s + dot(Q[i], TQ[i]), 0) / qs.length
    console.log(`${name.padEnd(40)} fid=${fid.toFixed(3)}  encoder alone: ${metrics((i, j) => dot(Q[i], A[j]))}  hybrid proxy: ${metrics(fused(Q))}`)
  }
  console.log(`${'lexical only (bm25 proxy)'.padEnd(40)} ${metrics((i, j) => R[i][j] / (R[i][j] + 8))}`)
  report('full encoder', TQ)

  const norms = new Float32Array(ROWS).map((_, id) => Math.sqrt(dot(T.subarray(id * DIMS), T.subarray(id * DIMS))) || 1)
  const outputMean = (text, a) => {
    const v = new Float32Array(DIMS)
    for (const id of tok.encode(text)) {
      const k = weight(id, a) / norms[id]
      for (let d = 0; d < DIMS; d++) v[d] += k * T[id * DIMS + d]
    }
    return unit(v)
  }
  for (const a of [0, 1e-3, 1e-4, 1e-5]) report(`output mean, a=${a}`, qs.map((q) => outputMean(q.query, a)))
  const common = new Float32Array(DIMS)
  for (let id = RESERVED; id < vocab.length; id++) for (let d = 0; d < DIMS; d++) common[d] += T[id * DIMS + d] / norms[id]
  unit(common)
  for (const a of [1e-3, 1e-4]) {
    report(
      `output mean, a=${a}, common removed`,
      qs.map((q) => {
        const v = outputMean(q.query, a)
        const c = dot(v, common)
        for (let d = 0; d < DIMS; d++) v[d] -= c * common[d]
        return unit(v)
      }),
    )
  }
  const preHead = (text, a) => {
    const p = new Float32Array(DIMS)
    let total = 0
    for (const id of tok.encode(text)) {
      const w = weight(id, a)
      total += w
      for (let d = 0; d < DIMS; d++) p[d] += w * P[id * DIMS + d]
    }
    const v = Float32Array.from(H.subarray(DIMS * DIMS))
    if (total > 0) for (let r = 0; r < DIMS; r++) for (let c = 0; c < DIMS; c++) v[c] += (p[r] / total) * H[r * DIMS + c]
    return unit(v.map(Math.tanh))
  }
  for (const a of [0, 1e-3, 1e-4]) report(`pre-head mean + output layer, a=${a}`, qs.map((q) => preHead(q.query, a)))
  t0 = performance.now()
  for (const q of qs) outputMean(q.query, 1e-4)
  console.log(`output mean: ${((performance.now() - t0) / qs.length).toFixed(3)} ms per query in this process`)
  // The full encoder's cost per new query, and whether one graph run for many queries saves much.
  const some = qs.slice(0, 16).map((q) => q.query)
  await encoder.embed(['warm up'])
  t0 = performance.now()
  for (const q of some) await encoder.embed([q])
  const single = performance.now() - t0
  t0 = performance.now()
  await encoder.embed(some)
  const batched = performance.now() - t0
  console.log(`full encoder: ${(single / some.length).toFixed(0)} ms per query one by one, ${(batched / some.length).toFixed(0)} ms per query in one run of ${some.length}`)
}
