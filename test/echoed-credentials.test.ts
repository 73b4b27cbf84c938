import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { credentialValues } from '../src/providers/web/credentials'
import { action, mockFetch, newCaller, request, withSettings } from './helpers'
import { markSecret } from './secret-scan'

/**
 * Upstreams quote what they were sent in their errors ("Incorrect API key provided: sk-..."). The
 * keys and tokens the Worker sends (the operator's settings, an account's connected credentials)
 * must never come back through such an error: not in the answer, the run record, the stored
 * connection or a log line (the file's secret scan searches D1, KV and the logs for every key
 * marked here).
 */

const SECTIONS = 'meeting_prep_v3_generate_meeting_sections'
const SECTIONS_BODY = { user_context: 'Account executive at Acme', sections_to_generate: '["overview"]' }

/** A key as vendors issue them: a prefix and 24-48 characters no header mangles. */
const keyText = fc.tuple(fc.constantFrom('sk-', 'sk-ant-', 'pat-na1-', 'key_', ''), fc.stringMatching(/^[A-Za-z0-9_-]{24,48}$/)).map(([p, k]) => markSecret(`${p}${k}`))

/** How an upstream quotes the key back: whole, in a sentence, JSON-escaped inside JSON text, cut into a message. */
const echo = fc.constantFrom(
  (k: string) => k,
  (k: string) => `Incorrect API key provided: ${k}. You can find your key in your dashboard.`,
  (k: string) => `request was {"headers":{"authorization":"Bearer ${k}"}}`,
  (k: string) => `invalid x-api-key ${JSON.stringify(k)}`,
)

/** A vendor that answers every call to `origin` with `status` and an error quoting the credential it was sent. */
function echoingVendor(origin: string, status: number, quote: (k: string) => string) {
  return mockFetch((req) => {
    if (!req.url.startsWith(origin)) return null
    const sent = req.headers.get('x-api-key') ?? (req.headers.get('authorization') ?? '').replace(/^Bearer /, '')
    const message = quote(sent)
    return new Response(JSON.stringify({ error: { message, type: 'invalid_request_error' }, message, status: 'error' }), { status, headers: { 'content-type': 'application/json' } })
  })
}

/** Every value the account's runs hold, as text. */
async function runText(accountId: string): Promise<string> {
  const { results } = await env.DB.prepare('SELECT * FROM runs WHERE account_id = ?').bind(accountId).all()
  return JSON.stringify(results)
}

describe('the credentials a request carries', () => {
  it('are found in every header form the clients send (fast-check)', () => {
    const token = fc.stringMatching(/^[\x21-\x7e]{8,60}$/)
    fc.assert(
      fc.property(token, fc.stringMatching(/^[A-Za-z0-9.@_-]{1,30}$/), (t, user) => {
        for (const [headers, expected] of [
          [{ authorization: `Bearer ${t}` }, t],
          [{ 'x-api-key': t }, t],
          [{ apikey: t }, t],
          [{ 'x-cb-user-key': t }, t],
          [{ authorization: `Basic ${btoa(`${user}:${t}`)}` }, t],
        ] as const) {
          expect(credentialValues(new Headers(headers))).toContain(expected)
        }
        expect(credentialValues(new Headers({ accept: t, 'content-type': 'application/json', 'anthropic-version': t }))).toEqual([])
        // A placeholder is no credential: scrubbing "none" would rewrite every answer that says it.
        expect(credentialValues(new Headers({ authorization: 'Bearer none', 'x-api-key': 'none' }))).toEqual(['Bearer none'])
      }),
      { numRuns: 300, seed: 20261129 },
    )
  })
})

