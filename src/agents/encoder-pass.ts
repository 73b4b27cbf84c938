/**
 * The encoder's graph (USE-Lite: token embeddings, two transformer layers, mean pooling, a tanh
 * layer) written out as direct TensorFlow.js calls for one text at a time, with the graph's own
 * weights and kernels.
 *
 * Why not the graph: tfjs's graph executor runs its 256 nodes one by one, and about 180 of them only
 * compute shapes, padding masks and gather/scatter indices for a batch of texts of different
 * lengths. For a single text every position is a real token, so those masks are all ones, the
 * gathers and scatters are identities and every shape is known in JavaScript. That bookkeeping cost
 * more than half of a short query's time.
 *
 * Changes of order, each exact in real arithmetic: the last feed-forward layer's output projection
 * is linear and only its mean over the tokens is used, so it projects the mean instead of every
 * token (a sixth of the multiply-adds); products add their bias in XNNPACK's pass; means over tokens
 * are products with a row of 1/n. Vectors differ from the graph's by float rounding only (a test in
 * test/hybrid-search.test.ts holds them to 1e-5; scripts/bench-encoder.mjs prints the difference).
 */
import * as tf from '@tensorflow/tfjs-core'
import type { GraphModel } from '@tensorflow/tfjs-converter'

const STACK = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/'
const ENCODE = 'module_apply_default/Encoder_en/KonaTransformer/Encode/'
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/'
/** The graph keeps a text's first 128 tokens (ClipToMaxLength); the timing table covers them. */
const MAX_POSITIONS = 128
const HEADS = 4

interface LayerWeights {
  width: number
  attentionNorm: [tf.Tensor, tf.Tensor]
  qkv: [tf.Tensor4D, tf.Tensor]
  output: [tf.Tensor4D, tf.Tensor]
  /** The learned projection of the residual stream to the next width (first layer only). */
  widen?: [tf.Tensor2D, tf.Tensor]
  ffnNorm: [tf.Tensor, tf.Tensor]
  ffnIn: [tf.Tensor2D, tf.Tensor]
  ffnOut: [tf.Tensor2D, tf.Tensor]
  /** Scales queries by 1/sqrt(head size). */
  queryScale: tf.Tensor
}

interface Weights {
  embeddings: tf.Tensor2D
  /** Sinusoidal position signals for positions 0..MAX_POSITIONS-1, as the graph computes them. */
  timing: Float32Array
  normEpsilon: tf.Tensor
  layers: [LayerWeights, LayerWeights]
  head: [tf.Tensor2D, tf.Tensor]
  l2Epsilon: tf.Tensor
}

/** One text's token ids to the graph's output vector (unit length). */
export type EncoderPass = (ids: number[]) => Float32Array

/**
 * The direct pass over `model`'s weights, or null when the model is not the graph this was written
 * for (a missing weight or a different shape): callers then run the graph.
 */
export function encoderPass(model: GraphModel): EncoderPass | null {
  let weights: Weights
  try {
    weights = readWeights(model)
  } catch (err) {
    if (err instanceof NotThisGraph) return null
    throw err
  }
  return (ids) => {
    const out = tf.tidy(() => run(weights, ids))
    const vector = out.dataSync() as Float32Array
    out.dispose()
    return vector
  }
}

class NotThisGraph extends Error {}

