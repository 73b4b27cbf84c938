import { describe, expect, it } from 'vitest'
import { assertPublicUrl } from '../src/providers/web/address'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { UnsafeUrlError } from '../src/providers/errors'
import { HOSTILE_URLS } from './ssrf-targets'

describe('SSRF guard', () => {
  it.each(HOSTILE_URLS)('refuses %s', (url) => {
    expect(() => assertPublicUrl(url, false)).toThrow(UnsafeUrlError)
  })

  it.each(['https://example.com/', 'http://93.184.215.14/', 'https://[2606:4700::6810:84e5]/', 'https://sub.example.co.uk:8443/path?q=1'])('allows %s', (url) => {
    expect(assertPublicUrl(url, false).toString()).toBeTruthy()
  })

  it.each(HOSTILE_URLS.filter((u) => u.startsWith('http') && !u.includes('@')))('refuses a redirect to %s', async (target) => {
    const requested: string[] = []
    const fetcher = (async (input: RequestInfo | URL) => {
      requested.push(String(input))
      return new Response(null, { status: 302, headers: { location: target } })
    }) as typeof fetch
    const guarded = createGuardedFetch({ userAgent: 'test', allowPrivate: false, fetcher, sleep: async () => undefined })
    await expect(guarded('https://example.com/start')).rejects.toBeInstanceOf(UnsafeUrlError)
    expect(requested).toEqual(['https://example.com/start'])
  })
})
