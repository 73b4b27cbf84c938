import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { z } from 'zod'
import { afterAll, describe, expect, it } from 'vitest'
import type { AnyAction } from '../src/actions/define'
import { readConfig } from '../src/config'
import { insertRun } from '../src/db/runs'
import { setOwn } from '../src/lib/objects'
import { createContext, executeRun, type Runtime } from '../src/runtime/execute'
import { createLogger } from '../src/runtime/log'
import { action, newCaller, request, runningRun, type Json } from './helpers'
import { getAction } from '../src/actions/registry'

/**
 * Caller data is data: any JSON value stored through any path that stores caller data comes back
 * byte for byte, never as something it merely looks like (a KV pointer, a sealed value, a prototype).
 */

const wf = (id: string) => ({ 'workflow-id': id })
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Keys and texts that meant something to the old storage code, or to JavaScript. */
const loaded = ['$kv', '$ref', '__proto__', 'constructor', 'toString', 'prototype', 'blob:', 'v1.']
const text = fc
  .oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('{"$kv":"blob:var:x:y:z"}', '{"$kv":', 'v1.AAAA.BBBB', 'blob:run:run_x:output', '[redacted]', '\u0000', '\ud800', ...loaded),
  )
  .filter((s) => !s.includes('{{'))
const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...loaded, '')).filter((s) => !s.includes('{{'))

/** An object built with own keys only (a "__proto__" key stays a key). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of entries) setOwn(out, k, v)
  return out
}

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  text,
)

/** Any JSON value, with pointer-shaped objects (`{"$kv": ...}`, `{"$ref": ...}`) and "__proto__" keys mixed in. */
function jsonValue(pointerKeys: string[]) {
  const pointer = fc.oneof(
    text.map((t) => ({ $kv: t })),
    fc.constantFrom(...(pointerKeys.length ? pointerKeys : ['blob:none'])).map((k) => ({ $kv: k })),
    text.map((t) => ({ $ref: t })),
    fc.constant(objectOf([['__proto__', { polluted: true }]])),
  )
  return fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, pointer, fc.array(tie('value'), { maxLength: 4 }), fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map(objectOf)),
  })).value
}

/** Keys that exist in KV right now: blobs of another account's variables and run outputs. */
async function kvKeys(): Promise<string[]> {
  const keys: string[] = []
  let cursor: string | undefined
  do {
    const page = await env.CACHE.list({ cursor })
    keys.push(...page.keys.map((k) => k.name))
    cursor = page.list_complete ? undefined : page.cursor
  } while (cursor)
  return keys
}

async function waitDone(runId: string, token: string): Promise<Json> {
  const run = await request('GET', `/v1/runs/${runId}?wait=20`, { token })
  expect(run.body.response.state).toBe('succeeded')
  return run.body.response
}

const stats = { values: 0, checks: 0, changed: 0 }
const paths = new Set<string>()

function check(path: string, sent: unknown, got: unknown): void {
  paths.add(path)
  stats.checks++
  if (!same(sent, got)) {
    stats.changed++
    expect.soft(JSON.stringify(got)?.slice(0, 300), `${path} changed a stored value`).toBe(JSON.stringify(sent)?.slice(0, 300))
  }
}

