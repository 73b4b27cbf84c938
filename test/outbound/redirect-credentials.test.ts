/**
 * A redirect to another origin never takes the request's credentials along (as the Fetch standard
 * drops Authorization there): a host a key was meant for can send the client anywhere, and the key
 * must not follow. Same-origin redirects keep them, since the host that was trusted still answers.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from '../fake-dns'

const CREDENTIALS: [string, string][] = [
  ['authorization', 'Bearer sk-live-0123456789abcdef'],
  ['proxy-authorization', 'Basic dXNlcjpwYXNzd29yZDEyMw=='],
  ['cookie', 'session=0123456789abcdef'],
  ['x-api-key', 'anthropic-key-0123456789'],
  ['apikey', 'trustpilot-key-0123456789'],
  ['x-cb-user-key', 'crunchbase-key-0123456789'],
  ['x-auth-token', 'proxy-token-0123456789'],
]

const host = fc.constantFrom('api.example', 'other.example', 'cdn.other.example')
const hop = fc.record({ scheme: fc.constantFrom('https', 'http'), host, port: fc.constantFrom('', ':8443'), status: fc.constantFrom(301, 302, 303, 307, 308) })

describe('credentials on redirects', () => {
  it('drops every credential header at the first hop to another origin, and keeps them until then', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hop, { minLength: 1, maxLength: 4 }), fc.subarray(CREDENTIALS, { minLength: 1 }), async (hops, sent) => {
        const seen: { origin: string; headers: Headers }[] = []
        const upstream = async (input: RequestInfo | URL, init?: RequestInit) => {
          const req = new Request(input, init)
          seen.push({ origin: new URL(req.url).origin, headers: new Headers(req.headers) })
          const next = hops[seen.length - 1]
          if (!next) return new Response('ok')
          return new Response(null, { status: next.status, headers: { location: `${next.scheme}://${next.host}${next.port}/hop${seen.length}` } })
        }
        const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS, fetcher: withFakeDns(upstream), sleep: async () => undefined })
        const res = await guarded('https://api.example/start', { service: 'Peer', headers: Object.fromEntries(sent), maxRedirects: 5 })
        await res.body?.cancel()
        expect(seen).toHaveLength(hops.length + 1)
        const first = seen[0].origin
        let left = false
        for (const request of seen) {
          left ||= request.origin !== first
          for (const [name, value] of sent) expect(request.headers.get(name), `${name} at ${request.origin}`).toBe(left ? null : value)
        }
      }),
      { numRuns: 300, examples: [[[{ scheme: 'https', host: 'other.example', port: '', status: 302 }], [CREDENTIALS[0]]]] },
    )
  })
})
