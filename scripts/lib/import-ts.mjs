/**
 * Imports a Worker module (TypeScript, extensionless imports) into a Node script by bundling it
 * with esbuild first, so scripts measure the very code the Worker runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

/**
 * One module, or several at once as namespaces (`{ name: path }`) sharing one copy of the modules
 * they import, so their per-isolate state is the same as in the Worker.
 */
let imports = 0

export async function importTs(path) {
  const entry =
    typeof path === 'string'
      ? { entryPoints: [path] }
      : { stdin: { contents: Object.entries(path).map(([name, p]) => `export * as ${name} from './${p}'`).join('\n'), resolveDir: resolve('.'), loader: 'ts' } }
  const out = await build({ ...entry, bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'error' })
  const dir = resolve('.bench', 'modules')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${JSON.stringify(path).replace(/[^a-z0-9]+/gi, '_')}.mjs`)
  writeFileSync(file, out.outputFiles[0].text)
  // A new instance each time: callers measuring state get none left from an earlier import.
  return import(`${pathToFileURL(file).href}?${++imports}`)
}
