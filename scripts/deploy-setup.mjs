#!/usr/bin/env node
/**
 * `npm run deploy:setup [-- --url https://your.domain]`: everything a Cloudflare deployment needs, on
 * wrangler's own commands, safe to rerun. Finds or creates the D1 database, the KV namespace and the
 * queues named in wrangler.toml and writes their ids into it, applies the D1 migrations, deploys, then
 * gives the Worker any of ADMIN_TOKEN, ENCRYPTION_KEY and WEBHOOK_SIGNING_SECRET it lacks. Secrets it
 * generates are saved once, before they are put, to .deploy-secrets.env (mode 0600, ignored by git;
 * never overwritten), so the admin token can be used afterwards: `npm run admin -- --url <worker> ...`.
 * Needs `npx wrangler login` first (or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  deployedUrl,
  generateSecrets,
  parseEnvFile,
  parseJsonOutput,
  parseTable,
  planSecrets,
  readWranglerConfig,
  SECRETS_FILE,
  setResourceIds,
} from './lib/deploy.mjs'
import { saveSecretsOnce } from './lib/secrets-file.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
process.chdir(root)
const argv = process.argv.slice(2)
const urlFlag = argv.find((a, i) => argv[i - 1] === '--url') ?? argv.find((a) => a.startsWith('--url='))?.slice(6)
const CONFIG = 'wrangler.toml'
// The project's own wrangler, also when the script is run with plain `node`.
const WRANGLER = join(root, 'node_modules', '.bin', 'wrangler')

function fail(message) {
  process.stderr.write(`\ndeploy:setup stopped: ${message}\n`)
  process.exit(1)
}

/** Runs wrangler without a prompt and returns its stdout; stops with its output when it fails. */
function capture(args, input) {
  const r = spawnSync(WRANGLER, args, { input, encoding: 'utf8', env: { ...process.env, CI: 'true' }, maxBuffer: 64 * 1024 * 1024 })
  if (r.error) fail(`cannot run ${WRANGLER} (${r.error.message}): run npm install first`)
  if (r.status !== 0) {
    const hint = /not authenticated|login|CLOUDFLARE_API_TOKEN/i.test(r.stdout + r.stderr) ? '\nLog in first: npx wrangler login' : ''
    fail(`wrangler ${args.join(' ')} failed:\n${r.stdout}${r.stderr}${hint}`)
  }
  return r.stdout
}

/** Runs wrangler with its output shown as it comes, and returns that output. */
function stream(args) {
  return new Promise((done) => {
    const child = spawn(WRANGLER, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } })
    let out = ''
    child.stdout.on('data', (d) => (out += d) && process.stdout.write(d))
    child.stderr.on('data', (d) => (out += d) && process.stderr.write(d))
    child.on('exit', (code) => (code === 0 ? done(out) : fail(`wrangler ${args.join(' ')} failed (exit ${code})`)))
  })
}

const step = (text) => console.log(`\n== ${text}`)
const config = readWranglerConfig(readFileSync(CONFIG, 'utf8'))
if (!config.name) fail(`${CONFIG} has no name`)
const ids = { d1: {}, kv: {} }

step('D1 database')
const databases = () => parseJsonOutput(capture(['d1', 'list', '--json']))
for (const db of config.d1) {
  const listed = databases()
  let found = listed.find((d) => d.uuid === db.id) ?? listed.find((d) => d.name === db.name)
  if (!found) {
    capture(['d1', 'create', db.name])
    found = databases().find((d) => d.name === db.name)
    if (!found) fail(`created D1 database ${db.name}, but wrangler d1 list does not show it`)
  }
  console.log(`${db.binding}: ${found.name} (${found.uuid})`)
  ids.d1[db.binding] = found.uuid
}

step('KV namespace')
const namespaces = () => parseJsonOutput(capture(['kv', 'namespace', 'list']))
for (const kv of config.kv) {
  const title = `${config.name}-${kv.binding.toLowerCase()}`
  const listed = namespaces()
  let found = listed.find((n) => n.id === kv.id) ?? listed.find((n) => n.title === title)
  if (!found) {
    capture(['kv', 'namespace', 'create', title])
    found = namespaces().find((n) => n.title === title)
    if (!found) fail(`created KV namespace ${title}, but wrangler kv namespace list does not show it`)
  }
  console.log(`${kv.binding}: ${found.title} (${found.id})`)
  ids.kv[kv.binding] = found.id
}

step('Queues')
function queueNames() {
  const names = new Set()
  for (let page = 1; page <= 100; page++) {
    const rows = parseTable(capture(['queues', 'list', '--page', String(page)]))
    const before = names.size
    for (const row of rows) names.add(row.name)
    if (!rows.length || names.size === before) break
  }
  return names
}
const existingQueues = queueNames()
for (const queue of config.queues) {
  if (!existingQueues.has(queue)) capture(['queues', 'create', queue])
  console.log(`${queue}: ${existingQueues.has(queue) ? 'exists' : 'created'}`)
}

step(CONFIG)
const before = readFileSync(CONFIG, 'utf8')
const after = setResourceIds(before, ids)
if (after !== before) {
  writeFileSync(CONFIG, after)
  console.log(`wrote the D1 and KV ids into ${CONFIG}`)
} else console.log(`${CONFIG} already has these ids`)

step('D1 migrations')
for (const db of config.d1) await stream(['d1', 'migrations', 'apply', db.binding, '--remote'])

step('Deploy')
const deployOutput = await stream(['deploy'])
const url = urlFlag ?? deployedUrl(deployOutput)

step('Secrets')
const secretsPath = resolve(SECRETS_FILE)
const saved = existsSync(secretsPath) ? parseEnvFile(readFileSync(secretsPath, 'utf8')) : null
const present = parseJsonOutput(capture(['secret', 'list', '--format', 'json'])).map((s) => s.name)
const plan = planSecrets({ worker: config.name, url, saved, present, fresh: generateSecrets(), createdAt: new Date().toISOString() })
if (plan.error) fail(plan.error)
if (plan.file) {
  saveSecretsOnce(secretsPath, plan.file)
  console.log(`saved ${Object.keys(plan.put).join(', ')} to ${secretsPath} (mode 0600, ignored by git): keep it, it is the only copy`)
}
if (Object.keys(plan.put).length) {
  capture(['secret', 'bulk'], JSON.stringify(plan.put))
  console.log(`put ${Object.keys(plan.put).join(', ')}`)
}
for (const line of plan.notes) console.log(line)

const adminUrl = url ?? '<your Worker URL>'
console.log(`
Done: ${config.name} is deployed${url ? ` at ${url}` : ''}.
${url ? '' : 'wrangler printed no workers.dev URL; pass yours with -- --url https://... next time to record it.\n'}Next: an account and a token for it (the admin CLI reads ADMIN_TOKEN from ${SECRETS_FILE} for ${adminUrl}):
  npm run -s admin -- --url ${adminUrl} accounts create "First customer"
  npm run -s admin -- --url ${adminUrl} tokens create <account-id> --name first
Model keys and other settings: npx wrangler secret put OPENAI_API_KEY (see Settings in the README).`)
