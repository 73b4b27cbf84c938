/**
 * The encoder's graph (USE-Lite: token embeddings, two transformer layers, mean pooling, a tanh
 * layer) written out as direct TensorFlow.js calls for one text at a time, with the graph's own
 * weights, kernels and order of operations.
 *
 * Why not the graph: tfjs's graph executor runs its 256 nodes one by one, and about 180 of them only
 * compute shapes, padding masks and gather/scatter indices for a batch of texts of different
 * lengths. For a single text every position is a real token, so those masks are all ones, the
 * gathers and scatters are identities and every shape is known in JavaScript. That bookkeeping cost
 * more than half of a short query's time. What remains is the arithmetic, unchanged.
 *
 * One change of order, exact in real arithmetic: the last feed-forward layer's output projection is
 * linear and only its mean over the tokens is used, so it projects the mean instead of every token
 * (a sixth of the multiply-adds). Vectors differ from the graph's by float rounding only
 * (scripts/bench-encoder.mjs prints the largest difference).
 */
import * as tf from '@tensorflow/tfjs-core'
import type { GraphModel } from '@tensorflow/tfjs-converter'

const STACK = 'module_apply_default/Encoder_en/KonaTransformer/Encode/TransformerStack/'
const ENCODE = 'module_apply_default/Encoder_en/KonaTransformer/Encode/'
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/'
/** The graph clips texts at this many tokens (ClipToMaxLength); the timing table covers them. */
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
  timing: tf.Tensor2D
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
  const weights = readWeights(model)
  if (!weights) return null
  return (ids) => {
    const out = tf.tidy(() => run(weights, ids))
    const vector = out.dataSync() as Float32Array
    out.dispose()
    return vector
  }
}

function readWeights(model: GraphModel): Weights | null {
  const all = model.weights
  const get = <T extends tf.Tensor>(name: string, shape: number[]): T | null => {
    const t = all[name]?.[0]
    return t && t.dtype === 'float32' && t.shape.length === shape.length && t.shape.every((d, i) => d === shape[i]) ? (t as T) : null
  }
  const layer = (i: number, width: number, inWidth: number): LayerWeights | null => {
    const tl = `${ENCODE}Layer_${i}/TransformerLayer/`
    const st = `${STACK}Layer_${i}/TransformerLayer/`
    const heads = `${KERNELS}Layer_${i}/TransformerLayer/MultiheadAttention/`
    const norm = (p: string) => [
      get(`${tl}${p}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [inWidth]),
      get(`${tl}${p}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [inWidth]),
    ]
    const parts = {
      attentionNorm: norm(''),
      qkv: [get(`${heads}qkv_transform_single/kernel/part_0`, [1, 1, inWidth, 3 * inWidth]), get(`${tl}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * inWidth])],
      output: [get(`${heads}output_transform_single/kernel/part_0`, [1, 1, inWidth, width]), get(`${tl}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [width])],
      widen: inWidth === width ? undefined : [get(`${tl}dense/kernel/ConcatPartitions/concat`, [inWidth, width]), get(`${tl}dense/bias/ConcatPartitions/concat`, [width])],
      ffnNorm: [
        get(`${tl}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [width]),
        get(`${tl}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [width]),
      ],
      ffnIn: [get(`${st}FFN/conv1/Tensordot/Reshape_1`, [width, 3 * width]), get(`${tl}FFN/conv1/bias/ConcatPartitions/concat`, [3 * width])],
      ffnOut: [get(`${st}FFN/conv2/Tensordot/Reshape_1`, [3 * width, width]), get(`${tl}FFN/conv2/bias/ConcatPartitions/concat`, [width])],
    }
    const queryScale = get(`${st}MultiheadAttention/mul/y`, [])
    const pairs = Object.values(parts).filter((p) => p !== undefined)
    if (!queryScale || pairs.some((p) => p.some((t) => !t))) return null
    return { width, queryScale, ...(parts as Omit<LayerWeights, 'width' | 'queryScale'>) }
  }
  const embeddings = get<tf.Tensor2D>('module/Embeddings_en', [8002, 256])
  const timescales = get<tf.Tensor2D>(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128])
  const normEpsilon = get(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, [])
  const first = layer(0, 512, 256)
  const second = layer(1, 512, 512)
  const head = [get<tf.Tensor2D>('module/Encoder_en/hidden_layers/tanh_layer_0/weights', [512, 512]), get('module/Encoder_en/hidden_layers/tanh_layer_0/bias', [512])]
  const l2Epsilon = get('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y', [])
  if (!embeddings || !timescales || !normEpsilon || !first || !second || !head[0] || !head[1] || !l2Epsilon) return null
  // The graph's AddTimingSignal for positions 0..n-1, elementwise, so rows of one table are the same.
  const timing = tf.tidy(() => {
    const positions = tf.tensor2d(
      Float32Array.from({ length: MAX_POSITIONS }, (_, i) => i),
      [MAX_POSITIONS, 1],
    )
    const angles = tf.mul(positions, timescales)
    return tf.concat([tf.sin(angles), tf.cos(angles)], 1) as tf.Tensor2D
  })
  return { embeddings, timing, normEpsilon, layers: [first, second], head: head as [tf.Tensor2D, tf.Tensor], l2Epsilon }
}

