import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as tf from '@tensorflow/tfjs-core'
import '@tensorflow/tfjs-backend-cpu'
import { loadGraphModel } from '@tensorflow/tfjs-converter'
import { encoderPass } from '../src/agents/encoder-pass'

describe("the encoder's direct pass", () => {
  // It falls back to the graph executor (slower, same vectors) when the model is not the graph it was
  // written for, so the shipped assets must be recognised.
  it('recognises the shipped encoder assets and gives their graph output', async () => {
    await tf.setBackend('cpu')
    const dir = join('assets', 'encoder')
    const artifacts = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { modelTopology: object; weightSpecs: tf.io.WeightsManifestEntry[] }
    const bytes = readFileSync(join(dir, 'weights.bin'))
    const weightData = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    const model = await loadGraphModel(tf.io.fromMemory({ ...artifacts, weightData }))
    const pass = encoderPass(model)
    expect(pass).not.toBeNull()
    const ids = [1793, 1428, 30, 0, 169]
    const indices = tf.tensor2d(
      ids.map((_, col) => [0, col]),
      [ids.length, 2],
      'int32',
    )
    const graph = (await model.executeAsync({ indices, values: tf.tensor1d(ids, 'int32') })) as tf.Tensor
    const expected = graph.dataSync()
    pass!(ids).forEach((x, i) => expect(Math.abs(x - expected[i])).toBeLessThanOrEqual(1e-5))
  })
})
