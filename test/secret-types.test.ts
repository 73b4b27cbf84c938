import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { sha256Hex } from '../src/lib/crypto'
import { stableStringify } from '../src/runtime/execute'
import { action, mockFetch, newCaller, request, type Json } from './helpers'
import { markSecret, searchStorage } from './secret-scan'
import { alice, FakeAtproto } from './social/fake-pds'

/**
 * Secrets are known by type, not by name: a value that flows into a field the schema marks secret
 * (`writeOnly` / `format: "password"`), or into an agent parameter marked so, never reaches a run
 * record, a queued input, an idempotency hash, a step result, an error text or a log in plain text,
 * whatever the field or parameter is called.
 */

interface Seen {
  jobInputs: { kind: string; text: string | null }[]
  messages: string[]
}

/** Captures each queued run's stored row at the moment its message is sent (before the consumer clears it). */
function watchQueue(): Seen {
  const seen: Seen = { jobInputs: [], messages: [] }
  const send = env.JOBS.send.bind(env.JOBS)
  vi.spyOn(env.JOBS, 'send').mockImplementation(async (body, opts) => {
    seen.messages.push(JSON.stringify(body))
    const row = await env.DB.prepare('SELECT job_input, job_input_kind FROM runs WHERE id = ?')
      .bind((body as { runId: string }).runId)
      .first<{ job_input: string | null; job_input_kind: string }>()
    if (row) seen.jobInputs.push({ kind: row.job_input_kind, text: row.job_input })
    return send(body, opts)
  })
  return seen
}

/** Every place of this file's storage, logs and `extra` texts (queue messages) that holds `secret` in plain text. */
async function whereIs(secret: string, extra: string[] = []): Promise<{ hits: string[]; rows: number; keys: number }> {
  const search = await searchStorage([secret])
  const hits = [...search.found, ...extra.filter((e) => e.includes(secret)).map(() => 'queue message')]
  return { hits, rows: search.rows, keys: search.kvKeys }
}

const poster = (param: string, extra: Record<string, unknown> = {}) => ({
  name: 'Poster',
  description: 'Posts with credentials given as parameters',
  visibility: 'private',
  parameters: { type: 'object', properties: { handle: { type: 'string', description: 'h' }, [param]: { type: 'string', description: 'p', ...extra } }, required: ['handle', param] },
  workflow: { steps: [{ id: 'post', action: 'post_to_social', input: { username: '{{input.handle}}', password: `{{input.${param}}}`, content: 'agent post' } }] },
})

const figure = { secrets: 0, flows: new Set<string>(), found: 0, rows: 0, keys: 0 }

type Via = 'inline' | 'idempotent' | 'queued' | 'JSON text input' | 'tool-name alias' | 'wrong password'

/** Saves `body` as an agent and invokes it with `params` the way `via` says; the answer (a queued run's once it ends). */
async function createAndInvoke(token: string, body: Json, params: Record<string, unknown>, via: Via, idempotencyKey: string): Promise<{ status: number; body: Json }> {
  const created = await request('POST', '/v1/agents', { token, body })
  expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201)
  const id = created.body.response.id as string
  if (via === 'queued') {
    const q = await action('invoke_agent', { id, input: params }, token, { prefer: 'respond-async' })
    expect(q.status).toBe(202)
    const res = await request('GET', `/v1/runs/${q.body.response.run_id}?wait=20`, { token })
    expect(res.body.response.state).toBe('succeeded')
    return res
  }
  if (via === 'JSON text input') return action('invoke_agent', { id, input: JSON.stringify(params) }, token)
  if (via === 'tool-name alias') return action(`invoke_agent_${id}`, params, token)
  return action('invoke_agent', { id, input: params }, token, via === 'idempotent' ? { 'idempotency-key': idempotencyKey } : {})
}

