import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { action, createTeam, newCaller, request, type Json } from './helpers'
import { demoAgents, seedDemoCatalog } from './seed'
import { CreateAgentBody } from '../src/agents/bodies'
import { parameterText } from '../src/agents/schema'
import { parameterText as seedParameterText } from '../scripts/seed/build.mjs'

beforeAll(async () => {
  await seedDemoCatalog()
})

const threeSteps = {
  name: 'Three step chain',
  description: 'Stores a topic, searches for it, and stores a summary',
  visibility: 'private',
  parameters: {
    type: 'object',
    properties: {
      topic: { type: 'string', description: 'What to look for' },
      size: { type: 'integer', description: 'How many hits', default: '2' },
      tone: { type: 'string', description: 'Tone', enum: ['plain', 'fancy'], default: 'plain' },
    },
    required: ['topic'],
  },
  workflow: {
    steps: [
      { id: 'remember', action: 'store_variable', input: { name: 'topic', value: '{{input.topic}}' } },
      { id: 'find', action: 'search', input: { query: '{{steps.remember.value}}', limit: '{{input.size}}' } },
      { id: 'summary', action: 'store_variable', input: { name: 'summary', value: '{{input.tone}}: first hit {{steps.find.0.function.metadata.name}}' } },
    ],
    output: '{{steps.summary.value}}',
  },
}

describe('agent management', () => {
  it('creates, reads, lists, updates and deletes an agent for its owner only', async () => {
    const owner = await newCaller('owner')
    const other = await newCaller('other')
    const created = await request('POST', '/v1/agents', { token: owner.token, body: { ...threeSteps, slug: 'three-step-chain' } })
    expect(created.status).toBe(201)
    const id = created.body.response.id
    expect(id).toMatch(/^[A-Za-z0-9]+$/)
    expect((await request('GET', `/v1/agents/${id}`, { token: owner.token })).body.response.workflow.steps).toHaveLength(3)
    expect((await request('GET', '/v1/agents/three-step-chain', { token: owner.token })).body.response.id).toBe(id)
    expect((await request('GET', `/v1/agents/${id}`, { token: other.token })).status).toBe(404)
    const list = await request('GET', '/v1/agents', { token: owner.token })
    expect(list.body.response.map((a: Json) => a.id)).toEqual([id])
    const patched = await request('PATCH', `/v1/agents/${id}`, { token: owner.token, body: { visibility: 'public', description: 'Now public' } })
    expect(patched.body.response).toMatchObject({ visibility: 'public', description: 'Now public' })
    const seen = await request('GET', `/v1/agents/${id}`, { token: other.token })
    expect(seen.status).toBe(200)
    expect(seen.body.response.workflow).toBeUndefined()
    expect((await request('PATCH', `/v1/agents/${id}`, { token: other.token, body: { name: 'mine now' } })).status).toBe(403)
    expect((await request('DELETE', `/v1/agents/${id}`, { token: other.token })).status).toBe(403)
    expect((await request('DELETE', `/v1/agents/${id}`, { token: owner.token })).status).toBe(200)
    expect((await request('GET', `/v1/agents/${id}`, { token: owner.token })).status).toBe(404)
  })

  it('validates parameters, workflow references and actions when saving', async () => {
    const { token } = await newCaller('validator')
    const bad = {
      ...threeSteps,
      parameters: { type: 'object', properties: { n: { type: 'number', enum: ['1'] }, s: { type: 'string', enum: ['a'], default: 'b' } }, required: ['missing'] },
      workflow: {
        steps: [
          { id: 'one', action: 'no_such_action', input: { q: '{{input.nope}}' } },
          { id: 'one', action: 'search', input: { query: '{{steps.later}}', page: '{{weird}}' } },
          { id: 'later', action: 'invoke_agent', input: {} },
        ],
      },
    }
    const res = await request('POST', '/v1/agents', { token, body: bad })
    expect(res.status).toBe(400)
    const paths = (res.body.details as Json[]).map((d) => d.path)
    for (const p of [
      '/parameters/properties/n/enum',
      '/parameters/properties/s/default',
      '/parameters/required/0',
      '/workflow/steps/0/action',
      '/workflow/steps/0/input/q',
      '/workflow/steps/1/id',
      '/workflow/steps/1/input/query',
      '/workflow/steps/1/input/page',
      '/workflow/steps/2/action',
    ]) {
      expect(paths).toContain(p)
    }
  })

  it('keeps a team agent to members of its team, and refuses teams you are not in', async () => {
    const a = await newCaller('team-a')
    const b = await newCaller('team-b')
    const team = await createTeam('t', [a.accountId])
    const res = await request('POST', '/v1/agents', { token: b.token, body: { ...threeSteps, visibility: 'team', team_id: team } })
    expect(res.status).toBe(403)
    expect((await request('POST', '/v1/agents', { token: a.token, body: { ...threeSteps, visibility: 'team' } })).body.details[0].path).toBe('/team_id')
  })

  it('keeps review counts and averages exact, one review per account, updatable', async () => {
    const owner = await newCaller('rev-owner')
    const agent = await request('POST', '/v1/agents', { token: owner.token, body: { ...threeSteps, visibility: 'public' } })
    const id = agent.body.response.id
    const reviewers = await Promise.all([1, 2, 3].map((i) => newCaller(`r${i}`)))
    await Promise.all(reviewers.map((r, i) => request('PUT', `/v1/agents/${id}/review`, { token: r.token, body: { rating: [5, 4, 2][i] } })))
    let got = await request('GET', `/v1/agents/${id}`, { token: owner.token })
    expect(got.body.response).toMatchObject({ reviews_count: 3, reviews_score: 3.67 })
    await request('PUT', `/v1/agents/${id}/review`, { token: reviewers[2].token, body: { rating: 5 } })
    got = await request('GET', `/v1/agents/${id}`, { token: owner.token })
    expect(got.body.response).toMatchObject({ reviews_count: 3, reviews_score: 4.67 })
    await request('DELETE', `/v1/agents/${id}/review`, { token: reviewers[0].token })
    got = await request('GET', `/v1/agents/${id}`, { token: owner.token })
    expect(got.body.response).toMatchObject({ reviews_count: 2, reviews_score: 4.5 })
    expect((await request('PUT', `/v1/agents/${id}/review`, { token: owner.token, body: { rating: 6 } })).status).toBe(400)
  })
})