function readWeights(model: GraphModel): Weights {
  const all = model.weights
  const get = <T extends tf.Tensor>(name: string, shape: number[]): T => {
    const t = all[name]?.[0]
    if (t && t.dtype === 'float32' && t.shape.length === shape.length && t.shape.every((d, i) => d === shape[i])) return t as T
    throw new NotThisGraph(name)
  }
  const expectInt = (name: string, value: number) => {
    const t = all[name]?.[0]
    if (!t || t.dtype !== 'int32' || t.size !== 1 || t.dataSync()[0] !== value) throw new NotThisGraph(name)
  }
  expectInt('module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y', MAX_POSITIONS)
  // Both layers' head split reads this one constant.
  expectInt(`${STACK}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`, HEADS)
  const layer = (i: number, width: number, inWidth: number): LayerWeights => {
    const tl = `${ENCODE}Layer_${i}/TransformerLayer/`
    const st = `${STACK}Layer_${i}/TransformerLayer/`
    const heads = `${KERNELS}Layer_${i}/TransformerLayer/MultiheadAttention/`
    const norm = (prefix: string, size: number): [tf.Tensor, tf.Tensor] => [
      get(`${tl}${prefix}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [size]),
      get(`${tl}${prefix}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [size]),
    ]
    return {
      width,
      attentionNorm: norm('', inWidth),
      qkv: [get(`${heads}qkv_transform_single/kernel/part_0`, [1, 1, inWidth, 3 * inWidth]), get(`${tl}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * inWidth])],
      queryScale: get(`${st}MultiheadAttention/mul/y`, []),
      output: [get(`${heads}output_transform_single/kernel/part_0`, [1, 1, inWidth, width]), get(`${tl}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [width])],
      widen: inWidth === width ? undefined : [get(`${tl}dense/kernel/ConcatPartitions/concat`, [inWidth, width]), get(`${tl}dense/bias/ConcatPartitions/concat`, [width])],
      ffnNorm: norm('FFN/', width),
      ffnIn: [get(`${st}FFN/conv1/Tensordot/Reshape_1`, [width, 3 * width]), get(`${tl}FFN/conv1/bias/ConcatPartitions/concat`, [3 * width])],
      ffnOut: [get(`${st}FFN/conv2/Tensordot/Reshape_1`, [3 * width, width]), get(`${tl}FFN/conv2/bias/ConcatPartitions/concat`, [width])],
    }
  }
  const embeddings = get<tf.Tensor2D>('module/Embeddings_en', [8002, 256])
  const timescales = get(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128])
  const normEpsilon = get(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, [])
  const head: [tf.Tensor2D, tf.Tensor] = [get('module/Encoder_en/hidden_layers/tanh_layer_0/weights', [512, 512]), get('module/Encoder_en/hidden_layers/tanh_layer_0/bias', [512])]
  const l2Epsilon = get('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y', [])
  const layers: [LayerWeights, LayerWeights] = [layer(0, 512, 256), layer(1, 512, 512)]
  // The graph's AddTimingSignal for positions 0..n-1 is elementwise, so one table serves every n.
  const table = tf.tidy(() => {
    const positions = tf.tensor2d(
      Float32Array.from({ length: MAX_POSITIONS }, (_, i) => i),
      [MAX_POSITIONS, 1],
    )
    const angles = tf.mul(positions, timescales)
    return tf.concat([tf.sin(angles), tf.cos(angles)], 1)
  })
  const timing = table.dataSync() as Float32Array
  table.dispose()
  return { embeddings, timing, normEpsilon, layers, head, l2Epsilon }
}

/** tensor2tensor's layer norm, op for op as the graph has it. */
function layerNorm(x: tf.Tensor, [scale, bias]: [tf.Tensor, tf.Tensor], epsilon: tf.Tensor): tf.Tensor {
  const centered = tf.sub(x, tf.mean(x, -1, true))
  const variance = tf.mean(tf.square(centered), -1, true)
  return tf.add(tf.mul(tf.mul(scale, tf.rsqrt(tf.add(variance, epsilon))), centered), bias)
}

/** Multi-head self-attention over all n positions of `x` ([1, n, width]), before the residual. */
function attention(x: tf.Tensor, w: LayerWeights, n: number, inWidth: number): tf.Tensor {
  const headSize = inWidth / HEADS
  const projected = pointwise(tf.reshape(x, [1, n, 1, inWidth]), w.qkv)
  // Heads first ([query heads, key heads, value heads] x n x head size), so queries, keys and values
  // are contiguous slices: tfjs's split along the last axis is three strided copies.
  const heads = tf.transpose(tf.reshape(projected, [n, 3 * HEADS, headSize]), [1, 0, 2])
  const [q, k, v] = [0, 1, 2].map((i) => tf.slice(heads, [i * HEADS, 0, 0], [HEADS, n, headSize]))
  const logits = tf.matMul(tf.mul(q, w.queryScale), k, false, true)
  const weights = tf.reshape(tf.softmax(tf.reshape(logits, [-1, n])), [HEADS, n, n])
  const combined = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [1, n, 1, inWidth])
  return tf.reshape(pointwise(combined, w.output), [1, n, w.width])
}