describe('secrets by type', () => {
  it('keeps an agent parameter named app_pw that feeds post_to_social.password out of the parent run, its queued input, the idempotency hash and GET /v1/runs', async () => {
    const pds = new FakeAtproto()
    mockFetch(pds.handle)
    const seen = watchQueue()
    const { token } = await newCaller('app_pw')
    const agent = await request('POST', '/v1/agents', { token, body: poster('app_pw') })
    expect(agent.status).toBe(201)
    const input = { id: agent.body.response.id, input: { handle: alice.handle, app_pw: alice.password } }
    const inline = await action('invoke_agent', input, token, { 'idempotency-key': 'pw-1' })
    expect(inline.status, JSON.stringify(inline.body)).toBe(200)
    const queued = await action('invoke_agent', input, token, { prefer: 'respond-async' })
    expect(queued.status).toBe(202)
    expect((await request('GET', `/v1/runs/${queued.body.response.run_id}?wait=20`, { token })).body.response.state).toBe('succeeded')

    const runs = await request('GET', '/v1/runs?limit=100', { token })
    expect(JSON.stringify(runs.body)).not.toContain(alice.password)
    expect(runs.body.response.find((r: Json) => r.action === 'invoke_agent').input.input.app_pw).toBe('[redacted]')
    for (const r of runs.body.response) expect(JSON.stringify((await request('GET', `/v1/runs/${r.id}`, { token })).body)).not.toContain(alice.password)
    expect(seen.jobInputs).toHaveLength(1)
    expect(seen.jobInputs[0].kind).toMatch(/^sealed/)
    expect(seen.jobInputs[0].text ?? '').not.toContain(alice.password)
    const plainHash = await sha256Hex(stableStringify({ action: 'invoke_agent', body: input, workflow: null }))
    expect(await env.DB.prepare('SELECT 1 FROM idempotency_keys WHERE body_hash = ?').bind(plainHash).first()).toBeNull()
    expect((await whereIs(alice.password, seen.messages)).hits).toEqual([])
  })

  it('keeps a queued input with no secret of its own unsealed, though the deployment has secret settings', async () => {
    // The deployment's secrets are in every run's set; only what a call adds makes its input secret.
    expect(env.ENCRYPTION_KEY).toBeTruthy()
    const seen = watchQueue()
    const { token } = await newCaller('plain queued')
    const queued = await action('search', { query: 'plain queued input' }, token, { prefer: 'respond-async' })
    expect(queued.status).toBe(202)
    expect(seen.jobInputs).toHaveLength(1)
    expect(seen.jobInputs[0].kind).not.toMatch(/^sealed/)
    expect((await request('GET', `/v1/runs/${queued.body.response.run_id}?wait=20`, { token })).body.response.state).toBe('succeeded')
  })

  it('shows secret fields in the OpenAPI schema and marks agent parameters that flow into them', async () => {
    const doc = (await request('GET', '/v1/openapi.json')).body as Json
    const schema = doc.paths['/v1/action/post_to_social'].post.requestBody.content['application/json'].schema
    expect(schema.properties.password).toMatchObject({ writeOnly: true, format: 'password' })
    const { token } = await newCaller('marks')
    const created = await request('POST', '/v1/agents', { token, body: poster('app_pw') })
    expect(created.body.response.parameters.properties.app_pw).toMatchObject({ writeOnly: true, format: 'password' })
    expect(created.body.response.parameters.properties.handle.writeOnly).toBeUndefined()
    const patched = await request('PATCH', `/v1/agents/${created.body.response.id}`, {
      token,
      body: { workflow: { steps: [{ id: 'post', action: 'post_to_social', input: { username: '{{input.app_pw}}', password: '{{input.handle}}', content: 'x' } }] } },
    })
    expect(patched.status).toBe(200)
    expect(patched.body.response.parameters.properties.handle).toMatchObject({ writeOnly: true, format: 'password' })
  })

  it('refuses an agent that writes a secret field itself, splices it into text or takes it from another step', async () => {
    const { token } = await newCaller('refusals')
    for (const password of ['literal-password-1', 'pw: {{input.p}}', '{{steps.first.value}}', '{{input.p}}{{input.p}}']) {
      const body = {
        name: 'Bad poster',
        description: 'x',
        parameters: { type: 'object', properties: { p: { type: 'string', description: 'p' } }, required: [] },
        workflow: {
          steps: [
            { id: 'first', action: 'store_variable', input: { name: 'x', value: '{{input.p}}' } },
            { id: 'post', action: 'post_to_social', input: { username: 'alice.bsky.social', password, content: 'x' } },
          ],
        },
      }
      const res = await request('POST', '/v1/agents', { token, body })
      expect(res.status, password).toBe(400)
      expect(res.body.details.map((d: Json) => d.path)).toContain('/workflow/steps/1/input/password')
    }
    const bad = await request('POST', '/v1/agents', {
      token,
      body: { ...poster('n'), parameters: { type: 'object', properties: { handle: { type: 'string' }, n: { type: 'integer', format: 'password' } } } },
    })
    expect(bad.status).toBe(400)
  })

  it('keeps any secret out of every record, whatever the parameter is called and however it is sent', async () => {
    const { token } = await newCaller('class')
    let pds = new FakeAtproto()
    mockFetch((req) => pds.handle(req))
    const seen = watchQueue()
    // Names the old name-based redaction would not catch.
    const paramName = fc.stringMatching(/^[a-z][a-z0-9_]{0,14}$/).filter((n) => !/pass|secret|token|api_?key|credential|authorization/i.test(n) && !['handle', 'login'].includes(n))
    const printable = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c))
    const secretText = fc
      .string({ minLength: 10, maxLength: 40, unit: fc.oneof(fc.constantFrom('"', '\\', '<', '&', 'é', '🔑', ' '), printable) })
      .filter((s) => !s.includes('{{') && s.trim() === s && /\S{4}/.test(s))
    const shapes = ['password only', 'spliced into the post', 'marked parameter used as text'] as const
    const modes = ['inline', 'idempotent', 'queued', 'JSON text input', 'tool-name alias', 'wrong password'] as const
    // Every flow runs at least once (the examples), then generated ones.
    const examples = shapes.flatMap((how, i) => modes.map((via, j) => [`p${i}x${j}`, `s3cr3t "${i}" \\ ${j} 🔑`, how, via] as [string, string, (typeof shapes)[number], (typeof modes)[number]]))
    const secrets: string[] = []
    let n = 0
    await fc.assert(
      fc.asyncProperty(paramName, secretText, fc.constantFrom(...shapes), fc.constantFrom(...modes), async (param, secret, how, via) => {
        n++
        figure.flows.add(`${how} / ${via}`)
        // A marked parameter used only as text; the password then comes from a second parameter.
        const marked = how === 'marked parameter used as text'
        const login = marked ? `${secret}#login` : secret
        secrets.push(markSecret(secret), markSecret(login))
        pds = new FakeAtproto([{ ...alice, password: via === 'wrong password' ? `${login}-other` : login }])
        const properties: Record<string, unknown> = {
          handle: { type: 'string', description: 'h' },
          [param]: { type: 'string', description: 'p', ...(marked ? { writeOnly: true } : {}) },
          ...(marked ? { login: { type: 'string', description: 'l' } } : {}),
        }
        const input = {
          username: '{{input.handle}}',
          password: marked ? '{{input.login}}' : `{{input.${param}}}`,
          content: how === 'password only' ? 'agent post' : `note {{input.${param}}}`,
        }
        const body = {
          name: `Poster ${n}`,
          description: 'Posts with credentials given as parameters',
          parameters: { type: 'object', properties, required: [] },
          workflow: { steps: [{ id: 'post', action: 'post_to_social', input }], output: '{{steps.post}}' },
        }
        const params: Record<string, string> = { handle: alice.handle, [param]: secret, ...(marked ? { login } : {}) }
        const res = await createAndInvoke(token, body, params, via, `class-${n}`)
        if (via === 'wrong password') expect(res.status).toBe(422)
        else expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
        // The answer itself never echoes a secret either.
        expect(JSON.stringify(res.body)).not.toContain(secret)
        expect(JSON.stringify(res.body)).not.toContain(login)
      }),
      { numRuns: 40, examples },
    )
    for (const job of seen.jobInputs) expect(job.kind).toMatch(/^sealed/)
    for (const s of new Set(secrets)) {
      const { hits, rows, keys } = await whereIs(s, seen.messages)
      figure.found += hits.length
      figure.rows = rows
      figure.keys = keys
      expect(hits, s).toEqual([])
    }
    figure.secrets += new Set(secrets).size
  })

  it('keeps a number or boolean secret parameter out of every record, sent as a JSON value or as text', async () => {
    const { token } = await newCaller('scalar')
    let pds = new FakeAtproto()
    mockFetch((req) => pds.handle(req))
    const seen = watchQueue()
    // Long enough that its digits cannot turn up by chance inside a timestamp or an id.
    const secretNumber = fc.oneof(
      fc.integer({ min: 1e11, max: Number.MAX_SAFE_INTEGER }).map((v) => ({ type: 'integer' as const, value: v })),
      fc.integer({ min: 1e6, max: 1e9 }).map((v) => ({ type: 'number' as const, value: v + 0.123457 })),
    )
    const modes = ['inline', 'idempotent', 'queued', 'JSON text input', 'tool-name alias'] as const
    const secrets: string[] = []
    let n = 0
    await fc.assert(
      fc.asyncProperty(secretNumber, fc.boolean(), fc.constantFrom(...modes), async ({ type, value }, asText, via) => {
        n++
        figure.flows.add(`${type} parameter / ${via}`)
        const text = String(value)
        secrets.push(markSecret(text))
        const login = markSecret(`pw-${text}-login`)
        pds = new FakeAtproto([{ ...alice, password: login }])
        const body = {
          name: `Pin poster ${n}`,
          description: 'Posts with a numeric secret spliced into the text',
          parameters: {
            type: 'object',
            properties: {
              handle: { type: 'string', description: 'h' },
              login: { type: 'string', description: 'l' },
              pin: { type, description: 'p', writeOnly: true },
              flag: { type: 'boolean', description: 'f', writeOnly: true },
            },
            required: [],
          },
          workflow: {
            steps: [{ id: 'post', action: 'post_to_social', input: { username: '{{input.handle}}', password: '{{input.login}}', content: 'note {{input.pin}} {{input.flag}}' } }],
            output: '{{steps.post}}',
          },
        }
        const params = { handle: alice.handle, login, pin: asText ? text : value, flag: asText ? 'true' : true }
        const res = await createAndInvoke(token, body, params, via, `scalar-${n}`)
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
        expect(JSON.stringify(res.body)).not.toContain(text)
      }),
      // Every way of calling, with the value as JSON and as text, runs at least once.
      {
        numRuns: 15,
        examples: modes.flatMap((via, i) =>
          [true, false].map((asText) => [{ type: 'integer' as const, value: 314159265358 + i }, asText, via] as [{ type: 'integer' | 'number'; value: number }, boolean, (typeof modes)[number]]),
        ),
      },
    )
    // The runs' records show both secret parameters as "[redacted]", never their values.
    const runs = (await request('GET', '/v1/runs?limit=100', { token })).body.response.filter((r: Json) => r.action === 'invoke_agent' && r.input.input)
    expect(runs.length).toBeGreaterThanOrEqual(12)
    for (const r of runs) {
      // Input given as JSON text stays text, the secrets' digits replaced inside it.
      if (typeof r.input.input === 'string') expect(r.input.input).toMatch(/"pin":\s*"?\[redacted\]"?,\s*"flag":\s*"?\[redacted\]/)
      else expect([r.input.input.pin, r.input.input.flag]).toEqual(['[redacted]', '[redacted]'])
    }
    for (const job of seen.jobInputs) expect(job.kind).toMatch(/^sealed/)
    for (const s of new Set(secrets)) {
      const { hits } = await whereIs(s, seen.messages)
      figure.found += hits.length
      expect(hits, s).toEqual([])
    }
    figure.secrets += new Set(secrets).size
  })
})

afterAll(() => {
  console.log(
    `secrets by type: ${figure.secrets} generated secrets under generated parameter names through ${figure.flows.size} flows (direct, spliced, marked; inline, idempotent, queued, JSON text, tool alias, refused upstream): ${figure.found} found in D1 (${figure.rows} rows), KV (${figure.keys} keys), queue messages or logs`,
  )
})
