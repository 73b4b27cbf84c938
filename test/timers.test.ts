import { describe, expect, it } from 'vitest'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from './fake-dns'
import { action, newCaller } from './helpers'

/**
 * How many timers this isolate has running. workerd allows 10,000 at once (AbortSignal.timeout's
 * among them, until they fire) and says so when the rest are taken; the probe takes them and gives
 * them back. The test's Worker shares this isolate, so its timers count here.
 */
function activeTimers(): number {
  const ids: ReturnType<typeof setTimeout>[] = []
  let limit: number | null = null
  try {
    for (let i = 0; i < 20_000; i++) ids.push(setTimeout(() => undefined, 600_000))
  } catch (err) {
    limit = Number(/max active timeouts: (\d+)/.exec((err as Error).message)?.[1])
  } finally {
    ids.forEach((id) => clearTimeout(id))
  }
  if (!limit) throw new Error('the runtime set no limit on timers')
  return limit - ids.length
}

describe('timers of finished work', () => {
  it('leaves no timer running once a call, an outbound request or a DNS lookup has ended', async () => {
    const before = activeTimers()
    // Action calls: each run had a deadline (INLINE_RUN_TIMEOUT_SECONDS, 300 s by default).
    const { token } = await newCaller('timers')
    for (let i = 0; i < 30; i++) expect((await action('search', { query: `timer probe ${i}` }, token)).status).toBe(200)
    // Outbound requests through the guarded client, every way one ends: a body read, a redirect, a
    // retry, a body over the cap, a failure, a body never read but cancelled; each to a new name, so
    // each has its DNS lookups (A and AAAA) too.
    let n = 0
    const fetcher = withFakeDns(async (input) => {
      const url = new URL(String(input))
      if (url.pathname === '/redirect') return new Response(null, { status: 302, headers: { location: '/ok' } })
      if (url.pathname === '/busy' && n++ % 2 === 0) return new Response('busy', { status: 503, headers: { 'retry-after': '0' } })
      if (url.pathname === '/big') return new Response('x'.repeat(2000))
      if (url.pathname === '/down') throw new Error('Network connection lost.')
      return new Response('fine')
    })
    const get = createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS, fetcher, sleep: async () => undefined })
    for (let i = 0; i < 10; i++) {
      for (const path of ['/ok', '/redirect', '/busy']) expect(await (await get(`https://t${i}.timers.example${path}`, { maxBytes: 1000 })).text()).toBe('fine')
      await expect((await get(`https://big${i}.timers.example/big`, { maxBytes: 1000 })).text()).rejects.toThrow('more than 1000 bytes')
      await expect(get(`https://down${i}.timers.example/down`, { retries: 0 })).rejects.toThrow('refused or dropped')
      await (await get(`https://c${i}.timers.example/ok`)).body?.cancel()
    }
    expect(activeTimers() - before).toBeLessThanOrEqual(2)
  })
})
