import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deployedUrl,
  generateSecrets,
  parseEnvFile,
  parseJsonOutput,
  parseTable,
  planSecrets,
  readWranglerConfig,
  renderSecretsFile,
  SECRETS_FILE,
  setResourceIds,
  WORKER_SECRETS,
} from '../../scripts/lib/deploy.mjs'
import { saveSecretsOnce } from '../../scripts/lib/secrets-file.mjs'

const execFileAsync = promisify(execFile)
const toml = readFileSync('wrangler.toml', 'utf8')
const wranglerBin = resolve('node_modules/.bin/wrangler')
const uuid = fc.uuid()
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/)

describe('deploy:setup reads and rewrites wrangler.toml', () => {
  it('finds the Worker name, the D1 database, the KV namespace and every queue of the real config', () => {
    expect(readWranglerConfig(toml)).toEqual({
      name: 'agent-action-api',
      d1: [{ binding: 'DB', name: 'agent-action-api', id: '00000000-0000-0000-0000-000000000000' }],
      kv: [{ binding: 'CACHE', id: '00000000000000000000000000000000' }],
      queues: ['agent-action-jobs', 'agent-action-jobs-dlq'],
    })
  })

  it('writes any ids into the real config, changing those two lines only, and a second run changes nothing', () => {
    fc.assert(
      fc.property(uuid, hex32, (dbId, kvId) => {
        const once = setResourceIds(toml, { d1: { DB: dbId }, kv: { CACHE: kvId } })
        const config = readWranglerConfig(once)
        expect(config.d1[0].id).toBe(dbId)
        expect(config.kv[0].id).toBe(kvId)
        const changed = once.split('\n').filter((line, i) => line !== toml.split('\n')[i])
        expect(changed).toEqual([`database_id = "${dbId}"`, `id = "${kvId}"`])
        expect(setResourceIds(once, { d1: { DB: dbId }, kv: { CACHE: kvId } })).toBe(once)
      }),
      { numRuns: 200 },
    )
  })

  it('adds a missing id line below the binding, keeps comments, and picks the table by its binding', () => {
    const text = [
      'name = "w"',
      '[[kv_namespaces]]',
      'binding = "OTHER"',
      'id = "keep-me" # a comment',
      '',
      '[[kv_namespaces]]',
      'binding = "CACHE"',
      '',
      '[[d1_databases]]',
      'binding = "DB"',
      '  database_id = "old"   # filled in by deploy:setup',
      'database_name = "db"',
    ].join('\n')
    const out = setResourceIds(text, { d1: { DB: 'new-db' }, kv: { CACHE: 'new-kv' } }).split('\n')
    expect(out[3]).toBe('id = "keep-me" # a comment')
    expect(out.slice(5, 8)).toEqual(['[[kv_namespaces]]', 'binding = "CACHE"', 'id = "new-kv"'])
    expect(out[11]).toBe('  database_id = "new-db"   # filled in by deploy:setup')
    expect(() => setResourceIds(text, { kv: { MISSING: 'x' } })).toThrow(/binding = "MISSING"/)
  })
})

