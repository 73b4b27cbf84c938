#!/usr/bin/env node
/**
 * `npm run dev [-- --no-seed] [-- wrangler dev args]`: local secrets in .dev.vars (made once), D1
 * migrations applied, the demo catalog seeded (or, with --no-seed, an empty catalog in its own local
 * database), then `wrangler dev` with generous local rate limits, the cron handler on /__scheduled and
 * your extra arguments; the demo token is printed once the Worker answers.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateSecrets, parseEnvFile } from './lib/deploy.mjs'
import { LOCAL_LIMITS, planDev } from './lib/dev-args.mjs'
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
  const lines = Object.entries(generateSecrets()).map(([k, v]) => `${k}=${v}`)
  writeFileSync('.dev.vars', lines.join('\n') + '\n', { mode: 0o600 })
  console.log('Wrote .dev.vars with fresh local secrets (ADMIN_TOKEN, ENCRYPTION_KEY, WEBHOOK_SIGNING_SECRET).')
}
const devVars = parseEnvFile(readFileSync('.dev.vars', 'utf8'))

const { noSeed, persist, persistTo, limitsGiven, devArgs, base, adminVarGiven } = planDev(args)

// 2. Migrations and demo data.
wrangler(['d1', 'migrations', 'apply', 'DB', '--local', ...persist])
mkdirSync('.wrangler', { recursive: true })
const tokenFile = join('.wrangler', 'dev-token')
const token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : `aak_${bytesToBase62(randomBytes(32))}`
writeFileSync(tokenFile, token + '\n', { mode: 0o600 })
const agents = noSeed ? [] : JSON.parse(readFileSync('scripts/seed/demo-agents.json', 'utf8'))
const statements = buildSeed(agents)
statements.push({
  sql: 'INSERT OR IGNORE INTO api_tokens (id, account_id, name, hash, start, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  params: ['tok_localdev', SEED_ACCOUNTS.demo.id, 'local dev', createHash('sha256').update(token).digest('hex'), token.slice(0, 10), Date.now()],
})
// seed.sql is the demo catalog (README: loading it into a deployed database); --no-seed loads only the accounts.
const seedFile = join('.wrangler', noSeed ? 'seed-accounts.sql' : 'seed.sql')
writeFileSync(seedFile, renderSql(statements))
wrangler(['d1', 'execute', 'DB', '--local', '--file', seedFile, ...persist])

// 3. Say what is local, then serve.
const limitsNote = limitsGiven
  ? 'Rate limits: as given with --var.'
  : `Local rate limits: ${LOCAL_LIMITS.perMinute} requests a minute and ${LOCAL_LIMITS.perDay.toLocaleString('en-US')} a day (a deployed Worker keeps wrangler.toml's 20 and 1000; add --var RATE_LIMIT_PER_MINUTE:20 to try those here).`
console.log(`${noSeed ? `Empty catalog (--no-seed), local database in ${persistTo}.` : `Seeded ${agents.length} demo agents.`}\n${limitsNote}\nStarting wrangler dev...\n`)

// 4. Serve; once it answers, say how to call it, last, so wrangler's banner does not push it away.
// The admin CLI reads .dev.vars by itself; a token passed with --var has to be given to it.
const adminHint = adminVarGiven ? 'ADMIN_TOKEN=<the value passed with --var> ' : devVars.ADMIN_TOKEN ? '' : 'ADMIN_TOKEN=<set one> '
const child = spawn('wrangler', devArgs, { stdio: 'inherit' })
child.on('exit', (code) => process.exit(code ?? 0))
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))

for (;;) {
  if (child.exitCode !== null) break
  const up = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
  if (up) {
    console.log(`
Ready at ${base}. Demo account ${SEED_ACCOUNTS.demo.id}${noSeed ? ' (empty catalog: add agents with POST /v1/agents or /v1/agents/import)' : ''}, token (kept in ${tokenFile}):

  export TOKEN=${token}
  curl -s ${base}/v1/action/search -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"query":"youtube transcript"}'

${limitsNote}
Cron handler: curl "${base}/__scheduled?cron=*/15+*+*+*+*"
More accounts and tokens: ${adminHint}npm run admin -- --url ${base} accounts create "My team"
`)
    break
  }
  await new Promise((r) => setTimeout(r, 500))
}
