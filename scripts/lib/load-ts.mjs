/**
 * Imports a TypeScript module of src/ from a Node script: bundled by esbuild with its relative imports
 * (which name no extension, as the Worker's bundler allows) and packages left to Node. A `.wasm`
 * import becomes the module compiled from the file, as wrangler's bundle gives the Worker.
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const require = createRequire(import.meta.url)

/** `import m from '…/x.wasm'` as in the Worker: `m` is a compiled WebAssembly.Module. */
export const compiledWasm = {
  name: 'compiled-wasm',
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: require.resolve(args.path, { paths: [args.resolveDir] }), namespace: 'compiled-wasm' }))
    b.onLoad({ filter: /.*/, namespace: 'compiled-wasm' }, (args) => ({
      contents: `import { readFileSync } from 'node:fs'\nexport default new WebAssembly.Module(readFileSync(${JSON.stringify(args.path)}))`,
      loader: 'js',
    }))
  },
}

export async function importTs(path) {
  const dir = join('node_modules', '.cache', 'scripts')
  mkdirSync(dir, { recursive: true })
  const outfile = resolve(dir, `${basename(path, '.ts')}.mjs`)
  await build({ entryPoints: [path], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile, logLevel: 'error', plugins: [compiledWasm] })
  return import(pathToFileURL(outfile).href)
}
