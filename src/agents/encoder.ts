/**
 * The offline sentence encoder: Universal Sentence Encoder Lite (512 dimensions, Apache-2.0), run by
 * TensorFlow.js's WASM backend inside the Worker (tf-wasm.ts). Its graph, 8-bit weights and
 * vocabulary are static assets (scripts/build-encoder.mjs), read through the ASSETS binding once per
 * isolate, so the Worker bundle carries only the runtime.
 */
import * as tf from '@tensorflow/tfjs-core'
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter'
import { IsolateOnce } from '../lib/isolate-lease'
import { encoderPass, type EncoderPass } from './encoder-pass'
import { useWasmBackend } from './tf-wasm'

/** Where the encoder's files are, to a `fetch` like the ASSETS binding's. */
export type AssetFetch = (path: string) => Promise<Response>

export const ENCODER_DIMENSIONS = 512
/** Tokens past this many are dropped: task descriptions are short, and cost grows with length. */
const MAX_TOKENS = 128
const WORD_START = '\u2581'
/** Vocabulary entries 0-5 are reserved (0 is the unknown piece). */
const RESERVED = 6

/**
 * Splits text into the vocabulary's pieces with the highest total log-probability (the unigram
 * model's Viterbi path). A character no piece covers becomes the unknown piece, runs of them one.
 */
export class Tokenizer {
  private readonly pieces = new Map<string, { id: number; score: number }>()
  private readonly longest: number
  private readonly unknownScore: number

  constructor(vocabulary: [string, number][]) {
    let longest = 1
    let lowest = 0
    for (let id = RESERVED; id < vocabulary.length; id++) {
      const [piece, score] = vocabulary[id]
      this.pieces.set(piece, { id, score })
      longest = Math.max(longest, [...piece].length)
      lowest = Math.min(lowest, score)
    }
    this.longest = longest
    this.unknownScore = lowest - 10
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC').trim().replace(/\s+/g, ' ')
    if (!normalized) return []
    const chars = [...(WORD_START + normalized.replaceAll(' ', WORD_START))]
    const n = chars.length
    const best = new Float64Array(n + 1).fill(-Infinity)
    const from = new Int32Array(n + 1)
    const ids = new Int32Array(n + 1)
    best[0] = 0
    for (let start = 0; start < n; start++) {
      if (best[start] === -Infinity) continue
      let piece = ''
      for (let end = start + 1; end <= Math.min(n, start + this.longest); end++) {
        piece += chars[end - 1]
        const hit = this.pieces.get(piece)
        if (!hit) continue
        const score = best[start] + hit.score
        if (score > best[end]) {
          best[end] = score
          from[end] = start
          ids[end] = hit.id
        }
      }
      const unknown = best[start] + this.unknownScore
      if (unknown > best[start + 1]) {
        best[start + 1] = unknown
        from[start + 1] = start
        ids[start + 1] = 0
      }
    }
    const out: number[] = []
    for (let end = n; end > 0; end = from[end]) out.push(ids[end])
    out.reverse()
    return out.filter((id, i) => id !== 0 || out[i - 1] !== 0).slice(0, MAX_TOKENS)
  }
}

export interface SentenceEncoder {
  /** Unit-length embeddings, one per text. */
  embed(texts: string[]): Promise<Float32Array[]>
}

interface Loaded {
  tokenizer: Tokenizer
  model: GraphModel
  /** The direct pass over the model's weights (null: the graph is not the one it knows). */
  pass: EncoderPass | null
}

/**
 * The encoder of this isolate: loaded once (27 MB of weights once dequantized, too much to load per
 * concurrent request), by one request in its own context; see isolate-lease.ts for why the others do
 * not await its promise. A load silent for 5 s is taken over; a failed one is tried again.
 */
const encoder = new IsolateOnce<Loaded>({ staleMs: 5_000, pollMs: 20 }, (extra) => extra.model.dispose())

async function load(fetchAsset: AssetFetch, beat: () => void): Promise<Loaded> {
  const [modelRes, weightsRes, vocabRes] = await Promise.all(['encoder/model.json', 'encoder/weights.bin', 'encoder/vocab.json'].map((p) => fetchAsset(p)))
  for (const res of [modelRes, weightsRes, vocabRes]) {
    if (!res.ok) throw new Error(`encoder asset missing (HTTP ${res.status}): run node scripts/build-encoder.mjs`)
  }
  beat()
  const artifacts = (await modelRes.json()) as { modelTopology: object; weightSpecs: tf.io.WeightsManifestEntry[] }
  const weightData = await weightsRes.arrayBuffer()
  const vocabulary = (await vocabRes.json()) as [string, number][]
  beat()
  // nodejs_compat makes tfjs take workerd for Node and pick Node-only code paths; it is not Node.
  tf.env().set('IS_NODE', false)
  await useWasmBackend()
  beat()
  const model = await loadGraphModel(tf.io.fromMemory({ modelTopology: artifacts.modelTopology, weightSpecs: artifacts.weightSpecs, weightData }))
  return { tokenizer: new Tokenizer(vocabulary), model, pass: encoderPass(model) }
}

/**
 * The offline encoder, loaded on first use by this isolate. Texts go one at a time through the direct
 * pass (encoder-pass.ts); `graph: true` runs tfjs's graph executor instead, as the reference the
 * direct pass is measured against (and the path when the assets are not the graph the pass knows).
 */
export function offlineEncoder(fetchAsset: AssetFetch, options: { graph?: boolean } = {}): SentenceEncoder {
  return {
    async embed(texts) {
      const { tokenizer, model, pass } = await encoder.get((beat) => load(fetchAsset, beat))
      const tokens = texts.map((t) => tokenizer.encode(t))
      if (pass && !options.graph) return tokens.map((t) => (t.length > 0 ? normalize(pass(t)) : new Float32Array(ENCODER_DIMENSIONS)))
      return runGraph(model, tokens)
    },
  }
}

/** One graph run for all texts: the sparse input (text index, token position) batches them. */
async function runGraph(model: GraphModel, tokens: number[][]): Promise<Float32Array[]> {
  const out: Float32Array[] = tokens.map(() => new Float32Array(ENCODER_DIMENSIONS))
  const live = tokens.map((t, i) => ({ t, i })).filter((x) => x.t.length > 0)
  if (live.length === 0) return out
  const pairs: number[][] = []
  const ids: number[] = []
  live.forEach(({ t }, row) => t.forEach((id, col) => (pairs.push([row, col]), ids.push(id))))
  const indices = tf.tensor2d(pairs, [pairs.length, 2], 'int32')
  const values = tf.tensor1d(ids, 'int32')
  const result = (await model.executeAsync({ indices, values })) as tf.Tensor
  const data = await result.data()
  tf.dispose([indices, values, result])
  live.forEach(({ i }, row) => (out[i] = normalize(Float32Array.from(data.subarray(row * ENCODER_DIMENSIONS, (row + 1) * ENCODER_DIMENSIONS)))))
  return out
}

/** The vector scaled to length 1 (zero stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i]
  const norm = Math.sqrt(sum)
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] /= norm
  return v
}
