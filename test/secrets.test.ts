import { env } from 'cloudflare:test'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { action, createToken, json, mockFetch, newCaller, request } from './helpers'
import { FakeHubSpot } from './crm/fake-hubspot'
import { searchStorage } from './secret-scan'
import { alice, FakeAtproto } from './social/fake-pds'

/**
 * Every kind of secret the service handles goes through its real paths (bearer tokens, the admin
 * token, a social password directly and as an agent parameter, a HubSpot token, a model key, session
 * JWTs an upstream hands out); then D1 (every table, every row), KV (every key and value), queue
 * messages and captured logs are scanned for each in plain text.
 */
const secrets = new Set<string>()
const logs: string[] = []
const queued: string[] = []

beforeAll(() => {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level]
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(' '))
      void original
    })
  }
  const send = env.JOBS.send.bind(env.JOBS)
  vi.spyOn(env.JOBS, 'send').mockImplementation(async (body, opts) => {
    queued.push(JSON.stringify(body))
    return send(body, opts)
  })
})

afterAll(() => vi.restoreAllMocks())

describe('secrets at rest and in logs', () => {
  it('exercises every secret path', async () => {
    secrets.add(env.ADMIN_TOKEN!)
    const { token, accountId } = await newCaller('secret keeper')
    secrets.add(token)
    secrets.add(await createToken(accountId, { name: 'second' }))

    // Social password, directly and through an agent parameter, inline and queued; session JWTs from the PDS.
    const pds = new FakeAtproto()
    const hubspot = new FakeHubSpot({ token: 'pat-na1-99999999-8888-7777-6666-secretsecret' })
    secrets.add(alice.password)
    secrets.add(hubspot.token)
    const jwts: string[] = []
    mockFetch(
      async (req) => {
        const res = await pds.handle(req)
        if (res && new URL(req.url).pathname.endsWith('createSession')) {
          const body = (await res.clone().json()) as { accessJwt?: string; refreshJwt?: string }
          if (body.accessJwt) jwts.push(body.accessJwt, body.refreshJwt!)
        }
        return res
      },
      hubspot.handler,
      (req) => (new URL(req.url).hostname === 'api.openai.com' ? json({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }, 401) : null),
    )
    const post = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'hello from the secrets suite' }, token, { 'workflow-id': 'secrets' })
    expect(post.status, JSON.stringify(post.body)).toBe(200)
    const wrong = await action('post_to_social', { username: alice.handle, password: 'wrong-password-value-1', content: 'x' }, token)
    secrets.add('wrong-password-value-1')
    expect(JSON.stringify(wrong.body)).not.toContain('wrong-password-value-1')

    const agent = await request('POST', '/v1/agents', {
      token,
      body: {
        name: 'Poster',
        description: 'Posts with credentials given as parameters',
        visibility: 'private',
        parameters: { type: 'object', properties: { handle: { type: 'string', description: 'h' }, app_password: { type: 'string', description: 'p' } }, required: ['handle', 'app_password'] },
        workflow: { steps: [{ id: 'post', action: 'post_to_social', input: { username: '{{input.handle}}', password: '{{input.app_password}}', content: 'agent post' } }] },
      },
    })
    const input = { id: agent.body.response.id, input: { handle: alice.handle, app_password: alice.password } }
    expect((await action('invoke_agent', input, token, { 'idempotency-key': 'k1' })).status).toBe(200)
    const queuedRun = await action('invoke_agent', input, token, { prefer: 'respond-async' })
    expect(queuedRun.status).toBe(202)
    expect((await request('GET', `/v1/runs/${queuedRun.body.response.run_id}?wait=20`, { token })).body.response.state).toBe('succeeded')

    // CRM token and a model key, stored sealed; the model key is also used (and refused upstream).
    expect((await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: hubspot.token } })).status).toBe(200)
    const lookup = await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: '1' }, token)
    expect(JSON.stringify(lookup.body)).not.toContain(hubspot.token)
    const modelKey = 'sk-proj-secrets-suite-0123456789abcdef'
    secrets.add(modelKey)
    expect((await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: modelKey } })).status).toBe(200)
    const sections = await action('meeting_prep_v3_generate_meeting_sections', { target_company_identity: 'Acme', sections_to_generate: '["overview"]' }, token)
    expect(JSON.stringify(sections.body)).not.toContain(modelKey)
    for (const j of jwts) secrets.add(j)
    expect(jwts.length).toBeGreaterThan(0)
  })

  it('finds none of them in D1, KV, queue messages or logs', async () => {
    const search = await searchStorage([...secrets])
    const found = [...search.found]
    for (const s of secrets) {
      if (queued.join('\n').includes(s)) found.push(`queue: ${s.slice(0, 6)}...`)
      if (logs.join('\n').includes(s)) found.push(`logs: ${s.slice(0, 6)}...`)
    }
    const { tables, rows, kvKeys: keys } = search
    console.info(`secrets: ${secrets.size} secrets scanned in ${tables} D1 tables (${rows} rows), ${keys} KV keys, ${queued.length} queue messages, ${logs.length} log lines; ${found.length} found`)
    expect(rows).toBeGreaterThan(20)
    expect(queued.length).toBeGreaterThan(0)
    expect(found).toEqual([])
  })
})
