import { beforeAll, describe, expect, it } from 'vitest'
import { action, createTeam, newCaller, request, type Json } from './helpers'
import { seedDemoCatalog } from './seed'

/**
 * Three accounts, two teams. A and B share team "blue"; C is alone in team "red". Every endpoint that
 * reads or writes account data is called across the boundary; nothing of another account may be
 * revealed or changed. Each check counts into `violations`, which must stay 0.
 */
type Caller = { token: string; accountId: string }
let A: Caller, B: Caller, C: Caller
let blue: string, red: string
const markerOf = (c: Caller) => `marker-${c.accountId}`
const violations: string[] = []
let checks = 0

function check(ok: boolean, what: string) {
  checks++
  if (!ok) violations.push(what)
}

beforeAll(async () => {
  await seedDemoCatalog()
  ;[A, B, C] = await Promise.all([newCaller('tenant A'), newCaller('tenant B'), newCaller('tenant C')])
  blue = await createTeam('blue', [A.accountId, B.accountId])
  red = await createTeam('red', [C.accountId])
})

const agentBody = (name: string, visibility: string, team_id?: string) => ({
  name,
  description: `Tenancy probe ${name}`,
  visibility,
  team_id,
  parameters: { type: 'object', properties: { q: { type: 'string', description: 'q' } }, required: [] },
  workflow: { steps: [{ id: 'remember', action: 'store_variable', input: { name: 'probe', value: '{{input.q}}' } }] },
})