describe('invoking agents', () => {
  it('runs a workflow of three steps wired by variables, applying defaults', async () => {
    const { token, accountId } = await newCaller('runner')
    const created = await request('POST', '/v1/agents', { token, body: threeSteps })
    const id = created.body.response.id
    const res = await action('invoke_agent', { id, input: { topic: 'youtube transcript' } }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.response).toMatch(/^plain: first hit .*(YouTube|Transcript)/i)
    const children = await env.DB.prepare('SELECT action, state FROM runs WHERE parent_run_id = ? ORDER BY created_at').bind(res.headers.get('x-run-id')).all()
    expect(children.results.map((r) => r.action)).toEqual(['store_variable', 'search', 'store_variable'])
    const row = await env.DB.prepare('SELECT executions FROM agents WHERE id = ?').bind(id).first<{ executions: number }>()
    expect(row!.executions).toBe(1)
    const runs = await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE account_id = ? AND action = 'search'").bind(accountId).first<{ n: number }>()
    expect(runs!.n).toBe(1)
  })

  it('accepts the tool name as the action with parameters as the body, and JSON text input', async () => {
    const { token } = await newCaller('alias')
    const id = (await request('POST', '/v1/agents', { token, body: threeSteps })).body.response.id
    const viaAlias = await action(`invoke_agent_${id}`, { topic: 'crm', tone: 'fancy', size: '1' }, token)
    expect(viaAlias.body.response).toMatch(/^fancy: first hit /)
    const viaText = await action('invoke_agent', { id, user_input: JSON.stringify({ topic: 'crm' }) }, token)
    expect(viaText.status).toBe(200)
  })

  it('answers 400 listing every bad parameter', async () => {
    const { token } = await newCaller('badparams')
    const id = (await request('POST', '/v1/agents', { token, body: threeSteps })).body.response.id
    const res = await action('invoke_agent', { id, input: { size: 'many', tone: 'loud', extra: 1 } }, token)
    expect(res.status).toBe(400)
    expect((res.body.details as Json[]).map((d) => d.path).sort()).toEqual(['/input/extra', '/input/size', '/input/tone', '/input/topic'])
    expect((await action('invoke_agent', { id, input: '{not json' }, token)).body.details[0].path).toBe('/input')
  })

  it('answers 404 for an agent the caller may not see', async () => {
    const owner = await newCaller('hider')
    const other = await newCaller('seeker')
    const id = (await request('POST', '/v1/agents', { token: owner.token, body: threeSteps })).body.response.id
    const res = await action('invoke_agent', { id, input: { topic: 'x' } }, other.token)
    expect(res.status).toBe(404)
    expect((await action(`invoke_agent_${id}`, { topic: 'x' }, other.token)).status).toBe(404)
    expect((await action('invoke_agent', { id: 'acmepriv01', input: {} }, other.token)).status).toBe(404)
  })
})