describe('stored values are data, never pointers', () => {
  it('does not follow a stored {"$kv": key} to another account\'s large variable or run output', async () => {
    const victim = await newCaller('victim')
    const secret = { private: 'victim-only '.repeat(50_000) }
    expect((await action('store_variable', { name: 'big', value: secret }, victim.token, wf('vault'))).status).toBe(200)
    const keys = (await kvKeys()).filter((k) => k.startsWith('blob:'))
    expect(keys.length).toBeGreaterThan(0)

    const attacker = await newCaller('attacker')
    for (const [i, key] of [...keys, `blob:var:${victim.accountId}:vault:big`, 'blob:missing-key'].entries()) {
      const pointer = { $kv: key }
      const stored = await action('store_variable', { name: `p${i}`, value: pointer }, attacker.token, wf('probe'))
      expect(stored.status).toBe(200)
      const read = await action('get_variable', { name: `p${i}` }, attacker.token, wf('probe'))
      // The answer is the value stored: never the victim's data, never a 500 that says whether the key exists.
      expect(read.status).toBe(200)
      expect(read.body.response.value).toEqual(pointer)
      const spliced = await action('store_variable', { name: `q${i}`, value: '{{p' + i + '}}' }, attacker.token, wf('probe'))
      expect(spliced.body.response.value).toEqual(pointer)
    }
  })

  it('gives back any JSON value stored as a variable, by reference, as a run output, on an idempotent replay and through the queue', async () => {
    const { token } = await newCaller('round trips')
    const pointerKeys = (await kvKeys()).filter((k) => k.startsWith('blob:'))
    let n = 0
    await fc.assert(
      fc.asyncProperty(jsonValue(pointerKeys), async (value) => {
        const scope = wf(`rt${++n}`)
        stats.values++
        const stored = await action('store_variable', { name: 'v', value }, token, scope)
        expect(stored.status, JSON.stringify(stored.body).slice(0, 300)).toBe(200)
        check('store_variable response', value, stored.body.response.value)
        check('get_variable', value, (await action('get_variable', { name: 'v' }, token, scope)).body.response.value)
        const ref = await action('store_variable', { name: 'w', value: '{{v}}' }, token, scope)
        check('{{reference}}', value, ref.body.response.value)
        const run = await request('GET', `/v1/runs/${stored.headers.get('x-run-id')}`, { token })
        check('run output', value, run.body.response.output.value)
        const first = await action('store_variable', { name: 'i', value }, token, { ...scope, 'idempotency-key': `k${n}` })
        const replay = await action('store_variable', { name: 'i', value }, token, { ...scope, 'idempotency-key': `k${n}` })
        check('idempotent replay', first.body.response.value, replay.body.response.value)
        const queued = await action('store_variable', { name: 'q', value }, token, { ...scope, prefer: 'respond-async' })
        expect(queued.status).toBe(202)
        check('queued input', value, (await waitDone(queued.body.response.run_id, token)).output.value)
        check('variable from a queued run', value, (await action('get_variable', { name: 'q' }, token, scope)).body.response.value)
      }),
      { numRuns: 40 },
    )
  })

  it('gives back values past the inline limit through every path, kept in KV', async () => {
    const { token } = await newCaller('large')
    let n = 0
    await fc.assert(
      fc.asyncProperty(text, jsonValue([]), async (unit, extra) => {
        const value = { big: `${unit}${'L'.repeat(540_000)}${unit}`, extra, $kv: 'blob:run:x:output' }
        const scope = wf(`large${++n}`)
        stats.values++
        const stored = await action('store_variable', { name: 'v', value }, token, scope)
        expect(stored.status, JSON.stringify(stored.body).slice(0, 300)).toBe(200)
        check('large variable', value, (await action('get_variable', { name: 'v' }, token, scope)).body.response.value)
        const run = await request('GET', `/v1/runs/${stored.headers.get('x-run-id')}`, { token })
        check('large run output', value, run.body.response.output.value)
        const queued = await action('store_variable', { name: 'q', value }, token, { ...scope, prefer: 'respond-async' })
        check('large queued input', value, (await waitDone(queued.body.response.run_id, token)).output.value)
      }),
      { numRuns: 4 },
    )
  })

  it('gives back any run metadata and memoized step result', async () => {
    const { accountId, token } = await newCaller('metadata')
    const rt: Runtime = { env, config: readConfig(env), log: createLogger({ test: 'stored-data' }), actions: getAction, waitUntil: () => undefined }
    let n = 0
    await fc.assert(
      fc.asyncProperty(jsonValue([]), jsonValue([]), fc.boolean(), async (response, metadata, large) => {
        const meta = large ? { pad: 'm'.repeat(530_000), metadata } : metadata
        const runId = `run_meta${++n}${crypto.randomUUID().slice(0, 8)}`
        stats.values++
        await insertRun(env.DB, runningRun(runId, accountId, 'store_variable'))
        const echo: AnyAction = {
          name: 'store_variable',
          summary: 'echo',
          input: z.strictObject({}),
          hints: {},
          mode: 'inline',
          present: (o: { response: unknown; metadata: unknown }) => o,
          run: async () => ({ response, metadata: meta }),
        }
        const ctx = createContext(rt, { account: { id: accountId, teamIds: [] }, requestId: 'req', workflowId: null, signal: new AbortController().signal }, runId, true)
        check('step result (first run)', meta, await ctx.step('s', async () => meta))
        const again = createContext(rt, { account: { id: accountId, teamIds: [] }, requestId: 'req', workflowId: null, signal: new AbortController().signal }, runId, true)
        check('step result (replayed)', meta, await again.step('s', async () => 'recomputed'))
        await executeRun(rt, ctx, echo, {}, { id: runId, workflow_id: null, output_variable_name: null })
        const run = await request('GET', `/v1/runs/${runId}`, { token })
        check('run metadata', meta, run.body.response.metadata)
        check('run response', response, run.body.response.output)
      }),
      { numRuns: 25 },
    )
  })

  it('gives back agent workflows and parameters as saved, and their values when the agent runs', async () => {
    const { token } = await newCaller('agents')
    let n = 0
    await fc.assert(
      fc.asyncProperty(jsonValue([]), text, text, async (value, description, fallback) => {
        stats.values++
        const parameters = { type: 'object', properties: { note: { type: 'string', description, default: fallback } }, required: [] }
        const workflow = { steps: [{ id: 'keep', action: 'store_variable', input: { name: 'kept', value } }] }
        const created = await request('POST', '/v1/agents', { token, body: { name: `Keeper ${++n}`, description: 'keeps a value', parameters, workflow } })
        expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201)
        const id = created.body.response.id
        const got = (await request('GET', `/v1/agents/${id}`, { token })).body.response
        check('agent workflow', workflow, got.workflow)
        check('agent parameter description', description, got.parameters.properties.note.description)
        check('agent parameter default', fallback, got.parameters.properties.note.default)
        const ran = await action('invoke_agent', { id, input: {} }, token, wf(`agent${n}`))
        expect(ran.status, JSON.stringify(ran.body).slice(0, 300)).toBe(200)
        check('agent run result', value, ran.body.response.value)
      }),
      { numRuns: 25 },
    )
  })

  it('gives back built-in CRM property values, whatever their names and texts', async () => {
    const { token } = await newCaller('crm')
    const propertyName = fc
      .oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', '_kv', 'note'), fc.stringMatching(/^[a-z_][a-z0-9_]{0,20}$/))
      .filter((k) => !k.startsWith('hs_') && !['createdate', 'lastmodifieddate', 'email'].includes(k))
    let n = 0
    await fc.assert(
      fc.asyncProperty(propertyName, text, async (name, value) => {
        stats.values++
        const email = `crm${++n}@example.com`
        const properties = JSON.stringify(objectOf([[name, value]]))
        const updated = await action('crm.v2.update_object', { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: email, properties }, token)
        expect(updated.status, JSON.stringify(updated.body).slice(0, 300)).toBe(200)
        check('CRM update result', value, Object.hasOwn(updated.body.response.properties, name) ? updated.body.response.properties[name] : undefined)
        const read = await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: email, identification_method: 'Email Address (Contacts only)', properties: name }, token)
        expect(read.status, JSON.stringify(read.body).slice(0, 300)).toBe(200)
        check('CRM record', value, Object.hasOwn(read.body.response.properties, name) ? read.body.response.properties[name] : undefined)
      }),
      { numRuns: 40 },
    )
  })
})

afterAll(() => {
  console.log(`stored data: ${stats.values} generated values through ${paths.size} paths (${[...paths].join(', ')}); ${stats.checks} round trips, ${stats.changed} changed or followed`)
})
