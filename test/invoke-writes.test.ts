import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
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
