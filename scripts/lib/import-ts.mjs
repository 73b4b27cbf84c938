/**
 * Imports a Worker module (TypeScript, extensionless imports) into a Node script by bundling it
 * with esbuild first, so scripts measure the very code the Worker runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

export async function importTs(path) {
  const out = await build({ entryPoints: [path], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'error' })
  const dir = resolve('.bench', 'modules')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${path.replace(/[^a-z0-9]+/gi, '_')}.mjs`)
  writeFileSync(file, out.outputFiles[0].text)
  return import(pathToFileURL(file).href)
}
