import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { getAction } from '../src/actions/registry'
import { agentDescriptor } from '../src/agents/descriptor'
import { validateAgentParams } from '../src/agents/invoke'
import { MAX_IMPORT } from '../src/agents/bodies'
import { ParameterSchema } from '../src/agents/schema'
import type { AgentRow } from '../src/db/agents'
import { action, createTeam, newCaller, request, type Json } from './helpers'

/** A valid agent whose name carries a word the search can find. */
function agent(word: string, extra: Record<string, unknown> = {}) {
  return {
    name: `Import ${word}`,
    description: `Stores the ${word} topic`,
    visibility: 'private',
    parameters: { type: 'object', properties: { topic: { type: 'string', description: 'Topic' } }, required: ['topic'] },
    workflow: { steps: [{ id: 'keep', action: 'store_variable', input: { name: 'topic', value: '{{input.topic}}' } }], output: '{{steps.keep.value}}' },
    ...extra,
  }
}

const importAgents = (token: string, body: unknown) => request('POST', '/v1/agents/import', { token, body })
const ownAgents = async (token: string) => ((await request('GET', '/v1/agents?limit=100', { token })).body.response as Json[]).map((a) => a.name)

describe('POST /v1/agents/import', () => {
  it('creates every agent of the array in one request, searchable and runnable like a single create', async () => {
    const { token } = await newCaller('importer')
    const res = await importAgents(token, { agents: [agent('zephyrine'), agent('quillwort'), agent('marrowfat')] })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.response).toMatchObject({ created: 3, existing: 0 })
    expect(res.body.response.agents.map((a: Json) => [a.name, a.status])).toEqual([
      ['Import zephyrine', 'created'],
      ['Import quillwort', 'created'],
      ['Import marrowfat', 'created'],
    ])
    expect(await ownAgents(token)).toEqual(['Import zephyrine', 'Import quillwort', 'Import marrowfat'])
    const hits = await action('search', { query: 'quillwort', status: 'private' }, token)
    expect(hits.body.response.map((h: Json) => h.function.metadata.name)).toEqual(['Import quillwort'])
    const id = res.body.response.agents[2].id
    const run = await action(`invoke_agent_${id}`, { topic: 'peas' }, token)
    expect(run.body.response).toBe('peas')
  })

  it('writes nothing when any agent is invalid, and names each problem under /agents/<index>', async () => {
    const { token } = await newCaller('all-or-nothing')
    const broken = agent('broken', { workflow: { steps: [{ id: 'x', action: 'no_such_action', input: {} }] } })
    const res = await importAgents(token, { agents: [agent('one'), agent('two'), agent('three'), broken, agent('five', { name: '' })] })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('VALIDATION_FAILED')
    const paths = (res.body.details as Json[]).map((d) => d.path)
    expect(paths).toContain('/agents/3/workflow/steps/0/action')
    expect(paths).toContain('/agents/4/name')
    expect(await ownAgents(token)).toEqual([])
  })

  it("reports the single create's own refusals per agent: a slug twice, a team you are not in; another account's slug is no clash", async () => {
    const owner = await newCaller('slug-owner')
    const other = await newCaller('slug-other')
    expect((await request('POST', '/v1/agents', { token: owner.token, body: agent('held', { slug: 'held-slug' }) })).status).toBe(201)
    const twice = await importAgents(other.token, { agents: [agent('a', { slug: 'twin' }), agent('b', { slug: 'twin' })] })
    expect(twice.status).toBe(409)
    expect(twice.body.details).toEqual([{ path: '/agents/1/slug', message: expect.any(String) }])
    const team = await createTeam('not-mine', [owner.accountId])
    const foreign = await importAgents(other.token, { agents: [agent('a'), agent('b', { visibility: 'team', team_id: team })] })
    expect(foreign.status).toBe(403)
    expect(foreign.body.details[0].path).toBe('/agents/1/team_id')
    const mixed = await importAgents(other.token, { agents: [agent('a', { slug: 'twin' }), agent('b', { slug: 'twin' }), agent('c', { visibility: 'team', team_id: team })] })
    expect(mixed.status).toBe(400)
    expect((mixed.body.details as Json[]).map((d) => d.path)).toEqual(['/agents/1/slug', '/agents/2/team_id'])
    expect(await ownAgents(other.token)).toEqual([])
    // Slugs are per account: the same slug another account holds is free here.
    const same = await importAgents(other.token, { agents: [agent('a', { slug: 'held-slug' })] })
    expect(same.status).toBe(201)
  })

  it('can be repeated: agents whose slug is already yours are kept, not created again', async () => {
    const { token } = await newCaller('repeat')
    const body = { agents: [agent('first', { slug: 'first-one' }), agent('second', { slug: 'second-one' })] }
    const once = await importAgents(token, body)
    const twice = await importAgents(token, body)
    expect(twice.status).toBe(201)
    expect(twice.body.response).toMatchObject({ created: 0, existing: 2 })
    expect(twice.body.response.agents.map((a: Json) => a.id)).toEqual(once.body.response.agents.map((a: Json) => a.id))
    const grown = await importAgents(token, { agents: [...body.agents, agent('third', { slug: 'third-one' })] })
    expect(grown.body.response).toMatchObject({ created: 1, existing: 2 })
    expect(await ownAgents(token)).toEqual(['Import first', 'Import second', 'Import third'])
  })

  it(`takes 1 to ${MAX_IMPORT} agents in an "agents" array`, async () => {
    const { token } = await newCaller('limits')
    const many = Array.from({ length: MAX_IMPORT + 1 }, (_, i) => agent(`n${i}`))
    for (const body of [{ agents: many }, { agents: [] }, { agents: agent('x') }, [agent('x')], { agents: [agent('x')], extra: 1 }]) {
      const res = await importAgents(token, body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.details.length).toBeGreaterThan(0)
    }
    expect(await ownAgents(token)).toEqual([])
  })
})

