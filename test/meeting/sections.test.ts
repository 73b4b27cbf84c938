import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request } from '../helpers'
import { createFakeLlm, type FakeCall, type FakeLlmOptions } from '../llm/fake-llm'

const NAME = 'meeting_prep_v3_generate_meeting_sections'

const CONTEXT = {
  processed_research: '{"contacts":[{"name":"Jane Roe","title":"VP Operations","company":"Globex"}]}',
  target_company_identity: '{"name":"Globex","domain":"globex.com","industry":"Logistics"}',
  meeting_classification: '{"type":"discovery"}',
  processed_calendar_event: '{"title":"Acme <> Globex discovery","start":"2026-03-05T14:00:00Z"}',
  topic_signals: '["warehouse automation","peak season staffing"]',
  meeting_relationships: '{"jane@globex.com":"champion"}',
  user_context: 'I am an account executive at Acme Robotics.',
}

/** A caller with model keys connected to its account (both vendors unless told otherwise). */
async function callerWithKeys(vendors: ('openai' | 'anthropic')[] = ['openai', 'anthropic']) {
  const caller = await newCaller('Meeting prep')
  const keys = { openai: 'sk-test-openai', anthropic: 'sk-ant-test' }
  for (const v of vendors) {
    const res = await request('PUT', `/v1/integrations/llm/${v}`, { token: caller.token, body: { api_key: keys[v] } })
    expect(res.status).toBe(200)
  }
  return caller
}

function fake(options: FakeLlmOptions = {}) {
  const llm = createFakeLlm(options)
  mockFetch((req) => llm.handle(req))
  return llm
}

const bySection = (calls: FakeCall[], section: string) => calls.filter((c) => c.section === section)

