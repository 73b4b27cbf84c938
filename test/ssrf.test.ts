import { describe, expect, it } from 'vitest'
import { UnsafeUrlError, UpstreamError } from '../src/providers/errors'
import { assertPublicUrl } from '../src/providers/web/address'
import { assertPublicDestination } from '../src/providers/web/dns'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { FAILING_NAMES, TEST_DNS, withFakeDns } from './fake-dns'
import { HOSTILE_URLS } from './ssrf-targets'

/** A fetcher that must never be reached: DNS queries go to the fake resolver, anything else is a failure. */
const unreachable = withFakeDns((async (input: RequestInfo | URL) => {
  throw new Error(`fetched ${String(input)}`)
}) as typeof fetch)
const check = { allowPrivate: false, dns: TEST_DNS, fetcher: unreachable }

describe('SSRF guard', () => {
  it('holds more than the original 45 targets', () => {
    expect(HOSTILE_URLS.length).toBeGreaterThan(45)
  })

  it.each(HOSTILE_URLS)('refuses %s', async (url) => {
    await expect(assertPublicDestination(url, check)).rejects.toBeInstanceOf(UnsafeUrlError)
  })

  it.each(['https://example.com/', 'http://93.184.215.14/', 'https://[2606:4700::6810:84e5]/', 'https://sub.example.co.uk:8443/path?q=1'])('allows %s', async (url) => {
    expect((await assertPublicDestination(url, check)).toString()).toBeTruthy()
    expect(assertPublicUrl(url, false).toString()).toBeTruthy()
  })

  it.each(HOSTILE_URLS.filter((u) => u.startsWith('http') && !u.includes('@')))('refuses a redirect to %s', async (target) => {
    const requested: string[] = []
    const fetcher = (async (input: RequestInfo | URL) => {
      requested.push(String(input))
      return new Response(null, { status: 302, headers: { location: target } })
    }) as typeof fetch
    const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS, fetcher: withFakeDns(fetcher), sleep: async () => undefined })
    await expect(guarded('https://example.com/start')).rejects.toBeInstanceOf(UnsafeUrlError)
    expect(requested).toEqual(['https://example.com/start'])
  })

  it.each(Object.keys(FAILING_NAMES))('refuses %s when its lookup fails, saying the DNS lookup failed', async (name) => {
    const requested: string[] = []
    const guarded = createGuardedFetch({
      userAgent: 'test',
      allowPrivate: false,
      dns: TEST_DNS,
      fetcher: withFakeDns((async (input: RequestInfo | URL) => {
        requested.push(String(input))
        return new Response('reached')
      }) as typeof fetch),
    })
    const err = await guarded(`https://${name}/`).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as Error).message).toMatch(new RegExp(`^DNS lookup for ${name.replace(/\./g, '\\.')} failed: `))
    expect(requested).toEqual([])
  })

  it('refuses to fetch unchecked when the resolver cannot be reached, naming the resolver setting', async () => {
    const down = (async () => {
      throw new Error('internal error; reference = 8v2688ilkod4dkre91mq8euv')
    }) as typeof fetch
    const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: { mode: 'doh', url: 'https://down.test/dns-query' }, fetcher: down })
    const err = await guarded('https://www.youtube.com/watch?v=x').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamError)
    expect((err as Error).message).toMatch(/^DNS lookup for www\.youtube\.com failed: the resolver could not be reached: .*OUTBOUND_DOH_URL/)
  })

  it('leaves names to the platform when the check is "platform", and literal addresses are still refused', async () => {
    const requested: string[] = []
    const fetcher = (async (input: RequestInfo | URL) => {
      requested.push(String(input))
      return new Response('ok')
    }) as typeof fetch
    const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: { mode: 'platform', url: TEST_DNS.url }, fetcher })
    expect((await guarded('https://loopback.rebind.test/')).status).toBe(200)
    await expect(guarded('http://127.0.0.1/')).rejects.toBeInstanceOf(UnsafeUrlError)
    expect(requested).toEqual(['https://loopback.rebind.test/'])
  })

  it('says how to allow private targets in local development', async () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://localhost:3000/', 'https://loopback.rebind.test/', 'http://[::1]/']) {
      const err = await assertPublicDestination(url, check, 'website_url').catch((e: unknown) => e)
      expect(err).toBeInstanceOf(UnsafeUrlError)
      expect((err as UnsafeUrlError).field).toBe('website_url')
      expect((err as Error).message).toContain('ALLOW_PRIVATE_FETCH=true')
      expect((err as Error).message).toContain('npm run dev -- --var ALLOW_PRIVATE_FETCH:true')
    }
  })
})
