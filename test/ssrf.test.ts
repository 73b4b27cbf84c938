import { describe, expect, it } from 'vitest'
import { assertPublicUrl } from '../src/providers/web/address'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { UnsafeUrlError } from '../src/providers/errors'

/** Hostile targets: every one must be refused before any request leaves. */
export const HOSTILE_URLS = [
  'http://127.0.0.1/',
  'http://127.1/',
  'http://0.0.0.0/',
  'http://0/',
  'http://2130706433/',
  'http://017700000001/',
  'http://0x7f000001/',
  'http://0x7f.0.0.1/',
  'http://0177.0.0.1/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://api.localhost/',
  'http://printer.local/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://172.31.255.255/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://[::1]/',
  'http://[::]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:7f00:1::]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[ff02::1]/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
  'http://198.18.0.1/',
  'http://user:pass@example.com/',
  'https://token@example.com/',
  'file:///etc/passwd',
  'ftp://example.com/',
  'gopher://127.0.0.1:70/',
  'javascript:alert(1)',
  'data:text/html,hi',
  'http://intranet/',
  'not a url',
]

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
