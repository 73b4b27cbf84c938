import { describe, expect, it, vi } from 'vitest'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { UpstreamError } from '../src/providers/errors'
import { action, mockFetch, newCaller, request, type Json } from './helpers'
import { alice } from './social/fake-pds'
import { TEST_DNS, withFakeDns } from './fake-dns'

/** An upstream misbehaving in one way, for every host but the test's own. */
type Fault = '429' | '500' | 'garbage' | 'truncated' | 'empty' | 'deep'

function faulty(kind: Fault, hosts: string[]) {
  let calls = 0
  const handler = async (req: Request) => {
    if (!hosts.includes(new URL(req.url).hostname)) return null
    calls++
    switch (kind) {
      case '429':
        return new Response('{"message":"slow down"}', { status: 429, headers: { 'retry-after': '0', 'content-type': 'application/json' } })
      case '500':
        return new Response('<html>Internal Server Error</html>', { status: 500, headers: { 'content-type': 'text/html' } })
      case 'garbage':
        return new Response('\u0000\u00ff<<<not json, not html>>>{]', { status: 200, headers: { 'content-type': 'application/json' } })
      case 'empty':
        return new Response('', { status: 200, headers: { 'content-type': 'application/json' } })
      case 'deep':
        // Valid JSON nested 100,000 levels: past what anything that recurses over it can hold.
        return new Response(`{"results":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, { status: 200, headers: { 'content-type': 'application/json' } })
      case 'truncated': {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"results":[{"id":"1","properties":{"na'))
            controller.error(new Error('connection reset'))
          },
        })
        return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } })
      }
    }
  }
  return { handler, calls: () => calls }
}

const FAULTS: Fault[] = ['429', '500', 'garbage', 'truncated', 'empty', 'deep']

async function expectCleanFailure(res: { status: number; body: Json }) {
  expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400)
  expect(res.body.response).toBeNull()
  expect(res.body.code, JSON.stringify(res.body)).not.toBe('INTERNAL')
  expect(res.body.error.length).toBeGreaterThan(10)
}

describe('upstream faults', () => {
  it.each(FAULTS)('HubSpot answering %s gives a clear error', async (kind) => {
    const { token } = await newCaller('hubspot-fault')
    expect((await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: 'pat-na1-00000000-fault', verify: false } })).status).toBe(200)
    const f = faulty(kind, ['api.hubapi.com'])
    mockFetch(f.handler)
    await expectCleanFailure(await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: '42' }, token))
    expect(f.calls()).toBeGreaterThan(0)
  })

  it.each(FAULTS)('YouTube answering %s gives a clear error', async (kind) => {
    const { token } = await newCaller('youtube-fault')
    const f = faulty(kind, ['www.youtube.com'])
    mockFetch(f.handler)
    await expectCleanFailure(await action('get_video_transcript', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' }, token))
  })

  it.each(FAULTS)('the AT Protocol PDS answering %s gives a clear error that keeps the password out', async (kind) => {
    const { token } = await newCaller('pds-fault')
    const f = faulty(kind, ['bsky.social', 'plc.directory', 'cloudflare-dns.com', 'alice.bsky.social'])
    mockFetch(f.handler)
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'fault test' }, token)
    await expectCleanFailure(res)
    expect(JSON.stringify(res.body)).not.toContain(alice.password)
  })

  it.each(FAULTS)('a model API answering %s gives a clear error', async (kind) => {
    const { token } = await newCaller('llm-fault')
    expect((await request('PUT', '/v1/integrations/llm/openai', { token, body: { api_key: 'sk-fault-test-000000' } })).status).toBe(200)
    const f = faulty(kind, ['api.openai.com'])
    mockFetch(f.handler)
    await expectCleanFailure(await action('meeting_prep_v3_generate_meeting_sections', { target_company_identity: 'Acme', sections_to_generate: '["overview"]' }, token))
  })

  it.each(FAULTS)('a website answering %s leaves an honest SEO research report', async (kind) => {
    const { token } = await newCaller('site-fault')
    const f = faulty(kind, ['faulty-site.example'])
    mockFetch(f.handler)
    const res = await action('aeo_seo_research_generate_research_action', { topic: 'trail running shoes', website_url: 'https://faulty-site.example/' }, token)
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBeLessThan(500)
  })

  it('times out a hanging upstream and says so', async () => {
    const hang = (async (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))) as typeof fetch
    const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS, fetcher: withFakeDns(hang), sleep: async () => undefined })
    const err = await guarded('https://hang.example/', { timeoutMs: 50, retries: 1, service: 'Hang' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as UpstreamError).kind).toBe('timeout')
    expect((err as UpstreamError).message).toBe('Hang (hang.example) timed out after 50 ms')
  })
})

/** What workerd's fetch throws when the network fails (as measured against a real workerd). */
const NETWORK_FAILURES: [string, () => Error, RegExp][] = [
  ['a refused connection', () => Object.assign(new Error('Network connection lost.'), { retryable: true }), /the connection was refused or dropped/],
  [
    'a failed lookup, handshake or disallowed address',
    () => new Error('internal error; reference = 3vdsjac1e6eqi9k9dcedk779'),
    /the DNS lookup, connection or TLS handshake failed \(runtime error reference 3vdsjac1e6eqi9k9dcedk779\)/,
  ],
  ['a fetch TypeError', () => new TypeError('Fetch API cannot load: bad request'), /Fetch API cannot load/],
]

describe('network failures say what failed', () => {
  const calls: [string, string, Record<string, unknown>][] = [
    ['YouTube', 'get_video_transcript', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' }],
    ['HubSpot', 'crm.v2.lookup_object', { object_type: 'contacts', object_id: '42' }],
    ['Bluesky PDS', 'post_to_social', { username: 'alice.example.com', password: 'abcd-efgh-ijkl-mnop', content: 'network failure' }],
  ]
  it.each(NETWORK_FAILURES.flatMap(([what, error, says]) => calls.map((c) => [what, ...c, error, says] as const)))(
    '%s from %s reads as an upstream failure naming the host and the failure (%s)',
    async (_what, service, name, body, error, says) => {
      const { token } = await newCaller('network-failure')
      if (name === 'crm.v2.lookup_object') {
        expect((await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: 'pat-na1-00000000-network', verify: false } })).status).toBe(200)
      }
      const warnings: string[] = []
      vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warnings.push(String(line)))
      mockFetch(() => {
        throw error()
      })
      const res = await action(name, body, token)
      expect(res.status, JSON.stringify(res.body)).toBe(502)
      expect(res.body.code).toBe('UPSTREAM_FAILED')
      expect(res.body.error).toMatch(new RegExp(`^Could not reach ${service} \\(`))
      expect(res.body.error).toMatch(says)
      expect(res.body.error).not.toMatch(/^Internal|: internal error/)
      // The raw error and its stack stay in the log.
      const logged = warnings.map((w) => JSON.parse(w) as Json).find((l) => l.msg === 'outbound request failed')
      expect(logged?.stack).toBeTruthy()
    },
  )

  it('answers an upstream failure, not a 500, when an upstream redirects to a URL that does not parse', async () => {
    const { token } = await newCaller('bad-location')
    mockFetch((req) => (new URL(req.url).hostname === 'www.youtube.com' ? new Response(null, { status: 302, headers: { location: 'http://[::1' } }) : null))
    const res = await action('get_video_transcript', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(502)
    expect(res.body.code).toBe('UPSTREAM_FAILED')
    expect(res.body.error).toMatch(/redirected to an invalid URL/)
  })

  it('says the DNS lookup failed when the resolver cannot be reached', async () => {
    const { env } = await import('cloudflare:test')
    const target = env as unknown as Record<string, string | undefined>
    const saved = target.OUTBOUND_DOH_URL
    target.OUTBOUND_DOH_URL = 'https://unreachable-resolver.test/dns-query'
    try {
      const { token } = await newCaller('dns-failure')
      mockFetch(() => {
        throw new Error('internal error; reference = flgvsn8c7f544m30m8129uqd')
      })
      const res = await action('get_video_transcript', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' }, token)
      expect(res.status).toBe(502)
      expect(res.body.error).toMatch(/^DNS lookup for www\.youtube\.com failed: the resolver could not be reached: /)
      expect(res.body.error).toContain('OUTBOUND_DOH_URL')
    } finally {
      target.OUTBOUND_DOH_URL = saved
    }
  })
})
