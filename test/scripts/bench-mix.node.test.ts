import { afterEach, describe, expect, it, vi } from 'vitest'
import { generator, writeMix } from '../../scripts/lib/bench-catalog.mjs'

/** What `n` requests of a write mix send: agent updates, invocations and the wrapped searches. */
async function sent(n: number, updates?: number): Promise<{ updates: number; invocations: number; searches: number }> {
  const calls: string[] = []
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    calls.push(`${init?.method ?? 'GET'} ${new URL(url).pathname}`)
    return new Response('{}')
  })
  const { rand, phrase } = generator(1)
  const mix = writeMix({ url: 'http://bench.test', headers: {}, ownerHeaders: {}, agents: 1000, rand, phrase, updates })
  let searches = 0
  const request = mix(async () => (searches++, new Response('{}')))
  for (let i = 0; i < n; i++) await request()
  return { updates: calls.filter((c) => c.startsWith('PATCH /v1/agents/bench')).length, invocations: calls.filter((c) => c === 'POST /v1/action/invoke_agent').length, searches }
}

afterEach(() => vi.unstubAllGlobals())

describe("bench:search's write mix", () => {
  it('sends the asked agent updates and ten invocations a hundred requests, searches otherwise', async () => {
    expect(await sent(300)).toEqual({ updates: 3, invocations: 30, searches: 267 })
    expect(await sent(300, 0)).toEqual({ updates: 0, invocations: 30, searches: 270 })
    expect(await sent(200, 5)).toEqual({ updates: 10, invocations: 20, searches: 170 })
  })

  it('refuses a rate that is not a whole number of updates up to 90 a hundred', () => {
    const { rand, phrase } = generator(1)
    for (const updates of [-1, 1.5, 91, Number.NaN]) expect(() => writeMix({ url: 'http://bench.test', headers: {}, ownerHeaders: {}, agents: 1, rand, phrase, updates })).toThrow(/0-90/)
  })
})
