import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { listSecretRows } from '../../src/db/secrets'
import { action, mockFetch, newCaller, request } from '../helpers'
import { createFakeLlm } from './fake-llm'

describe('/v1/integrations/llm', () => {
  it('stores a key sealed and shows only a hint of it', async () => {
    const { accountId, token } = await newCaller()
    const put = await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: 'sk-proj-abcdef123456WXYZ' } })
    expect(put.status).toBe(200)
    expect(put.body.response).toMatchObject({ provider: 'openai', key_hint: '…WXYZ', base_url: null })
    expect(JSON.stringify(put.body)).not.toContain('sk-proj-abcdef123456WXYZ')

    const got = await request('GET', '/v1/integrations/llm/openai', { token })
    expect(got.status).toBe(200)
    expect(got.body.response.connected_at).toMatch(/^\d{4}-/)
    expect(JSON.stringify(got.body)).not.toContain('abcdef123456')

    const rows = await listSecretRows(env.DB, accountId, 'llm:')
    expect(rows).toHaveLength(1)
    expect(rows[0].sealed).not.toContain('abcdef123456')

    const list = await request('GET', '/v1/integrations/llm', { token })
    expect(list.body.response.map((r: { provider: string }) => r.provider)).toEqual(['openai'])
  })

  it('deletes a key and then reports it as not connected', async () => {
    const { token } = await newCaller()
    await request('PUT', '/v1/integrations/llm/anthropic', { token, body: { api_key: 'sk-ant-api03-xyz12345' } })
    const del = await request('DELETE', '/v1/integrations/llm/anthropic', { token })
    expect(del.status).toBe(200)
    expect((await request('GET', '/v1/integrations/llm/anthropic', { token })).status).toBe(404)
    expect((await request('DELETE', '/v1/integrations/llm/anthropic', { token })).status).toBe(404)
  })

  it('keeps each account to its own keys', async () => {
    const a = await newCaller('A')
    const b = await newCaller('B')
    await request('PUT', '/v1/integrations/llm/openai', { token: a.token, body: { api_key: 'sk-account-a-key' } })
    expect((await request('GET', '/v1/integrations/llm/openai', { token: b.token })).status).toBe(404)
    expect((await request('GET', '/v1/integrations/llm', { token: b.token })).body.response).toEqual([])
  })

  it('requires a bearer token', async () => {
    const res = await request('PUT', '/v1/integrations/llm/openai', { body: { api_key: 'sk-test-12345678' } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('Bearer')
  })

  it('rejects unknown providers, bad bodies and unsafe base URLs', async () => {
    const { token } = await newCaller()
    expect((await request('PUT', '/v1/integrations/llm/mistral', { token, body: { api_key: 'sk-test-12345678' } })).status).toBe(404)
    const cases: [string, Record<string, unknown>, string][] = [
      ['openai', {}, '/api_key'],
      ['openai', { api_key: 5 }, '/api_key'],
      ['openai', { api_key: 'sk-test-12345678', extra: 1 }, '/extra'],
      ['openai', { api_key: 'sk-test-12345678', base_url: 'http://10.0.0.5/v1' }, '/base_url'],
      ['openai', { api_key: 'sk-test-12345678', base_url: 'https://user:pw@llm.example.com/v1' }, '/base_url'],
      ['openai', { api_key: 'sk-test-12345678', model: 'llama3' }, '/model'],
      ['openai_compatible', { api_key: 'sk-test-12345678' }, '/base_url'],
    ]
    for (const [provider, body, path] of cases) {
      const res = await request('PUT', `/v1/integrations/llm/${provider}`, { token, body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path)
    }
  })

  it('sends model calls to a connected OpenAI-compatible server over Chat Completions', async () => {
    const { token } = await newCaller()
    const put = await request('PUT', '/v1/integrations/llm/openai_compatible', {
      token,
      body: { api_key: 'local-key-123456', base_url: 'https://llm.example.com/v1/', model: 'llama3.3' },
    })
    expect(put.body.response).toMatchObject({ base_url: 'https://llm.example.com/v1', model: 'llama3.3' })
    const llm = createFakeLlm({ bases: { compatible: 'https://llm.example.com/v1' }, keys: { compatible: 'local-key-123456' } })
    mockFetch((req) => llm.handle(req))
    const res = await action('meeting_prep_v3_generate_meeting_sections', { sections_to_generate: '["overview"]' }, token)
    expect(res.status).toBe(200)
    expect(llm.calls[0]).toMatchObject({ api: 'openai.chat', model: 'llama3.3', section: 'overview' })
    expect(llm.calls[0].body.response_format).toMatchObject({ type: 'json_schema' })
    expect(res.body.response.models.overview).toEqual({ tier: 'fast', id: 'gpt-5.4-nano', provider: 'openai_compatible', model: 'llama3.3' })
  })

  it('sends an account key with its base URL to the OpenAI Responses API there', async () => {
    const { token } = await newCaller()
    await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: 'sk-gateway-key-1', base_url: 'https://gateway.example.com/openai/v1' } })
    const llm = createFakeLlm({ bases: { openai: 'https://gateway.example.com/openai/v1' }, keys: { openai: 'sk-gateway-key-1' } })
    mockFetch((req) => llm.handle(req))
    const res = await action('meeting_prep_v3_generate_meeting_sections', { sections_to_generate: '["company"]' }, token)
    expect(res.status).toBe(200)
    expect(llm.calls[0]).toMatchObject({ api: 'openai.responses', model: 'gpt-5.4-nano' })
  })
})