describe('demo catalog', () => {
  it('indexes the same parameter text the API computes', () => {
    for (const a of demoAgents as Json[]) expect(seedParameterText(a.parameters)).toBe(parameterText(a.parameters))
  })
})

describe('every demo agent', () => {
  it('passes the same validation as an agent saved through the API (known actions, valid references)', () => {
    const failures: string[] = []
    for (const a of demoAgents as Json[]) {
      const res = CreateAgentBody.safeParse({ name: a.name, description: a.description, visibility: 'public', parameters: a.parameters, workflow: a.workflow })
      if (!res.success) failures.push(`${a.id}: ${res.error.issues.map((i) => `${i.path.join('/')} ${i.message}`).join('; ')}`)
    }
    expect(failures).toEqual([])
  })

  it('validates each step input against its action schema with only the required parameters given', async () => {
    const { coerceToSchema, resolveReferences } = await import('../src/runtime/templates')
    const { getAction } = await import('../src/actions/registry')
    const { validateAgentParams } = await import('../src/agents/invoke')
    const failures: string[] = []
    for (const a of demoAgents as Json[]) {
      const sample: Record<string, unknown> = {}
      for (const name of a.parameters.required as string[]) {
        const p = a.parameters.properties[name]
        sample[name] = p.enum
          ? p.enum[0]
          : p.type === 'boolean'
            ? true
            : p.type === 'string'
              ? /url/i.test(name)
                ? 'https://example.com/'
                : /domain/i.test(name)
                  ? 'example.com'
                  : /email/i.test(name)
                    ? 'a@example.com'
                    : 'sample'
              : 1
      }
      const params = validateAgentParams(a.parameters, sample, 'input')
      // Earlier steps' outputs are not known here: build each with exactly the paths the workflow reads, holding text.
      const steps: Record<string, Json> = {}
      const text = JSON.stringify(a.workflow)
      for (const m of text.matchAll(/\{\{\s*steps\.([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g)) {
        const path = m[2].split('.').filter(Boolean)
        steps[m[1]] ??= {}
        let cur = steps[m[1]]
        path.forEach((seg, i) => {
          if (i === path.length - 1) cur[seg] ??= 'sample text'
          else cur = cur[seg] ??= {}
        })
      }
      for (const step of a.workflow.steps as Json[]) {
        const input = resolveReferences(step.input, { input: params, steps }) as Record<string, unknown>
        const action = getAction(step.action)!
        const parsed = action.input.safeParse(coerceToSchema(step.input, input, action.input))
        if (!parsed.success) failures.push(`${a.id}/${step.id}: ${parsed.error.issues.map((i) => `${i.path.join('/')} ${i.message}`).join('; ')}`)
      }
    }
    expect(failures).toEqual([])
  })
})
