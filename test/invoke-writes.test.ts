import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app'
import { countingDb, newCaller, request, type Json, type Trip } from './helpers'

/**
 * An inline invocation without an Idempotency-Key is written once, when it ends: its steps' runs,
 * the execution count and its own record go to D1 in one batch (one transaction), and the caller's
 * grant to the agent is read with the agent. Counted at D1's interface: each round trip and the SQL
 * of its statements.
 */
/** Calls the Worker with D1 counted; answers the status, the body and the round trips. */
async function counted(path: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; runId: string; trips: Trip[] }> {
  const trips: Trip[] = []
  const ctx = createExecutionContext()
  const res = await createApp().fetch(
    new Request(`https://api.test${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    { ...env, DB: countingDb(env.DB, trips) },
    ctx,
  )
  await waitOnExecutionContext(ctx)
  return { status: res.status, body: await res.json<Json>(), runId: res.headers.get('x-run-id') ?? '', trips }
}

const writesRuns = (sql: string) => /^\s*(INSERT INTO runs|UPDATE runs)\b/.test(sql)
const readsGrants = (sql: string) => /^\s*SELECT[\s\S]*\bFROM agent_grants\b/.test(sql)
const countsExecution = (sql: string) => /^\s*UPDATE agents SET executions = executions \+ 1\b/.test(sql)

async function runsOf(runId: string): Promise<Json[]> {
  const { results } = await env.DB.prepare('SELECT id, parent_run_id, action, state, output, error_code FROM runs WHERE id = ?1 OR parent_run_id = ?1 ORDER BY created_at, id').bind(runId).all()
  return results
}

const executions = async (id: string) => (await env.DB.prepare('SELECT executions FROM agents WHERE id = ?').bind(id).first<{ executions: number }>())!.executions

let author: { token: string; accountId: string }
let invoker: { token: string; accountId: string }
let twoSearches: string
let failsSecond: string

beforeAll(async () => {
  ;[author, invoker] = await Promise.all([newCaller('writes author'), newCaller('writes invoker')])
  const create = async (workflow: Json) => {
    const res = await request('POST', '/v1/agents', { token: author.token, body: { name: 'Write probe', description: 'Counts its writes', visibility: 'public', workflow } })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body.response.id as string
  }
  twoSearches = await create({
    steps: [
      { id: 'first', action: 'search', input: { query: 'write probe' } },
      { id: 'second', action: 'search', input: { query: 'counts writes' } },
    ],
  })
  failsSecond = await create({
    steps: [
      { id: 'first', action: 'search', input: { query: 'write probe' } },
      { id: 'second', action: 'get_variable', input: { name: 'never_stored' } },
    ],
  })
})

describe('an inline invocation is written once, when it ends', () => {
  it("sends its steps' runs, the execution count and its record in one batch, and reads the grant with the agent", async () => {
    const before = await executions(twoSearches)
    const res = await counted('/v1/action/invoke_agent', invoker.token, { id: twoSearches, input: {} })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const runWrites = res.trips.filter((t) => t.some(writesRuns))
    expect(runWrites).toHaveLength(1)
    expect(runWrites[0].filter((sql) => /^\s*INSERT INTO runs\b/.test(sql))).toHaveLength(3)
    expect(runWrites[0].some(countsExecution)).toBe(true)
    expect(res.trips.flat().filter((sql) => /^\s*UPDATE runs\b/.test(sql))).toEqual([])
    expect(res.trips.flat().filter(readsGrants)).toEqual([])
    expect(res.trips.flat().filter(countsExecution)).toHaveLength(1)

    const runId = res.runId
    const runs = await runsOf(runId)
    expect(runs.map((r) => [r.id, r.parent_run_id, r.action, r.state])).toEqual([
      [runId, null, 'invoke_agent', 'succeeded'],
      [`${runId}_first`, runId, 'search', 'succeeded'],
      [`${runId}_second`, runId, 'search', 'succeeded'],
    ])
    // The invoker runs another account's agent: the run keeps the agent's answer, its steps no output (README, Tenancy).
    expect(JSON.parse(runs[0].output)).toEqual(res.body.response)
    expect(runs.slice(1).map((r) => JSON.parse(r.output))).toEqual([null, null])
    expect(await executions(twoSearches)).toBe(before + 1)
  })

  it("sends a failed step's record with the run's failure, and counts no execution", async () => {
    const before = await executions(failsSecond)
    const res = await counted('/v1/action/invoke_agent', invoker.token, { id: failsSecond, input: {} })
    expect(res.status, JSON.stringify(res.body)).toBe(404)
    const runWrites = res.trips.filter((t) => t.some(writesRuns))
    expect(runWrites).toHaveLength(1)
    expect(res.trips.flat().filter(countsExecution)).toEqual([])

    const runId = res.runId
    expect((await runsOf(runId)).map((r) => [r.id, r.state, r.error_code])).toEqual([
      [runId, 'failed', 'NOT_FOUND'],
      [`${runId}_first`, 'succeeded', null],
      [`${runId}_second`, 'failed', 'NOT_FOUND'],
    ])
    expect(await executions(failsSecond)).toBe(before)
  })

  it('keeps writing each step as it runs when the run has a row from the start (Idempotency-Key)', async () => {
    const before = await executions(twoSearches)
    const res = await counted('/v1/action/invoke_agent', invoker.token, { id: twoSearches, input: {} }, { 'idempotency-key': `writes-${crypto.randomUUID()}` })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // Each step's run is inserted before it runs and ended after, so a retried run finds it.
    expect(res.trips.filter((t) => t.some(writesRuns)).length).toBeGreaterThanOrEqual(5)
    const runId = res.runId
    expect((await runsOf(runId)).map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    expect(await executions(twoSearches)).toBe(before + 1)
  })
})

describe('each step of a workflow has a run of its own', () => {
  /** Two step ids the former child run id made one: alike but for underscores, or in their first 24 letters and digits. */
  const lookAlikes = fc.oneof(
    fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{1,20}$/), fc.integer({ min: 1, max: 20 })).map(([id, at]): [string, string] => {
      const cut = Math.min(at, id.length - 1)
      return [id, `${id.slice(0, cut)}_${id.slice(cut)}`]
    }),
    fc
      .tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{23}$/), fc.stringMatching(/^[A-Za-z0-9_]{1,16}$/), fc.stringMatching(/^[A-Za-z0-9_]{1,16}$/))
      .map(([head, a, b]): [string, string] => [`${head}${a}`, `${head}${b}x`]),
  )

  it('"a_b" and "ab" answer 200 with a record each, inline (the minimal case: a 500 before)', async () => {
    const res = await request('POST', '/v1/agents', {
      token: author.token,
      body: {
        name: 'Look-alike steps',
        description: 'Step ids alike but for an underscore',
        workflow: {
          steps: [
            { id: 'a_b', action: 'search', input: { query: 'x' } },
            { id: 'ab', action: 'search', input: { query: 'y' } },
          ],
        },
      },
    })
    expect(res.status).toBe(201)
    const called = await counted('/v1/action/invoke_agent', author.token, { id: res.body.response.id, input: {} })
    expect(called.status, JSON.stringify(called.body)).toBe(200)
    expect((await runsOf(called.runId)).map((r) => r.id).sort()).toEqual([called.runId, `${called.runId}_a_b`, `${called.runId}_ab`].sort())
  })

  it('whatever two step ids are, inline, with an Idempotency-Key and queued (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(lookAlikes, fc.constantFrom('inline', 'idempotent', 'queued'), async ([first, second], mode) => {
        fc.pre(first !== second)
        const created = await request('POST', '/v1/agents', {
          token: author.token,
          body: {
            name: 'Look-alike steps',
            description: 'Two steps whose ids the former child run id confused',
            workflow: {
              steps: [
                { id: first, action: 'search', input: { query: 'x' } },
                { id: second, action: 'meeting_prep_generate_subject_line', input: { meeting_title: 'Kickoff' } },
              ],
            },
          },
        })
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        const headers: Record<string, string> = mode === 'idempotent' ? { 'idempotency-key': crypto.randomUUID() } : mode === 'queued' ? { prefer: 'respond-async' } : {}
        const called = await counted('/v1/action/invoke_agent', author.token, { id: created.body.response.id, input: {} }, headers)
        expect(called.status, `${mode} ${first} ${second}: ${JSON.stringify(called.body)}`).toBe(mode === 'queued' ? 202 : 200)
        if (mode === 'queued') {
          const done = await request('GET', `/v1/runs/${called.runId}?wait=20`, { token: author.token })
          expect(done.body.response.state, JSON.stringify(done.body.response.error)).toBe('succeeded')
        }
        const runs = await runsOf(called.runId)
        const steps = runs.filter((r) => r.parent_run_id === called.runId)
        expect(steps.map((r) => [r.id, r.action, r.state]).sort()).toEqual(
          [
            [`${called.runId}_${first}`, 'search', 'succeeded'],
            [`${called.runId}_${second}`, 'meeting_prep_generate_subject_line', 'succeeded'],
          ].sort(),
        )
      }),
      { numRuns: 15, seed: 20261129 },
    )
  })
})