describe('tenancy', () => {
  it('keeps agents, search, invocation and reviews inside their owner and team', async () => {
    const priv = (await request('POST', '/v1/agents', { token: A.token, body: agentBody('A private', 'private') })).body.response.id
    const team = (await request('POST', '/v1/agents', { token: A.token, body: agentBody('A blue team', 'team', blue) })).body.response.id
    const redAgent = (await request('POST', '/v1/agents', { token: C.token, body: agentBody('C red team', 'team', red) })).body.response.id

    for (const [who, id, visible] of [
      [B, priv, false],
      [C, priv, false],
      [B, team, true],
      [C, team, false],
      [A, redAgent, false],
      [B, redAgent, false],
    ] as [Caller, string, boolean][]) {
      const read = await request('GET', `/v1/agents/${id}`, { token: who.token })
      check((read.status === 200) === visible, `GET agent ${id} by ${who.accountId}: ${read.status}`)
      if (read.status === 200) check(read.body.response.workflow === undefined, 'workflow shown to a non-owner')
      const run = await action('invoke_agent', { id, input: { q: 'x' } }, who.token)
      check(visible ? run.status === 200 : run.status === 404, `invoke ${id} by ${who.accountId}: ${run.status}`)
      const patch = await request('PATCH', `/v1/agents/${id}`, { token: who.token, body: { name: 'taken over' } })
      check(patch.status === (visible ? 403 : 404), `PATCH agent ${id} by ${who.accountId}: ${patch.status}`)
      const del = await request('DELETE', `/v1/agents/${id}`, { token: who.token })
      check(del.status === (visible ? 403 : 404), `DELETE agent ${id} by ${who.accountId}: ${del.status}`)
      const review = await request('PUT', `/v1/agents/${id}/review`, { token: who.token, body: { rating: 1 } })
      check(review.status === (visible ? 200 : 404), `review ${id} by ${who.accountId}: ${review.status}`)
    }
    for (const who of [B, C]) {
      for (const status of ['public', 'private', 'team', 'all']) {
        for (const query of ['', 'tenancy probe', 'A private', 'blue', 'red']) {
          const res = await action('search', { query, status, limit: 100 }, who.token)
          for (const h of res.body.response as Json[]) {
            const m = h.function.metadata
            check(m.id !== priv, `${who.accountId} saw A's private agent via ${status}/${query}`)
            if (who === C) check(m.id !== team, `C saw blue's team agent via ${status}/${query}`)
            if (who === B) check(m.id !== redAgent, `B saw red's team agent via ${status}/${query}`)
          }
        }
      }
    }
    const listB = await request('GET', '/v1/agents', { token: B.token })
    check(listB.body.response.length === 0, 'B lists agents it does not own')
    expect(violations).toEqual([])
  })

  it("shows another account's agent steps to its runner without their input or output (the workflow's literals stay the owner's)", async () => {
    const literal = `${markerOf(A)}-workflow-literal`
    const body = (name: string, visibility: string, team_id?: string) => ({
      ...agentBody(name, visibility, team_id),
      workflow: {
        steps: [
          { id: 'inner', action: 'store_variable', input: { name: 'inner', value: literal } },
          { id: 'shown', action: 'store_variable', input: { name: 'answer', value: '{{input.q}}' } },
        ],
      },
    })
    const team = (await request('POST', '/v1/agents', { token: A.token, body: body('A literal team', 'team', blue) })).body.response.id
    const pub = (await request('POST', '/v1/agents', { token: A.token, body: body('A literal public', 'public') })).body.response.id
    for (const [who, id] of [
      [B, team],
      [B, pub],
      [C, pub],
      [A, team],
    ] as [Caller, string][]) {
      const run = await action('invoke_agent', { id, input: { q: 'asked' } }, who.token)
      check(run.status === 200 && run.body.response.value === 'asked', `run of ${id} by ${who.accountId}: ${run.status}`)
      const runId = run.headers.get('x-run-id')!
      const listed = (await request('GET', '/v1/runs?limit=100', { token: who.token })).body.response as Json[]
      const steps = listed.filter((r) => r.parent_run_id === runId)
      check(steps.length === 2, `${who.accountId} sees the ${steps.length} steps of its run of ${id}`)
      const read = await Promise.all(steps.map(async (r) => (await request('GET', `/v1/runs/${r.id}`, { token: who.token })).body.response))
      const shown = JSON.stringify([listed, read])
      if (who === A) check(shown.includes(literal), 'the owner no longer sees its own steps')
      else {
        check(!shown.includes(literal), `${who.accountId} read a literal of A's workflow from its runs`)
        check(
          read.every((r: Json) => r.action === 'store_variable' && r.state === 'succeeded' && r.input === null && r.output === null),
          `${who.accountId} sees the steps of A's agent with input or output`,
        )
      }
    }
    expect(violations).toEqual([])
  })

  it('keeps runs, variables and idempotency keys per account', async () => {
    const flow = { 'workflow-id': 'shared-flow' }
    await action('store_variable', { name: 'secret', value: markerOf(A) }, A.token, flow)
    const runA = (await action('search', { query: 'seo' }, A.token, { 'idempotency-key': 'same-key' })).headers.get('x-run-id')!
    for (const other of [B, C]) {
      check((await request('GET', `/v1/runs/${runA}`, { token: other.token })).status === 404, 'run of A readable')
      check((await request('GET', `/v1/runs/${runA}?wait=1`, { token: other.token })).status === 404, 'run of A long-pollable')
      const list = await request('GET', '/v1/runs?limit=100', { token: other.token })
      check(!JSON.stringify(list.body).includes(runA) && !JSON.stringify(list.body).includes(markerOf(A)), 'A run listed for another account')
      const got = await action('get_variable', { name: 'secret' }, other.token, flow)
      check(got.status === 404, `variable of A read by another account: ${got.status}`)
      const ref = await action('search', { query: '{{secret}}' }, other.token, flow)
      check(ref.status === 400 && !JSON.stringify(ref.body).includes(markerOf(A)), 'reference resolved from another account scope')
      const idem = await action('search', { query: 'different body' }, other.token, { 'idempotency-key': 'same-key' })
      check(idem.status === 200 && idem.headers.get('x-run-id') !== runA, 'idempotency key shared across accounts')
    }
    await action('store_variable', { name: 'secret', value: 'overwritten' }, B.token, flow)
    const still = await action('get_variable', { name: 'secret' }, A.token, flow)
    check(still.body.response.value === markerOf(A), 'B overwrote A variable')
    expect(violations).toEqual([])
  })

  it('keeps built-in CRM records, integrations, tokens and artifacts per account', async () => {
    const created = await action(
      'crm.v2.update_object',
      { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'tenant-a@example.com', properties: JSON.stringify({ firstname: markerOf(A) }) },
      A.token,
    )
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.response.id
    for (const other of [B, C]) {
      const byId = await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: id, properties: 'firstname' }, other.token)
      check(!JSON.stringify(byId.body).includes(markerOf(A)), 'CRM record of A visible by id')
      const byEmail = await action('crm.v2.lookup_object', { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', object_id: 'tenant-a@example.com' }, other.token)
      check(!JSON.stringify(byEmail.body).includes(markerOf(A)), 'CRM record of A visible by email')
      const list = await request('GET', '/v1/integrations/crm/builtin/objects/contacts', { token: other.token })
      check(!JSON.stringify(list.body).includes(markerOf(A)), 'CRM records of A listed')
      await request('DELETE', `/v1/integrations/crm/builtin/objects/contacts/${id}`, { token: other.token })
    }
    const after = await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: id, properties: 'firstname' }, A.token)
    check(after.body.response?.properties?.firstname === markerOf(A), 'CRM record of A changed by another account')

    const put = await request('PUT', '/v1/integrations/llm/openai', { token: A.token, body: { api_key: 'sk-tenancy-probe-key-0000000001' } })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    for (const other of [B, C]) {
      const got = await request('GET', '/v1/integrations/llm/openai', { token: other.token })
      check(!JSON.stringify(got.body).includes('0001') || got.status === 404, 'model key of A visible')
      const crm = await request('GET', '/v1/integrations/crm', { token: other.token })
      check(crm.body.response?.provider === 'builtin', 'CRM connection shared')
      const toks = await request('GET', '/v1/tokens', { token: other.token })
      check(
        (toks.body.response as Json[]).every((t) => t.account_id === other.accountId),
        'tokens of another account listed',
      )
      const mine = (await request('GET', '/v1/tokens', { token: A.token })).body.response[0].id
      check((await request('DELETE', `/v1/tokens/${mine}`, { token: other.token })).status === 404, 'token of A revocable by another account')
    }
    check((await request('GET', '/v1/me', { token: A.token })).status === 200, 'A token was revoked by another account')

    expect(violations).toEqual([])
  })

  it('made its cross-account checks with 0 violations', () => {
    console.log(`tenancy: ${checks} cross-account checks, ${violations.length} violations`)
    expect(checks).toBeGreaterThan(150)
    expect(violations).toEqual([])
  })
})
