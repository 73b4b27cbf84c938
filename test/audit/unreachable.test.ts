import { describe, expect, it } from 'vitest'
import { assertStartPageReachable } from '../../src/crawler/site'
import { UpstreamError } from '../../src/providers/errors'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { AUDIT_ACTION, runAudit } from './run-audit'
import { action, mockFetch, newCaller, type Json } from '../helpers'
import { ORIGIN, trailgear } from '../fixtures/sites/trailgear'

const NAME = AUDIT_ACTION

/** A site whose pages all answer `status`, or whose connections are refused (status null). */
function site(host: string, status: number | null) {
  return async (req: Request): Promise<Response | null> => {
    if (new URL(req.url).hostname !== host) return null
    if (status === null) throw new TypeError('Network connection lost: connection refused')
    return new Response('<html><body><h1>Down</h1></body></html>', { status, headers: { 'content-type': 'text/html' } })
  }
}

describe('content audit of a site that cannot be crawled', () => {
  it('answers 400 naming website_url when the host does not exist, and queues nothing', async () => {
    mockFetch()
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'https://nxdomain.rebind.test/' }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.response).toBeNull()
    expect(res.body.details[0].path).toBe('/website_url')
    expect(res.body.error).toMatch(/nxdomain\.rebind\.test cannot be reached: no such domain/)
  })

  it('answers 502 naming the DNS failure when the resolver fails', async () => {
    mockFetch()
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'https://servfail.rebind.test/' }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(502)
    expect(res.body.error).toMatch(/DNS lookup for servfail\.rebind\.test failed/)
  })

  it('answers 502 saying the connection was refused', async () => {
    mockFetch(site('refused.test', null))
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'https://refused.test/' }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(502)
    expect(res.body.code).toBe('UPSTREAM_FAILED')
    expect(res.body.error).toMatch(/could not be crawled/)
    expect(res.body.error).toMatch(/connection refused/)
    expect(res.body.error).not.toMatch(/internal error/)
  })

  for (const status of [404, 410, 500, 503]) {
    it(`answers 422 naming the status when the start page answers ${status}, never scores`, async () => {
      mockFetch(site('down.test', status))
      const { token } = await newCaller()
      const res = await action(NAME, { website_url: 'https://down.test/' }, token)
      expect(res.status, JSON.stringify(res.body)).toBe(422)
      expect(res.body.response).toBeNull()
      expect(res.body.error).toContain(`answered HTTP ${status}`)
      expect(res.body.details[0].path).toBe('/website_url')
    })
  }

  it('times out on a start page that never answers, as a 504-kind error naming the page', async () => {
    const hang = createGuardedFetch({
      userAgent: 'test',
      allowPrivate: true,
      sleep: async () => undefined,
      fetcher: ((_: RequestInfo | URL, init?: RequestInit) => new Promise<Response>((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))) as typeof fetch,
    })
    const err = await assertStartPageReachable(hang, 'https://slow.test/', 50).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as UpstreamError).kind).toBe('timeout')
    expect((err as UpstreamError).message).toMatch(/could not be crawled: its start page https:\/\/slow\.test\/ failed: .*timed out/)
  })

  it('fails the run without scores when the start page breaks after the audit was queued', async () => {
    let homeFetches = 0
    mockFetch(async (req) => {
      const url = new URL(req.url)
      if (url.origin === ORIGIN && url.pathname === '/' && homeFetches++ > 0) return new Response('oops', { status: 500 })
      return trailgear(req)
    })
    const { token } = await newCaller()
    const { run, response } = await runAudit(token, { website_url: `${ORIGIN}/`, max_pages: 10 })
    expect(run.state).toBe('failed')
    expect(response ?? null).toBeNull()
    expect(run.error).toMatchObject({ status: 422 })
    expect(run.error.message).toContain('answered HTTP 500')
  })
})

describe('content audit wording and thresholds', () => {
  it('words passed site checks as passes', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const { response: audit } = await runAudit(token, { website_url: `${ORIGIN}/`, max_pages: 10 })
    const byCheck = Object.fromEntries(audit.site_checks.map((c: Json) => [c.check, c]))
    expect(byCheck['robots-txt']).toMatchObject({ passed: true, title: 'robots.txt is valid', message: null })
    expect(byCheck['llms-txt']).toMatchObject({ passed: false, title: 'No llms.txt' })
  })

  it('takes the thin-content threshold from thin_content_words', async () => {
    mockFetch(trailgear)
    const { token } = await newCaller()
    const thin = (audit: Json) => audit.inventory.filter((r: Json) => r.issues.some((i: Json) => i.check === 'thin-content')).map((r: Json) => r.url)
    const { response: none } = await runAudit(token, { website_url: `${ORIGIN}/`, thin_content_words: 0 })
    expect(none.summary.thin_content_words).toBe(0)
    expect(thin(none)).toEqual([])
    const { response: strict } = await runAudit(token, { website_url: `${ORIGIN}/`, thin_content_words: 5000 })
    expect(thin(strict).length).toBe(strict.inventory.filter((r: Json) => r.kind === 'html').length - 1)
  })

  it('rejects a negative thin_content_words, naming the field', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { website_url: 'https://example.com', thin_content_words: -1 }, token)
    expect(res.status).toBe(400)
    expect(res.body.details[0].path).toBe('/thin_content_words')
  })
})
