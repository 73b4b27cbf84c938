#!/usr/bin/env node
/**
 * `npm run dev [-- wrangler dev args]`: local secrets in .dev.vars (made once), D1 migrations applied,
 * the demo catalog seeded, a demo token printed, then `wrangler dev` with your extra arguments.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSeed, renderSql, SEED_ACCOUNTS } from './seed/build.mjs'
// Node 22 strips types itself; ids.ts has no imports, so the dev script shares the Worker's encoding.
import { bytesToBase62 } from '../src/lib/ids.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
process.chdir(root)
const args = process.argv.slice(2)

function wrangler(cmd) {
  const r = spawnSync('wrangler', cmd, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' }, encoding: 'utf8' })
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr)
    throw new Error(`wrangler ${cmd.join(' ')} failed`)
  }
}

// 1. Local secrets, generated once and kept in .dev.vars (git-ignored).
if (!existsSync('.dev.vars')) {
  const lines = [
    `ADMIN_TOKEN=${randomBytes(24).toString('hex')}`,
    `ENCRYPTION_KEY=${randomBytes(32).toString('base64')}`,
    `WEBHOOK_SIGNING_SECRET=${randomBytes(24).toString('hex')}`,
  ]
  writeFileSync('.dev.vars', lines.join('\n') + '\n', { mode: 0o600 })
  console.log('Wrote .dev.vars with fresh local secrets (ADMIN_TOKEN, ENCRYPTION_KEY, WEBHOOK_SIGNING_SECRET).')
}
const devVars = Object.fromEntries(
  readFileSync('.dev.vars', 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1).trim()]),
)

// 2. Migrations and demo data.
wrangler(['d1', 'migrations', 'apply', 'DB', '--local'])
mkdirSync('.wrangler', { recursive: true })
const tokenFile = join('.wrangler', 'dev-token')
const token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : `aak_${bytesToBase62(randomBytes(32))}`
writeFileSync(tokenFile, token + '\n', { mode: 0o600 })
const agents = JSON.parse(readFileSync('scripts/seed/demo-agents.json', 'utf8'))
const statements = buildSeed(agents)
statements.push({
  sql: 'INSERT OR IGNORE INTO api_tokens (id, account_id, name, hash, start, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  params: ['tok_localdev', SEED_ACCOUNTS.demo.id, 'local dev', createHash('sha256').update(token).digest('hex'), token.slice(0, 10), Date.now()],
})
writeFileSync(join('.wrangler', 'seed.sql'), renderSql(statements))
wrangler(['d1', 'execute', 'DB', '--local', '--file', join('.wrangler', 'seed.sql')])

// 3. Tell the user how to call it, then serve.
const portIndex = args.findIndex((a) => a === '--port' || a.startsWith('--port='))
const port = portIndex < 0 ? '8787' : args[portIndex].includes('=') ? args[portIndex].split('=')[1] : args[portIndex + 1]
const adminVar = args.map((a, i) => (args[i - 1] === '--var' ? a : null)).find((v) => v?.startsWith('ADMIN_TOKEN:'))
// The admin CLI reads .dev.vars by itself; a token passed with --var has to be given to it.
const adminHint = adminVar ? 'ADMIN_TOKEN=<the value passed with --var> ' : devVars.ADMIN_TOKEN ? '' : 'ADMIN_TOKEN=<set one> '
console.log(`
Seeded ${agents.length} demo agents. Demo account ${SEED_ACCOUNTS.demo.id}, token (kept in ${tokenFile}):

  export TOKEN=${token}
  curl -s http://localhost:${port}/v1/action/search -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"query":"youtube transcript"}'

More accounts and tokens: ${adminHint}npm run admin -- --url http://localhost:${port} accounts create "My team"
`)
const child = spawn('wrangler', ['dev', ...args], { stdio: 'inherit' })
child.on('exit', (code) => process.exit(code ?? 0))
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