describe('typed parameter defaults', () => {
  const typed = {
    ...agent('typed'),
    parameters: {
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'Topic' },
        count: { type: 'integer', description: 'How many', default: 3 },
        ratio: { type: 'number', description: 'Share', default: 0.5 },
        loud: { type: 'boolean', description: 'Shout', default: true },
        text_count: { type: 'integer', description: 'Written as text', default: '2' },
      },
      required: ['topic'],
    },
    workflow: {
      steps: [{ id: 'keep', action: 'store_variable', input: { name: 'opts', value: { count: '{{input.count}}', ratio: '{{input.ratio}}', loud: '{{input.loud}}' } } }],
      output: '{{steps.keep.value}}',
    },
  }

  it('accepts numbers and booleans as defaults, applies them as values, and shows them as text in descriptors', async () => {
    const { token } = await newCaller('typed')
    const created = await request('POST', '/v1/agents', { token, body: typed })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.response.parameters.properties.count.default).toBe(3)
    const hits = await action('search', { query: 'typed', status: 'private' }, token)
    const props = hits.body.response[0].function.parameters.properties
    expect([props.count.default, props.ratio.default, props.loud.default, props.text_count.default]).toEqual(['3', '0.5', 'true', '2'])
    expect(props.topic).not.toHaveProperty('default')
    const run = await action(`invoke_agent_${created.body.response.id}`, { topic: 't' }, token)
    expect(run.body.response).toEqual({ count: 3, ratio: 0.5, loud: true })
  })

  it('refuses a default of another type, naming the field', async () => {
    const { token } = await newCaller('typed-bad')
    for (const [type, value] of [
      ['integer', true],
      ['integer', 2.5],
      ['number', false],
      ['boolean', 1],
      ['string', 7],
      ['boolean', 'yes'],
    ] as const) {
      const body = { ...agent('bad'), parameters: { type: 'object', properties: { x: { type, description: 'x', default: value } } } }
      const res = await request('POST', '/v1/agents', { token, body })
      expect(res.status, `${type} ${value}`).toBe(400)
      expect(res.body.details.map((d: Json) => d.path)).toContain('/parameters/properties/x/default')
    }
  })

  it('for any parameter type and JSON default: accepted ones fill in as that type and read back as their text; the rest are refused at /default', () => {
    const type = fc.constantFrom('string', 'number', 'integer', 'boolean') as fc.Arbitrary<'string' | 'number' | 'integer' | 'boolean'>
    const value = fc.oneof(fc.string({ maxLength: 20 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constantFrom('3', '-1.5', 'true', 'false', ''))
    fc.assert(
      fc.property(type, value, (t, v) => {
        const parsed = ParameterSchema.safeParse({ type: t, description: 'p', default: v })
        if (!parsed.success) {
          expect(parsed.error.issues.map((i) => i.path.join('/'))).toEqual(['default'])
          return
        }
        const filled = validateAgentParams({ type: 'object', properties: { p: parsed.data }, required: [], additionalProperties: false }, {}, 'input').p
        expect(typeof filled).toBe(t === 'integer' ? 'number' : t)
        if (typeof v !== 'string') expect(filled).toBe(v)
        const row = { id: 'a1', name: 'n', description: 'd', parameters: JSON.stringify({ properties: { p: parsed.data }, required: [] }), workflow: JSON.stringify({ steps: [] }) } as AgentRow
        expect(agentDescriptor(row, 0, getAction).function.parameters.properties.p.default).toBe(String(v))
      }),
      { numRuns: 2000 },
    )
  })
})
