import { describe, expect, it } from 'vitest'
import { SECRET_SETTINGS } from '../src/env'
import envSource from '../src/env.ts?raw'
import { action, json, mockFetch, newCaller, request, withSettings } from './helpers'
import { markSecret } from './secret-scan'

/**
 * A peer may echo the credential it was sent (an error message quoting the key, a proxy's debug
 * page): the run scrubs the credentials it sends, not only the secrets of its request, from its
 * answer and its record.
 */
async function expectScrubbed(res: { status: number; body: unknown; headers: Headers }, token: string, secret: string) {
  expect(JSON.stringify(res.body)).toContain('[redacted]')
  expect(JSON.stringify(res.body)).not.toContain(secret)
  const run = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token })
  expect(run.status).toBe(200)
  expect(JSON.stringify(run.body)).not.toContain(secret)
}

const MEETING = { target_company_identity: '{"name":"Globex"}', sections_to_generate: '["overview"]' }

describe('a peer that echoes the credential it was sent', () => {
  it('has the connected HubSpot token scrubbed from the answer and the run', async () => {
    const hubspotToken = markSecret('pat-na1-echoed00-2222-3333-4444-555555555555')
    const { token } = await newCaller('Echo HubSpot')
    expect((await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: hubspotToken, verify: false } })).status).toBe(200)
    mockFetch((req) => (new URL(req.url).host === 'api.hubapi.com' ? json({ status: 'error', message: `Bad token ${hubspotToken}`, category: 'VALIDATION_ERROR' }, 400) : null))
    const res = await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: '1000' }, token)
    expect(res.status).toBe(400)
    await expectScrubbed(res, token, hubspotToken)
  })

  it('has an account’s model key scrubbed from the answer and the run', async () => {
    const key = markSecret('sk-proj-echoed-account-key-0123456789')
    const { token } = await newCaller('Echo account key')
    expect((await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: key } })).status).toBe(200)
    mockFetch((req) =>
      new URL(req.url).host === 'api.openai.com' ? json({ error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error', code: 'invalid_api_key' } }, 401) : null,
    )
    const res = await action('meeting_prep_v3_generate_meeting_sections', MEETING, token)
    expect(res.status).toBe(502)
    await expectScrubbed(res, token, key)
  })

  it('has the server’s model key scrubbed from the answer and the run', async () => {
    const key = markSecret('sk-proj-echoed-server-key-0123456789')
    const { token } = await newCaller('Echo server key')
    mockFetch((req) =>
      new URL(req.url).host === 'api.openai.com' ? json({ error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error', code: 'invalid_api_key' } }, 401) : null,
    )
    const res = await withSettings({ OPENAI_API_KEY: key }, () => action('meeting_prep_v3_generate_meeting_sections', MEETING, token))
    expect(res.status).toBe(502)
    await expectScrubbed(res, token, key)
  })
})

describe('the secret settings a run scrubs', () => {
  it('are exactly the settings src/env.ts documents as secrets', () => {
    const documented = [...envSource.matchAll(/\/\*\*\s*Secret\.[^]*?\*\/\s*([A-Z0-9_]+)\?:/g)].map((m) => m[1])
    expect(documented.length).toBeGreaterThan(5)
    expect([...SECRET_SETTINGS].sort()).toEqual(documented.sort())
  })
})