/** tensor2tensor's layer norm, op for op as the graph has it. */
function layerNorm(x: tf.Tensor, [scale, bias]: [tf.Tensor, tf.Tensor], epsilon: tf.Tensor): tf.Tensor {
  const centered = tf.sub(x, tf.mean(x, -1, true))
  const variance = tf.mean(tf.square(centered), -1, true)
  return tf.add(tf.mul(tf.mul(scale, tf.rsqrt(tf.add(variance, epsilon))), centered), bias)
}

/** Multi-head self-attention over all n positions of `x` ([1, n, width]), before the residual. */
function attention(x: tf.Tensor, w: LayerWeights, n: number, inWidth: number): tf.Tensor {
  const projected = tf.squeeze(tf.add(tf.conv2d(tf.expandDims(x, 2) as tf.Tensor4D, w.qkv[0], 1, 'valid'), w.qkv[1]), [2])
  const headSize = inWidth / HEADS
  const [q, k, v] = tf.split(projected, [inWidth, inWidth, inWidth], 2).map((t) => tf.transpose(tf.reshape(t, [1, n, HEADS, headSize]), [0, 2, 1, 3]))
  const logits = tf.matMul(tf.mul(q, w.queryScale), k, false, true)
  const weights = tf.reshape(tf.softmax(tf.reshape(logits, [-1, n])), [1, HEADS, n, n])
  const combined = tf.reshape(tf.transpose(tf.matMul(weights, v), [0, 2, 1, 3]), [1, n, inWidth])
  return tf.squeeze(tf.add(tf.conv2d(tf.expandDims(combined, 2) as tf.Tensor4D, w.output[0], 1, 'valid'), w.output[1]), [2])
}

function run(w: Weights, ids: number[]): tf.Tensor {
  const n = ids.length
  const [first, second] = w.layers
  // Embedding lookup plus position signal; the graph adds the embeddings twice (the residual and
  // the timing branch both start from them).
  const embedded = tf.gather(w.embeddings, tf.tensor1d(ids, 'int32'), 0)
  const signal = tf.slice(w.timing, [0, 0], [n, -1])
  let x: tf.Tensor = tf.reshape(tf.add(embedded, tf.add(embedded, signal)), [1, n, 256])

  // Layer 0: attention at 256 wide, the residual projected to 512.
  let normed = layerNorm(x, first.attentionNorm, w.normEpsilon)
  const widened = tf.add(tf.matMul(tf.reshape(x, [n, 256]), first.widen![0]), first.widen![1])
  x = tf.add(attention(normed, first, n, 256), tf.reshape(widened, [1, n, 512]))
  x = tf.add(feedForward(layerNorm(x, first.ffnNorm, w.normEpsilon), first, n), x)

  // Layer 1, whose feed-forward output only enters the mean over tokens.
  normed = layerNorm(x, second.attentionNorm, w.normEpsilon)
  x = tf.add(attention(normed, second, n, 512), x)
  const hidden = tf.relu(tf.add(tf.matMul(tf.reshape(layerNorm(x, second.ffnNorm, w.normEpsilon), [n, 512]), second.ffnIn[0]), second.ffnIn[1]))
  const meanHidden = tf.div(tf.sum(tf.reshape(hidden, [1, n, 1536]), 1), n)
  const meanFfn = tf.add(tf.matMul(meanHidden, second.ffnOut[0]), second.ffnOut[1])
  const pooled = tf.add(tf.div(tf.sum(x, 1), n), meanFfn)

  const out = tf.tanh(tf.add(tf.matMul(pooled as tf.Tensor2D, w.head[0]), w.head[1]))
  return tf.mul(out, tf.rsqrt(tf.maximum(tf.sum(tf.square(out), 1, true), w.l2Epsilon)))
}

function feedForward(x: tf.Tensor, w: LayerWeights, n: number): tf.Tensor {
  const hidden = tf.relu(tf.add(tf.matMul(tf.reshape(x, [n, w.width]), w.ffnIn[0]), w.ffnIn[1]))
  return tf.reshape(tf.add(tf.matMul(hidden, w.ffnOut[0]), w.ffnOut[1]), [1, n, w.width])
}
