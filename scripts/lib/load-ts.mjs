/**
 * Imports a TypeScript module of src/ from a Node script: bundled by esbuild with its relative imports
 * (which name no extension, as the Worker's bundler allows) and packages left to Node.
 */
import { mkdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

export async function importTs(path) {
  const dir = join('node_modules', '.cache', 'scripts')
  mkdirSync(dir, { recursive: true })
  const outfile = resolve(dir, `${basename(path, '.ts')}.mjs`)
  await build({ entryPoints: [path], bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile, logLevel: 'error' })
  return import(pathToFileURL(outfile).href)
}