describe("deploy:setup reads wrangler's own output", () => {
  let api: Server
  let base: string
  const calls: string[] = []
  const databases = [
    { uuid: '6f1c2d3e-aaaa-4bbb-8ccc-0123456789ab', name: 'other-db', created_at: '2026-01-01T00:00:00Z', version: 'production', num_tables: 3, file_size: 4096 },
    { uuid: 'b7e0c1d2-1111-4222-8333-444455556666', name: 'agent-action-api', created_at: '2026-02-01T00:00:00Z', version: 'production', num_tables: 30, file_size: 81920 },
  ]
  const namespaces = [
    { id: '0123456789abcdef0123456789abcdef', title: 'agent-action-api-cache', supports_url_encoding: true },
    { id: 'fedcba9876543210fedcba9876543210', title: 'CACHE', supports_url_encoding: true },
  ]
  const queue = (name: string, id: string) => ({
    queue_id: id,
    queue_name: name,
    created_on: '2026-02-01T00:00:00Z',
    modified_on: '2026-02-01T00:00:00Z',
    producers_total_count: 1,
    consumers_total_count: 1,
  })
  const queues = [queue('agent-action-jobs', 'q1'), queue('agent-action-jobs-dlq', 'q2')]

  beforeAll(async () => {
    // A stand-in for the Cloudflare API on 127.0.0.1, answering the list calls as the real API does.
    api = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`)
      const url = new URL(req.url ?? '/', 'http://x')
      const path = url.pathname.replace('/client/v4/accounts/acc-test', '')
      const lists: Record<string, unknown[]> = {
        '/d1/database': databases,
        '/storage/kv/namespaces': namespaces,
        '/queues': queues,
        '/workers/scripts/agent-action-api/secrets': [{ name: 'ADMIN_TOKEN', type: 'secret_text' }],
      }
      const all = lists[path]
      const page = Number(url.searchParams.get('page') ?? '1')
      const perPage = Number(url.searchParams.get('per_page') ?? '20')
      const result = all?.slice((page - 1) * perPage, page * perPage)
      res.setHeader('content-type', 'application/json')
      res.statusCode = all ? 200 : 404
      res.end(
        JSON.stringify({
          success: !!all,
          errors: all ? [] : [{ code: 10000, message: 'not in the stand-in' }],
          messages: [],
          result: result ?? null,
          result_info: all ? { page, per_page: perPage, count: result?.length, total_count: all.length, total_pages: Math.ceil(all.length / perPage) } : undefined,
        }),
      )
    })
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/client/v4`
  })

  afterAll(() => new Promise<void>((r) => api.close(() => r())))

  // Asynchronous, so the stand-in in this process can answer while wrangler waits.
  async function wrangler(args: string[]) {
    const { stdout } = await execFileAsync(wranglerBin, args, {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, CLOUDFLARE_API_BASE_URL: base, CLOUDFLARE_API_TOKEN: 'test-token', CLOUDFLARE_ACCOUNT_ID: 'acc-test', WRANGLER_SEND_METRICS: 'false', CI: 'true' },
    })
    return stdout
  }

  it('reads `d1 list --json`, `kv namespace list`, the `queues list` table and `secret list --format json`', async () => {
    expect(parseJsonOutput(await wrangler(['d1', 'list', '--json'])).map((d: { uuid: string; name: string }) => [d.name, d.uuid])).toEqual(databases.map((d) => [d.name, d.uuid]))
    expect(parseJsonOutput(await wrangler(['kv', 'namespace', 'list']))).toEqual(namespaces)
    expect(parseTable(await wrangler(['queues', 'list', '--page', '1'])).map((q) => [q.name, q.id])).toEqual([
      ['agent-action-jobs', 'q1'],
      ['agent-action-jobs-dlq', 'q2'],
    ])
    expect(parseTable(await wrangler(['queues', 'list', '--page', '2']))).toEqual([])
    expect(parseJsonOutput(await wrangler(['secret', 'list', '--format', 'json']))).toEqual([{ name: 'ADMIN_TOKEN', type: 'secret_text' }])
    expect(calls.some((c) => c.startsWith('GET /client/v4/accounts/acc-test/queues?page=2'))).toBe(true)
  }, 120_000)
})

describe("deploy:setup reads the Worker's URL from `wrangler deploy`", () => {
  it('takes the workers.dev target under "Deployed ... triggers", not the account subdomain or a preview pattern', () => {
    const output = [
      'Creating a workers.dev subdomain for your account at https://acme.workers.dev. Ok to proceed?',
      'Total Upload: 812.44 KiB / gzip: 160.10 KiB',
      'Uploaded agent-action-api (4.12 sec)',
      'Deployed agent-action-api triggers (1.20 sec)',
      '  https://agent-action-api.acme.workers.dev',
      '  schedule: */15 * * * *',
      '  Producer for agent-action-jobs',
      'Current Version ID: 1234',
    ].join('\n')
    expect(deployedUrl(output)).toBe('https://agent-action-api.acme.workers.dev')
    expect(deployedUrl('Deployed agent-action-api triggers (1 sec)\n  example.com/*\n')).toBeNull()
  })
})

