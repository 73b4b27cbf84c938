#!/usr/bin/env node
/**
 * Admin CLI: calls /v1/admin/* of a local or deployed instance.
 *   ADMIN_TOKEN=... npm run admin -- [--url http://localhost:8787] <command>
 * Without ADMIN_TOKEN exported, the local .dev.vars token is sent only to local URLs, and the deploy
 * secrets file's token only to the Worker URL it was written for.
 * Commands print JSON, except `accounts create` (the account id alone) and `tokens create` (the token alone),
 * so scripts can capture them: TOKEN=$(npm run -s admin -- tokens create acc_...).
 */
import { existsSync, readFileSync } from 'node:fs'
import { adminTokenFor } from './lib/admin-token.mjs'
import { parseEnvFile, SECRETS_FILE } from './lib/deploy.mjs'

const USAGE = `usage: npm run admin -- [--url URL] <command>
  accounts create <name> [--per-minute N] [--per-day N]   prints the account id
  accounts list
  accounts limits <account-id> [--per-minute N|none] [--per-day N|none]
  teams create <name>                                      prints the team id
  teams list
  teams members <team-id>
  teams add <team-id> <account-id> [--role member|admin]
  teams remove <team-id> <account-id>
  tokens create <account-id> [--name NAME] [--expires-in-days N]   prints the token
  tokens list <account-id>
  tokens revoke <token-id>
ADMIN_TOKEN comes from the environment; without it, .dev.vars is used for a local URL (localhost,
127.0.0.0/8, [::1]) and ${SECRETS_FILE} (written by npm run deploy:setup) for the Worker URL it names.`

function fail(message, code = 1) {
  process.stderr.write(message + '\n')
  process.exit(code)
}

const argv = process.argv.slice(2)
const flags = {}
const positional = []
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]
  if (a.startsWith('--')) {
    const [k, inline] = a.slice(2).split('=', 2)
    flags[k] = inline ?? argv[++i]
  } else positional.push(a)
}
if (flags.help !== undefined || positional.length < 2) fail(USAGE, positional.length ? 2 : 0)

const base = (flags.url ?? process.env.AGENT_API_URL ?? 'http://localhost:8787').replace(/\/+$/, '')
try {
  new URL(base)
} catch {
  fail(`--url ${base} is not a URL (e.g. --url https://agent-action-api.<you>.workers.dev)`, 2)
}
const readEnvFile = (path) => (existsSync(path) ? parseEnvFile(readFileSync(path, 'utf8')) : undefined)
const found = adminTokenFor(base, {
  env: process.env,
  devVars: readEnvFile('.dev.vars'),
  deploySecrets: readEnvFile(SECRETS_FILE),
  deploySecretsPath: SECRETS_FILE,
})
if (found.error) fail(found.error)
const adminToken = found.token

async function call(method, path, body) {
  let res
  try {
    res = await fetch(base + '/v1/admin' + path, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      // The admin API never redirects; a redirect must not carry the token anywhere else.
      redirect: 'error',
    })
  } catch (err) {
    fail(`cannot reach ${base}: ${err.cause?.code ?? err.message}`)
  }
  const data = await res.json().catch(() => null)
  if (!res.ok) fail(`${res.status}: ${data?.error ?? res.statusText}`)
  return data.response
}

const num = (v) => (v === undefined ? undefined : v === 'none' ? null : Number(v))
const print = (v) => process.stdout.write((typeof v === 'string' ? v : JSON.stringify(v, null, 2)) + '\n')
const [group, cmd, ...rest] = positional

const commands = {
  'accounts create': async () => print((await call('POST', '/accounts', { name: rest[0], rate_limit_per_minute: num(flags['per-minute']), rate_limit_per_day: num(flags['per-day']) })).id),
  'accounts list': async () => print(await call('GET', '/accounts')),
  'accounts limits': async () => print(await call('PATCH', `/accounts/${rest[0]}`, { rate_limit_per_minute: num(flags['per-minute']), rate_limit_per_day: num(flags['per-day']) })),
  'teams create': async () => print((await call('POST', '/teams', { name: rest[0] })).id),
  'teams list': async () => print(await call('GET', '/teams')),
  'teams members': async () => print(await call('GET', `/teams/${rest[0]}/members`)),
  'teams add': async () => print(await call('PUT', `/teams/${rest[0]}/members/${rest[1]}`, { role: flags.role ?? 'member' })),
  'teams remove': async () => print(await call('DELETE', `/teams/${rest[0]}/members/${rest[1]}`)),
  'tokens create': async () =>
    print((await call('POST', `/accounts/${rest[0]}/tokens`, { name: flags.name ?? 'cli', expires_in_days: flags['expires-in-days'] ? Number(flags['expires-in-days']) : undefined })).token),
  'tokens list': async () => print(await call('GET', `/accounts/${rest[0]}/tokens`)),
  'tokens revoke': async () => print(await call('DELETE', `/tokens/${rest[0]}`)),
}

const run = commands[`${group} ${cmd}`]
if (!run) fail(USAGE, 2)
const needs = { 'accounts create': 1, 'accounts limits': 1, 'teams create': 1, 'teams members': 1, 'teams add': 2, 'teams remove': 2, 'tokens create': 1, 'tokens list': 1, 'tokens revoke': 1 }
if ((needs[`${group} ${cmd}`] ?? 0) > rest.length) fail(USAGE, 2)
await run()