describe('a credential an upstream echoes in its error', () => {
  it("the server's OPENAI_API_KEY quoted by OpenAI's 401 is not in the answer or the run (the minimal case)", async () => {
    const key = markSecret('sk-server-secret-0123456789abcdef')
    const { token, accountId } = await newCaller('echoed server key')
    echoingVendor('https://api.openai.com', 401, (k) => `Incorrect API key provided: ${k}`)
    const res = await withSettings({ OPENAI_API_KEY: key }, () => action(SECTIONS, { ...SECTIONS_BODY, fast_model: 'gpt-5.4-mini' }, token))
    expect(res.status).toBe(502)
    expect(res.body.error).toContain('OpenAI rejected the API key (OPENAI_API_KEY)')
    expect(JSON.stringify(res.body)).not.toContain(key)
    expect(await runText(accountId)).not.toContain(key)
  })

  it('is never answered, stored or logged, whichever key, vendor, status and quoting (fast-check)', async () => {
    const { token, accountId } = await newCaller('echoed keys')
    /** Where the key comes from: a server setting or a key the account connected. */
    type Route = { how: string; origin: string; model: string; setting?: string; provider?: string }
    const routes = fc.constantFrom<Route>(
      { how: 'server OpenAI key', origin: 'https://api.openai.com', setting: 'OPENAI_API_KEY', model: 'gpt-5.4-mini' },
      { how: 'server Anthropic key', origin: 'https://api.anthropic.com', setting: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-6' },
      { how: 'account OpenAI key', origin: 'https://api.openai.com', provider: 'openai', model: 'gpt-5.4-mini' },
      { how: 'account Anthropic key', origin: 'https://api.anthropic.com', provider: 'anthropic', model: 'claude-sonnet-4-6' },
    )
    await fc.assert(
      fc.asyncProperty(routes, keyText, echo, fc.constantFrom(400, 401, 403, 404, 422), fc.boolean(), async (route, key, quote, status, queued) => {
        echoingVendor(route.origin, status, quote)
        if (route.provider) expect((await request('PUT', `/v1/integrations/llm/${route.provider}`, { token, body: { api_key: key } })).status).toBe(200)
        const settings: Record<string, string> = route.setting ? { [route.setting]: key } : {}
        const body = { ...SECTIONS_BODY, fast_model: route.model, quality_model: route.model }
        const res = await withSettings(settings, async () => {
          const first = await action(SECTIONS, body, token, queued ? { prefer: 'respond-async' } : {})
          if (!queued) return first
          return request('GET', `/v1/runs/${first.body.response.run_id}?wait=20`, { token })
        })
        if (route.provider) await request('DELETE', `/v1/integrations/llm/${route.provider}`, { token })
        expect(JSON.stringify(res.body), route.how).not.toContain(key)
        expect(await runText(accountId), route.how).not.toContain(key)
      }),
      { numRuns: 16, seed: 20261129 },
    )
  }, 120_000)

  it("HubSpot's refusal quoting the token is neither stored with the connection nor answered", async () => {
    const { token, accountId } = await newCaller('echoed HubSpot token')
    const hubspot = markSecret('pat-na1-0123abcd-4567-89ef-0123-456789abcdef')
    echoingVendor('https://api.hubapi.com', 403, (k) => `Access to this portal is denied for token ${k}`)
    const put = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: hubspot } })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    expect(put.body.response.warnings.join(' ')).toContain('[redacted]')
    expect(JSON.stringify(put.body)).not.toContain(hubspot)
    const { results } = await env.DB.prepare('SELECT * FROM account_secrets WHERE account_id = ?').bind(accountId).all()
    expect(JSON.stringify(results)).not.toContain(hubspot)

    echoingVendor('https://api.hubapi.com', 400, (k) => `Invalid input for token ${k}`)
    const refused = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: hubspot } })
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.body)).not.toContain(hubspot)
    const update = await action('crm.v2.update_object', { object_type: 'contacts', identifier_value: '101', properties: '{"firstname":"Ada"}' }, token)
    expect(update.status).toBe(400)
    expect(JSON.stringify(update.body)).not.toContain(hubspot)
    expect(await runText(accountId)).not.toContain(hubspot)
  })
})

describe('a body that does not parse', () => {
  /** A password-like value of letters that no message word or number holds three in a row of. */
  const secretText = fc.stringMatching(/^[ABCDEFGHKLMPQRTUVWXYZ]{12,40}$/)
  /** Bodies broken exactly where the secret is, as clients break them. */
  const broken = fc.constantFrom(
    (s: string) => `{"username":"alice.example.com","password": ${s},"content":"hi"}`,
    (s: string) => `{"password":"${s}" "username":"alice.example.com"}`,
    (s: string) => `{"password":${s}}`,
    (s: string) => `${s}`,
    (s: string) => `{"api_key":"${s}"}}`,
  )
  const quotes = (message: string, secret: string) => [...Array(secret.length - 2).keys()].some((i) => message.includes(secret.slice(i, i + 3)))

  it("never quotes it back: the parser's excerpt of the text is left out (fast-check)", async () => {
    const { token } = await newCaller('broken bodies')
    await fc.assert(
      fc.asyncProperty(secretText, broken, fc.constantFrom('/v1/action/post_to_social', '/v1/integrations/llm/openai', '/mcp'), async (secret, body, path) => {
        const method = path.startsWith('/v1/integrations') ? 'PUT' : 'POST'
        const res = await request(method, path, { token, raw: body(secret), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } })
        expect(res.status, path).toBe(400)
        // The message and details, not the random request id (whose capitals could match by chance).
        const text = JSON.stringify(path === '/mcp' ? res.body.error : [res.body.error, res.body.details])
        expect(text).toMatch(/not valid JSON/)
        expect(quotes(text, secret), `${path}: ${text}`).toBe(false)
        // JSON text inside a field: the CRM's properties.
        const properties = body(secret)
        if (!properties.startsWith('{')) return
        const crm = await action('crm.v2.update_object', { object_type: 'contacts', identifier_value: '101', properties }, token)
        expect(crm.status).toBe(400)
        expect(quotes(JSON.stringify([crm.body.error, crm.body.details]), secret), JSON.stringify(crm.body)).toBe(false)
      }),
      { numRuns: 60, seed: 20261129 },
    )
  })

  it('an unquoted password is answered "Unexpected token", not an excerpt of the body (the minimal case)', async () => {
    const { token } = await newCaller('broken body')
    const res = await request('POST', '/v1/action/post_to_social', {
      token,
      raw: '{"username":"alice.bsky.social","password": hunter2secretpw,"content":"x"}',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('Request body is not valid JSON: Unexpected token')
  })
})