describe('meeting_prep_v3_generate_meeting_sections', () => {
  it('routes simple sections to fast_model and complex sections to quality_model', async () => {
    const { token } = await callerWithKeys()
    const llm = fake()
    const res = await action(NAME, { ...CONTEXT, fast_model: 'gpt-5.4-mini', quality_model: 'claude-sonnet-4-6' }, token)
    expect(res.status).toBe(200)
    const out = res.body.response
    expect(Object.keys(out.sections).sort()).toEqual(['attendees', 'company', 'next_step', 'overview', 'questions', 'segues', 'situation'])
    expect(out.errors).toEqual({})
    for (const s of ['overview', 'company', 'questions', 'next_step']) {
      const [call] = bySection(llm.calls, s)
      expect(call.api).toBe('openai.responses')
      expect(call.model).toBe('gpt-5.4-mini')
      expect(call.schemaName).toBe(`meeting_section_${s}`)
      expect(out.models[s]).toEqual({ tier: 'fast', id: 'gpt-5.4-mini', provider: 'openai', model: 'gpt-5.4-mini' })
    }
    for (const s of ['attendees', 'situation', 'segues']) {
      const [call] = bySection(llm.calls, s)
      expect(call.api).toBe('anthropic.messages')
      expect(call.model).toBe('claude-sonnet-4-6')
      expect(out.models[s]).toMatchObject({ tier: 'quality', id: 'claude-sonnet-4-6', provider: 'anthropic' })
    }
    expect(llm.calls).toHaveLength(7)
    expect(out.sections.questions.questions[0]).toEqual({ question: expect.any(String), purpose: expect.any(String), follow_up: expect.any(String) })
    expect(out.sections.attendees.attendees[0]).toHaveProperty('role_in_meeting')
    expect(out.section_set).toBe('v3')
  })

  it('uses the spec defaults: the smallest and the larger model of the first vendor', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview","attendees"]' }, token)
    expect(res.status).toBe(200)
    expect(bySection(llm.calls, 'overview')[0].model).toBe('gpt-5.4-nano')
    expect(bySection(llm.calls, 'attendees')[0].model).toBe('gpt-5.4')
    expect(Object.keys(res.body.response.sections).sort()).toEqual(['attendees', 'overview'])
  })

  it('puts every context field into the prompt and sends the documented JSON schema', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    await action(NAME, { ...CONTEXT, sections_to_generate: '["company"]' }, token)
    const [call] = llm.calls
    for (const value of Object.values(CONTEXT)) expect(call.prompt).toContain(value)
    expect(call.headers.authorization).toBe('Bearer sk-test-openai')
    expect(call.schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['name', 'description', 'recent_developments']) })
  })

  it('adapts the prompt to the seller profile when has_seller_profile is true', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    const seller = JSON.stringify({ has_seller_profile: true, seller_profile: { company: 'Acme Robotics', offering: 'Autonomous picking robots for warehouses' } })
    const res = await action(NAME, { ...CONTEXT, seller_profile: seller, sections_to_generate: '["situation"]' }, token)
    expect(res.status).toBe(200)
    expect(res.body.response.seller_profile_used).toBe(true)
    const [call] = llm.calls
    expect(call.system).toContain('Tailor the section to the seller')
    expect(call.prompt).toContain('Autonomous picking robots for warehouses')
  })

  it('keeps the prompt neutral when has_seller_profile is false', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    const seller = JSON.stringify({ has_seller_profile: false, seller_profile: 'Acme Robotics sells robots' })
    const res = await action(NAME, { ...CONTEXT, seller_profile: seller, sections_to_generate: '["situation"]' }, token)
    expect(res.body.response.seller_profile_used).toBe(false)
    expect(llm.calls[0].system).toContain('No seller profile is available')
    expect(llm.calls[0].prompt).not.toContain('Acme Robotics sells robots')
  })

  it('uses meeting_memories_answer as cross-meeting context', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    await action(NAME, { ...CONTEXT, meeting_memories_answer: 'Last time Globex agreed to a pilot in Q2.', sections_to_generate: '["next_step"]' }, token)
    expect(llm.calls[0].prompt).toContain('Last time Globex agreed to a pilot in Q2.')
    expect(llm.calls[0].prompt).toContain('Build on the earlier meetings')
  })

  it('reports a failing section with its error and returns the others', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake({
      respond: (call) =>
        call.section === 'attendees'
          ? { status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }, headers: { 'retry-after': '0' } }
          : undefined,
    })
    const res = await action(NAME, CONTEXT, token)
    expect(res.status).toBe(200)
    const out = res.body.response
    expect(out.errors.attendees).toMatchObject({ code: 'UPSTREAM_FAILED', status: 502 })
    expect(out.errors.attendees.message).toContain('The server had an error')
    expect(out.sections.attendees).toBeUndefined()
    expect(Object.keys(out.sections)).toHaveLength(6)
    // The guarded client retried the 5xx twice before giving up.
    expect(bySection(llm.calls, 'attendees')).toHaveLength(3)
  })

  it('retries a 429 after its Retry-After and then succeeds', async () => {
    const { token } = await callerWithKeys(['anthropic'])
    const llm = fake({
      respond: (call) =>
        call.attempt === 1
          ? { status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' } }, headers: { 'retry-after': '0' } }
          : undefined,
    })
    const res = await action(NAME, { ...CONTEXT, fast_model: 'claude-haiku-4-5', quality_model: 'claude-opus-4-6', sections_to_generate: '["overview","segues"]' }, token)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body.response.sections).sort()).toEqual(['overview', 'segues'])
    expect(bySection(llm.calls, 'overview').map((c) => c.attempt)).toEqual([1, 2])
    expect(bySection(llm.calls, 'segues').map((c) => c.attempt)).toEqual([1, 2])
    expect(llm.calls.every((c) => c.headers['x-api-key'] === 'sk-ant-test')).toBe(true)
  })

  it('answers 429 with Retry-After when the vendor keeps rate limiting every section', async () => {
    const { token } = await callerWithKeys(['openai'])
    fake({
      respond: () => ({
        status: 429,
        body: { error: { message: 'Rate limit reached for gpt-5.4-nano', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
        headers: { 'retry-after': '60' },
      }),
    })
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview"]' }, token)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(res.headers.get('retry-after')).toBe('60')
  })

  it('answers 503 naming OPENAI_API_KEY when no key covers the requested model', async () => {
    const { token } = await newCaller()
    const llm = fake()
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview"]' }, token)
    expect(res.status).toBe(503)
    expect(res.body.code).toBe('NOT_CONFIGURED')
    expect(res.body.error).toContain('OPENAI_API_KEY')
    expect(llm.calls).toHaveLength(0)
  })

  it('answers 503 naming ANTHROPIC_API_KEY when only the quality model lacks a key', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    const res = await action(NAME, { ...CONTEXT, quality_model: 'claude-opus-4-6' }, token)
    expect(res.status).toBe(503)
    expect(res.body.error).toContain('ANTHROPIC_API_KEY')
    expect(llm.calls).toHaveLength(0)
  })

  it('fails the call with 502 when the vendor rejects the key for every section', async () => {
    const { token } = await newCaller()
    await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: 'sk-wrong-key-0000' } })
    fake()
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview","company"]' }, token)
    expect(res.status).toBe(502)
    expect(res.body.error).toContain('rejected the API key')
    expect(res.body.error).not.toContain('sk-wrong-key-0000')
  })

  it('generates the V2 set when use_v4_sections is false', async () => {
    const { token } = await callerWithKeys(['openai'])
    const llm = fake()
    const res = await action(NAME, { ...CONTEXT, use_v4_sections: false }, token)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body.response.sections).sort()).toEqual(['attendees', 'company', 'goals', 'overview', 'strategy'])
    expect(res.body.response.section_set).toBe('v2')
    expect(bySection(llm.calls, 'strategy')[0].model).toBe('gpt-5.4')
    expect(bySection(llm.calls, 'goals')[0].model).toBe('gpt-5.4-nano')
  })

  it('rejects an unknown section name with a 400 listing the valid ones', async () => {
    const { token } = await callerWithKeys(['openai'])
    const res = await action(NAME, { sections_to_generate: '["overview","strategy"]' }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/sections_to_generate')
    expect(res.body.error).toContain('"strategy"')
    expect(res.body.error).toContain('overview, attendees, company, situation, segues, questions, next_step')
  })

  it('rejects sections_to_generate that is not the text of a JSON array', async () => {
    const { token } = await callerWithKeys(['openai'])
    for (const bad of ['overview', '{"a":1}', '[]', '[1]']) {
      const res = await action(NAME, { sections_to_generate: bad }, token)
      expect(res.status).toBe(400)
      expect(res.body.details[0].path).toBe('/sections_to_generate')
    }
  })

  it('rejects an unknown model, wrong types and a malformed seller profile with 400s', async () => {
    const { token } = await callerWithKeys(['openai'])
    const cases: [Record<string, unknown>, string][] = [
      [{ fast_model: 'gpt-3' }, '/fast_model'],
      [{ quality_model: 'claude-haiku-4-5' }, '/quality_model'],
      [{ use_v4_sections: 'maybe' }, '/use_v4_sections'],
      [{ fast_model: 5 }, '/fast_model'],
      [{ seller_profile: 'not json' }, '/seller_profile'],
      [{ output_variable_name: '1bad' }, '/output_variable_name'],
      [{ surprise: true }, '/surprise'],
    ]
    for (const [body, path] of cases) {
      const res = await action(NAME, body, token)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path)
    }
  })

  it('records token usage on the run', async () => {
    const { token } = await callerWithKeys(['openai'])
    fake()
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview","questions"]' }, token)
    expect(res.status).toBe(200)
    const usage = res.body.response.usage
    expect(usage.total.total_tokens).toBe(usage.overview.total_tokens + usage.questions.total_tokens)
    expect(usage.overview.input_tokens).toBeGreaterThan(0)
    const run = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token })
    expect(run.body.response.usage).toMatchObject({ model_calls: 2, total_tokens: usage.total.total_tokens })
  })

  it('counts only whole token numbers from 0 up that a provider reports, so totals stay numbers', async () => {
    const { token } = await callerWithKeys(['openai'])
    const reported = [1e308, -5, 2.5, 7]
    let i = 0
    fake({ usage: () => ({ input: reported[i++ % reported.length], output: 3 }) })
    const res = await action(NAME, { ...CONTEXT, sections_to_generate: '["overview","questions"]' }, token)
    expect(res.status).toBe(200)
    const usage = res.body.response.usage
    for (const part of [usage.overview, usage.questions, usage.total]) {
      for (const n of [part.input_tokens, part.output_tokens, part.total_tokens]) expect(Number.isSafeInteger(n) && n >= 0, JSON.stringify(usage)).toBe(true)
    }
    expect(usage.total.input_tokens).toBe(0)
  })
})