function run(w: Weights, allIds: number[]): tf.Tensor {
  const ids = allIds.slice(0, MAX_POSITIONS)
  const n = ids.length
  const [first, second] = w.layers
  // Embedding lookup plus position signal, in float32 as the graph's ops round (one rounding per
  // add); the graph adds the embeddings twice (the residual and the timing branch both start from
  // them). Rows are copied here: the WASM backend's gather costs more than the rest of this layer.
  const input = new Float32Array(n * 256)
  ids.forEach((id, i) => {
    const row = embeddingRow(w.embeddings, id)
    for (let j = 0; j < 256; j++) input[i * 256 + j] = Math.fround(row[j] + Math.fround(row[j] + w.timing[i * 256 + j]))
  })
  let x: tf.Tensor = tf.tensor3d(input, [1, n, 256])

  // Layer 0: attention at 256 wide, the residual projected to 512.
  let normed = layerNorm(x, first.attentionNorm, w.normEpsilon)
  const widened = dense(tf.reshape(x, [n, 256]), first.widen!)
  x = tf.add(attention(normed, first, n, 256), tf.reshape(widened, [1, n, 512]))
  x = tf.add(feedForward(layerNorm(x, first.ffnNorm, w.normEpsilon), first, n), x)

  // Layer 1, whose feed-forward output only enters the mean over tokens.
  normed = layerNorm(x, second.attentionNorm, w.normEpsilon)
  x = tf.add(attention(normed, second, n, 512), x)
  const hidden = dense(tf.reshape(layerNorm(x, second.ffnNorm, w.normEpsilon), [n, 512]), second.ffnIn, 'relu')
  // Means over tokens as a product with a row of 1/n (tfjs's sum over the middle axis transposes first).
  const average = tf.fill([1, n], 1 / n)
  const meanFfn = dense(tf.matMul(average, hidden), second.ffnOut)
  const pooled = tf.add(tf.matMul(average, tf.reshape(x, [n, 512])), meanFfn)

  const out = tf.tanh(dense(pooled, w.head))
  return tf.mul(out, tf.rsqrt(tf.maximum(tf.sum(tf.square(out), 1, true), w.l2Epsilon)))
}

/** The WASM backend's read of part of a tensor (BackendWasm.readSync). */
type RangeRead = { readSync(dataId: object, start: number, end: number): Float32Array }

/** Row `id` of a [rows, 256] table, read straight from the backend's memory where it can. */
function embeddingRow(table: tf.Tensor2D, id: number): Float32Array {
  if (tf.getBackend() === 'wasm') return (tf.backend() as unknown as RangeRead).readSync(table.dataId, id * 256, (id + 1) * 256)
  return (table.dataSync() as Float32Array).subarray(id * 256, (id + 1) * 256)
}

/**
 * x · kernel + bias (then ReLU), as one XNNPACK product that starts from the bias: the graph adds
 * it in a second pass (a float rounding apart).
 */
function dense(x: tf.Tensor, [kernel, bias]: [tf.Tensor2D, tf.Tensor], activation?: 'relu'): tf.Tensor2D {
  return tf.fused.matMul({ a: x as tf.Tensor2D, b: kernel, bias, activation }) as tf.Tensor2D
}

/** The graph's 1x1 convolutions (a product per position, [1, n, 1, width]) with their bias, likewise. */
function pointwise(x: tf.Tensor, [kernel, bias]: [tf.Tensor4D, tf.Tensor]): tf.Tensor4D {
  return tf.fused.conv2d({ x: x as tf.Tensor4D, filter: kernel, strides: 1, pad: 'valid', bias }) as tf.Tensor4D
}

function feedForward(x: tf.Tensor, w: LayerWeights, n: number): tf.Tensor {
  const hidden = dense(tf.reshape(x, [n, w.width]), w.ffnIn, 'relu')
  return tf.reshape(dense(hidden, w.ffnOut), [1, n, w.width])
}
