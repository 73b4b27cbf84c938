import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request } from '../helpers'
import { DOMAIN, openUpstreams, sectionsOffExcept } from './fakes'

const sectionsOff = sectionsOffExcept('company_overview', 'web_traffic')

describe('company research asynchronous trio', () => {
  it('starts a run at once, reports its status, and returns the report or one section', async () => {
    const { token } = await newCaller('Trio')
    mockFetch(openUpstreams())
    const start = await action('company_research_v2_start_research', { domain: DOMAIN, ...sectionsOff }, token)
    expect(start.status).toBe(200)
    const { run_id, state, poll } = start.body.response
    expect(run_id).toMatch(/^run_/)
    expect(state).toBe('queued')
    expect(poll).toBe(`/v1/runs/${run_id}`)

    const done = await request('GET', `${poll}?wait=10`, { token })
    expect(done.body.response.state).toBe('succeeded')

    const status = await action('company_research_v2_get_status', { run_id }, token)
    expect(status.status).toBe(200)
    expect(status.body.response).toMatchObject({ run_id, state: 'succeeded', sections_done: 2, sections_total: 2, summary: { ok: ['company_overview', 'web_traffic'] } })

    const report = await action('company_research_v2_get_report', { run_id }, token)
    expect(report.body.response.ready).toBe(true)
    expect(Object.keys(report.body.response.report.sections).sort()).toEqual(['company_overview', 'web_traffic'])

    const one = await action('company_research_v2_get_report', { run_id, section: 'web_traffic' }, token)
    expect(one.body.response).toMatchObject({ domain: DOMAIN, section: 'web_traffic', selected: true, result: { status: 'ok', data: { latest_rank: 48210 } } })

    const missing = await action('company_research_v2_get_report', { run_id, section: 'news' }, token)
    expect(missing.body.response).toMatchObject({ selected: false, result: null })
  })

  it('answers 404 for another account’s run and 400 for an unknown section', async () => {
    const owner = await newCaller('Trio owner')
    const other = await newCaller('Trio other')
    mockFetch(openUpstreams())
    const start = await action('company_research_v2_start_research', { domain: DOMAIN, ...sectionsOff }, owner.token)
    const { run_id } = start.body.response
    expect((await action('company_research_v2_get_status', { run_id }, other.token)).status).toBe(404)
    expect((await action('company_research_v2_get_report', { run_id }, other.token)).status).toBe(404)
    const bad = await action('company_research_v2_get_report', { run_id, section: 'gossip' }, owner.token)
    expect(bad.status).toBe(400)
    expect(bad.body.details[0].path).toBe('/section')
    await request('GET', `/v1/runs/${run_id}?wait=10`, { token: owner.token })
  })
})