describe('the deploy secrets file', () => {
  it('is ignored by git', () => {
    expect(readFileSync('.gitignore', 'utf8').split('\n')).toContain(SECRETS_FILE)
  })

  it('is written once with mode 0600 and never overwritten', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deploy-secrets-'))
    try {
      const path = join(dir, SECRETS_FILE)
      const secrets = generateSecrets()
      const text = renderSecretsFile({ worker: 'agent-action-api', url: 'https://agent-action-api.acme.workers.dev', secrets, createdAt: '2026-11-23T00:00:00Z' })
      saveSecretsOnce(path, text)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(parseEnvFile(readFileSync(path, 'utf8'))).toEqual({ WORKER_NAME: 'agent-action-api', WORKER_URL: 'https://agent-action-api.acme.workers.dev', ...secrets })
      expect(() => saveSecretsOnce(path, 'ADMIN_TOKEN=other\n')).toThrow(/never overwritten/)
      expect(readFileSync(path, 'utf8')).toBe(text)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('holds fresh secrets of the sizes the Worker expects', () => {
    const a = generateSecrets()
    expect(Object.keys(a)).toEqual(WORKER_SECRETS.map((s) => s.name))
    expect(a.ADMIN_TOKEN).toMatch(/^[0-9a-f]{48}$/)
    expect(Buffer.from(a.ENCRYPTION_KEY, 'base64')).toHaveLength(32)
    expect(generateSecrets(['ADMIN_TOKEN']).ADMIN_TOKEN).not.toBe(a.ADMIN_TOKEN)
  })
})

describe('deploy:setup gives the Worker its secrets', () => {
  const base = { worker: 'agent-action-api', url: 'https://agent-action-api.acme.workers.dev', createdAt: '2026-11-23T00:00:00Z' }
  const names = WORKER_SECRETS.map((s) => s.name)

  it('on a first deploy saves every secret to the file, then puts the same values', () => {
    const fresh = generateSecrets()
    const plan = planSecrets({ ...base, saved: null, present: [], fresh })
    if (plan.error !== undefined) throw new Error(plan.error)
    expect(plan.put).toEqual(fresh)
    expect(parseEnvFile(plan.file ?? '')).toEqual({ WORKER_NAME: base.worker, WORKER_URL: base.url, ...fresh })
  })

  it('on a rerun puts nothing the Worker has and writes no file, whatever subset it has', () => {
    fc.assert(
      fc.property(fc.subarray(names), fc.boolean(), (present, hasFile) => {
        const saved: Record<string, string> | null = hasFile ? { WORKER_NAME: base.worker, WORKER_URL: base.url, ...generateSecrets() } : null
        const fresh = generateSecrets()
        const plan = planSecrets({ ...base, saved, present, fresh })
        if (plan.error !== undefined) throw new Error(plan.error)
        const missing = names.filter((n) => !present.includes(n))
        expect(Object.keys(plan.put)).toEqual(missing)
        // Values come from the file when there is one; a file is only written when there was none and something is missing.
        for (const n of missing) expect(plan.put[n]).toBe((saved ?? fresh)[n])
        expect(plan.file !== null).toBe(!hasFile && missing.length > 0)
        if (plan.file) expect(Object.keys(parseEnvFile(plan.file))).toEqual(['WORKER_NAME', 'WORKER_URL', ...missing])
      }),
    )
  })

  it('refuses a file of another Worker, and a file that lacks a secret the Worker lacks too', () => {
    expect(planSecrets({ ...base, saved: { WORKER_NAME: 'other' }, present: [], fresh: generateSecrets() }).error).toMatch(/belongs to the Worker "other"/)
    const partial = planSecrets({ ...base, saved: { WORKER_NAME: base.worker, ADMIN_TOKEN: 'a' }, present: [], fresh: generateSecrets() })
    expect(partial.error).toMatch(/lacks ENCRYPTION_KEY, WEBHOOK_SIGNING_SECRET/)
  })

  it('says when the Worker has an admin token that no local file knows', () => {
    const plan = planSecrets({ ...base, saved: null, present: names, fresh: generateSecrets() })
    if (plan.error !== undefined) throw new Error(plan.error)
    expect(plan.put).toEqual({})
    expect(plan.file).toBeNull()
    expect(plan.notes.join('\n')).toMatch(/ADMIN_TOKEN: already set on the Worker, kept \(its value is in no local file: export it/)
  })
})

describe('the Worker bundle', () => {
  it('builds with `wrangler deploy --dry-run`', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'deploy-dry-run-'))
    try {
      const r = spawnSync(wranglerBin, ['deploy', '--dry-run', '--outdir', outdir], { encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' } })
      expect(r.status, r.stdout + r.stderr).toBe(0)
      expect(r.stdout).toMatch(/--dry-run: exiting now/)
      expect(existsSync(join(outdir, 'index.js'))).toBe(true)
      expect(statSync(join(outdir, 'index.js')).size).toBeGreaterThan(100_000)
    } finally {
      rmSync(outdir, { recursive: true, force: true })
    }
  }, 120_000)
})
