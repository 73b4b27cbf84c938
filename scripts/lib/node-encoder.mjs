/**
 * The Worker's offline encoder (src/agents/encoder.ts) in Node, from the same assets the Worker
 * reads: Node 20 cannot import TypeScript, so the module is bundled by esbuild first (packages stay
 * external and resolve from node_modules). A `.wasm` import becomes the module compiled from the
 * file, as wrangler's bundle gives the Worker.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { build } from 'esbuild'

const require = createRequire(import.meta.url)

/** `import m from '…/x.wasm'` as in the Worker: `m` is a compiled WebAssembly.Module. */
const compiledWasm = {
  name: 'compiled-wasm',
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: require.resolve(args.path, { paths: [args.resolveDir] }), namespace: 'compiled-wasm' }))
    b.onLoad({ filter: /.*/, namespace: 'compiled-wasm' }, (args) => ({
      contents: `import { readFileSync } from 'node:fs'\nexport default new WebAssembly.Module(readFileSync(${JSON.stringify(args.path)}))`,
      loader: 'js',
    }))
  },
}

export async function nodeEncoder() {
  const out = await build({ entryPoints: [resolve('src/agents/encoder.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', write: false, plugins: [compiledWasm] })
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
