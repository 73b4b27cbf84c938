/**
 * The Worker's offline encoder (src/agents/encoder.ts) in Node, from the same assets the Worker
 * reads (Node 20 cannot import TypeScript: load-ts.mjs bundles it first).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { importTs } from './load-ts.mjs'

export async function nodeEncoder() {
  const { offlineEncoder } = await importTs('src/agents/encoder.ts')
  const encoder = offlineEncoder(async (path) => new Response(readFileSync(join('assets', path))))
  /**
   * Unit vectors of `texts`, one at a time: a batch is padded to its longest text, and on the CPU
   * backend 8 agent texts took 2.5x longer batched than one by one.
   */
  return async (texts, onProgress = () => {}) => {
    const vectors = []
    for (const text of texts) {
      vectors.push(...(await encoder.embed([text])))
      onProgress(vectors.length)
    }
    return vectors
  }
}
