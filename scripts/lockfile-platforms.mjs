#!/usr/bin/env node
/**
 * `npm run lockfile:platforms [-- --check]`: adds to package-lock.json the optional platform builds
 * (pinned versions) that npm left out because the registry it resolved against lacks them, so that
 * `npm ci` accepts the lockfile on every platform. Run it after any `npm install` that rewrote the
 * lockfile. `--check` only reports and exits 1 when something is missing.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { lockEntry, missingOptionalEntries, withEntries } from './lib/lockfile.mjs'

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json')
const lock = JSON.parse(readFileSync(file, 'utf8'))
const missing = missingOptionalEntries(lock)
if (process.argv.includes('--check')) {
  for (const m of missing) console.log(`missing: ${m.name}@${m.version} (optional dependency of ${m.from})`)
  process.exit(missing.length ? 1 : 0)
}

function view(spec) {
  const r = spawnSync('npm', ['view', spec, '--json'], { encoding: 'utf8' })
  if (r.status !== 0) return null
  const data = JSON.parse(r.stdout)
  return Array.isArray(data) ? data.at(-1) : data
}

const entries = {}
for (const m of missing) {
  // The exact version gives its integrity; when the registry lacks it, the latest version's manifest
  // still says which os and cpu it is for, and npm fetches and checks the tarball on that platform.
  const exact = view(`${m.name}@${m.version}`)
  const manifest = exact ?? view(m.name)
  if (!manifest) throw new Error(`the registry knows no ${m.name}`)
  entries[m.location] = lockEntry(m.version, manifest, { dev: lock.packages[m.from].dev === true, integrity: exact?.dist?.integrity })
  console.log(`added ${m.location} ${m.version}${exact ? '' : ' (not in this registry: no integrity recorded)'}`)
}
if (missing.length) writeFileSync(file, JSON.stringify(withEntries(lock, entries), null, 2) + '\n')
else console.log('package-lock.json lists every optional dependency')
