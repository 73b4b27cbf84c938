/**
 * The Worker's offline encoder (src/agents/encoder.ts) in Node, from the same assets the Worker
 * reads: Node 20 cannot import TypeScript, so the module is bundled by esbuild first (packages stay
 * external and resolve from node_modules).
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

export async function nodeEncoder() {
  const out = await build({ entryPoints: [resolve('src/agents/encoder.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', write: false })
  mkdirSync('.bench', { recursive: true })
  const file = resolve('.bench', 'encoder.bundle.mjs')
  writeFileSync(file, out.outputFiles[0].text)
  const { offlineEncoder } = await import(pathToFileURL(file).href)
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
