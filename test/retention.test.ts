import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { readConfig } from '../src/config'
import { handleScheduled } from '../src/runtime/consumer'
import { purgeStored } from '../src/runtime/retention'
import { readVariables, writeVariable } from '../src/runtime/variables'
import { action, newCaller, request } from './helpers'

const wf = (id: string) => ({ 'workflow-id': id })
const DAY = 86_400_000

async function kvKeys(prefix: string): Promise<string[]> {
  return (await env.CACHE.list({ prefix })).keys.map((k) => k.name)
}

describe('variable limits', () => {
  it('refuses a write that would take a Workflow-Id scope past MAX_SCOPE_BYTES with a 413 naming the limit, keeping what was there', async () => {
    const { token } = await newCaller('scope limit')
    const scope = wf('full')
    expect((await action('store_variable', { name: 'a', value: 'x'.repeat(1000) }, token, scope)).status).toBe(200)
    // Each write resolves to about 1 MB; the scope holds at most 16 MiB.
    let refused: { status: number; body: { error: string; code: string; details: { path: string }[] } } | null = null
    let stored = 0
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await action('store_variable', { name: `v${i}`, value: '{{a}}'.repeat(1000) }, token, scope)
      if (res.status === 413) refused = res
      else {
        expect(res.status).toBe(200)
        stored++
      }
    }
    expect(stored).toBe(16)
    expect(refused!.body.code).toBe('PAYLOAD_TOO_LARGE')
    expect(refused!.body.error).toContain('MAX_SCOPE_BYTES')
    expect(refused!.body.details[0].path).toBe('/value')
    expect((await action('get_variable', { name: 'v16' }, token, scope)).status).toBe(404)
    expect((await action('get_variable', { name: 'v0' }, token, scope)).body.response.value).toHaveLength(1_000_000)
    // Overwriting a variable counts its new size only; another scope of the account has its own limit.
    expect((await action('store_variable', { name: 'v0', value: 'small' }, token, scope)).status).toBe(200)
    expect((await action('store_variable', { name: 'v16', value: '{{a}}'.repeat(1000) }, token, scope)).status).toBe(200)
    expect((await action('store_variable', { name: 'a', value: 'x'.repeat(1000) }, token, wf('elsewhere'))).status).toBe(200)
    expect((await action('store_variable', { name: 'v', value: '{{a}}'.repeat(1000) }, token, wf('elsewhere'))).status).toBe(200)
  })

  it("records an action's result that does not fit as not kept, so a later reference says why instead of reading an older value", async () => {
    const { accountId } = await newCaller('omitted')
    const config = { ...readConfig(env), maxVariableBytes: 100, maxScopeBytes: 250 }
    const scope = { db: env.DB, cache: env.CACHE, config, accountId, workflowId: 'small' }
    await writeVariable(scope, 'r', 'first value', Date.now(), 'refuse')
    await expect(writeVariable(scope, 'big', 'x'.repeat(200), Date.now(), 'refuse')).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    await writeVariable(scope, 'r', 'y'.repeat(200), Date.now(), 'omit')
    await expect(readVariables(scope, ['r'], Date.now())).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('holds no value') })
    await writeVariable(scope, 'a', 'a'.repeat(90), Date.now(), 'refuse')
    await writeVariable(scope, 'b', 'b'.repeat(90), Date.now(), 'refuse')
    await expect(writeVariable(scope, 'c', 'c'.repeat(90), Date.now(), 'refuse')).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('MAX_SCOPE_BYTES') })
    expect([...(await readVariables(scope, ['a', 'b', 'c'], Date.now())).keys()].sort()).toEqual(['a', 'b'])
  })
})

