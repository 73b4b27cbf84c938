#!/usr/bin/env node
/**
 * `npm run check:readme [-- --url http://localhost:8788]`: sends every curl example of the README, in
 * order, to a running `npm run dev` (TOKEN from the environment or .wrangler/dev-token) and prints each
 * answer's status, code and message. Examples that reach the internet fail without it: read them as such.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { curlExamples, README_BASE, runExamples } from './lib/readme-examples.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const base = (args.find((a, i) => args[i - 1] === '--url') ?? README_BASE).replace(/\/+$/, '')
const tokenFile = join(root, '.wrangler', 'dev-token')
const token = process.env.TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '')
if (!token) {
  console.error('No token: export TOKEN, or run npm run dev once (it writes .wrangler/dev-token)')
  process.exit(1)
}
const examples = curlExamples(readFileSync(join(root, 'README.md'), 'utf8'), { TOKEN: token })
for (const r of await runExamples(examples, { base })) {
  const b = r.body
  const what = typeof b === 'object' && b ? (b.error ? `${b.code}: ${b.error}` : JSON.stringify(b.response ?? b).slice(0, 100)) : String(b).slice(0, 100)
  console.log(`README.md:${r.line}  ${r.status}  ${r.method} ${r.path}  ${what}`)
}