describe('retention', () => {
  it('purges runs past RUN_RETENTION_DAYS with their KV blobs, and expired variables with theirs, keeping recent ones', async () => {
    const { token } = await newCaller('retention')
    const big = 'r'.repeat(600_000)
    const old = await action('store_variable', { name: 'v', value: big }, token, wf('old'))
    const recent = await action('store_variable', { name: 'w', value: big }, token, wf('recent'))
    const queued = await action('store_variable', { name: 'q', value: big }, token, { ...wf('old'), prefer: 'respond-async' })
    expect((await request('GET', `/v1/runs/${queued.body.response.run_id}?wait=20`, { token })).body.response.state).toBe('succeeded')
    const oldIds = [old.headers.get('x-run-id')!, queued.body.response.run_id as string]
    const recentId = recent.headers.get('x-run-id')!
    for (const id of oldIds) expect((await kvKeys(`blob:run:${id}:`)).length).toBeGreaterThan(0)
    const config = readConfig(env)
    const now = Date.now() + (config.runRetentionDays + 1) * DAY
    await env.DB.prepare('UPDATE runs SET finished_at = ? WHERE id IN (?, ?)')
      .bind(now - (config.runRetentionDays + 1) * DAY, oldIds[0], oldIds[1])
      .run()
    await env.DB.prepare('UPDATE runs SET finished_at = ? WHERE id = ?')
      .bind(now - DAY, recentId)
      .run()
    // The old scope expired; the recent one is still live.
    await env.DB.prepare("UPDATE variables SET expires_at = ? WHERE workflow_id = 'old'")
      .bind(now - 1)
      .run()
    await env.DB.prepare("UPDATE variables SET expires_at = ? WHERE workflow_id = 'recent'")
      .bind(now + DAY)
      .run()

    const stats = await purgeStored(env, config, now)
    expect(stats.runs).toBeGreaterThanOrEqual(2)
    expect(stats.variables).toBeGreaterThanOrEqual(2)
    for (const id of oldIds) {
      expect((await request('GET', `/v1/runs/${id}`, { token })).status).toBe(404)
      expect(await kvKeys(`blob:run:${id}:`)).toEqual([])
    }
    expect((await request('GET', `/v1/runs/${recentId}`, { token })).body.response.output.value).toHaveLength(600_000)
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM variables WHERE workflow_id = 'old'").first('n')).toBe(0)
    const accountId = (await env.DB.prepare('SELECT account_id FROM runs WHERE id = ?').bind(recentId).first<{ account_id: string }>())!.account_id
    expect(await kvKeys(`blob:var:${accountId}:old:`)).toEqual([])
    expect((await kvKeys(`blob:var:${accountId}:recent:`)).length).toBe(1)
  })

  it('purges in bounded steps: a backlog larger than one cron run is finished by the next', async () => {
    const { accountId } = await newCaller('backlog')
    const long = Date.now() - 400 * DAY
    const ids = Array.from({ length: 2_600 }, (_, i) => `run_backlog${String(i).padStart(6, '0')}`)
    for (let i = 0; i < ids.length; i += 100) {
      await env.DB.batch(
        ids
          .slice(i, i + 100)
          .map((id) =>
            env.DB.prepare("INSERT INTO runs (id, account_id, action, state, input, created_at, started_at, finished_at, output) VALUES (?, ?, 'search', 'succeeded', '{}', ?, ?, ?, '[]')").bind(
              id,
              accountId,
              long,
              long,
              long,
            ),
          ),
      )
    }
    const count = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM runs WHERE id LIKE 'run_backlog%'").first<number>('n'))!
    await handleScheduled({} as ScheduledController, env)
    const left = await count()
    expect(left).toBeGreaterThan(0)
    expect(left).toBeLessThan(ids.length)
    await handleScheduled({} as ScheduledController, env)
    expect(await count()).toBe(0)
  })
})

describe('rows written before the storage kinds existed', () => {
  it('reads old KV markers that name their own row as KV values, and every other look-alike as the data it is', async () => {
    const { token, accountId } = await newCaller('legacy rows')
    const big = { text: 'l'.repeat(600_000) }
    const ownKey = `blob:var:${accountId}:legacy:big`
    await env.CACHE.put(ownKey, JSON.stringify(big))
    const later = Date.now() + DAY
    const rows = [
      ['big', JSON.stringify({ $kv: ownKey })],
      ['fake', JSON.stringify({ $kv: `blob:var:${accountId}:legacy:other` })],
      ['foreign', JSON.stringify({ $kv: 'blob:var:acc_someone:legacy:big' })],
    ]
    for (const [name, value] of rows) {
      await env.DB.prepare("INSERT INTO variables (account_id, workflow_id, name, value, updated_at, expires_at) VALUES (?, 'legacy', ?, ?, ?, ?)")
        .bind(accountId, name, value, Date.now(), later)
        .run()
    }
    // The statements of the migration that convert old rows, run again over these rows.
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith('0012'))!
    const statements = migration.queries.map((q) => q.replace(/^\s*--.*$/gm, '').trim()).filter((q) => /^UPDATE variables/i.test(q))
    expect(statements).toHaveLength(2)
    for (const q of statements) await env.DB.prepare(q).run()
    const get = async (name: string) => (await action('get_variable', { name }, token, wf('legacy'))).body.response.value
    expect(JSON.stringify(await get('big')) === JSON.stringify(big)).toBe(true)
    expect(await get('fake')).toEqual({ $kv: `blob:var:${accountId}:legacy:other` })
    expect(await get('foreign')).toEqual({ $kv: 'blob:var:acc_someone:legacy:big' })
  })
})
