import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_RETRY_AFTER_SECONDS, resetAfterSeconds, retryAfterSeconds } from '../src/providers/web/retry-after'

const NOW = Date.UTC(2026, 10, 29, 12)

describe('upstream Retry-After', () => {
  it('reads whole seconds and HTTP dates as whole seconds from 0 to a day, and anything else as none', () => {
    const value = fc.oneof(
      fc.string(),
      fc.double().map(String),
      fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
      fc.integer({ min: -2e9, max: 2e9 }).map((s) => new Date(NOW + s * 1000).toUTCString()),
      fc.constantFrom('0x10', '1e21', '-5', '1,5', ' 30 ', 'Infinity', 'soon', '12', '2.5'),
    )
    fc.assert(
      fc.property(value, (v) => {
        const got = retryAfterSeconds(v, NOW)
        if (got === undefined) return
        expect(Number.isInteger(got) && got >= 0 && got <= MAX_RETRY_AFTER_SECONDS).toBe(true)
        const t = v.trim()
        if (/^\d+$/.test(t)) expect(got).toBe(Math.min(MAX_RETRY_AFTER_SECONDS, Number(t)))
        else if (/^\d+\.\d+$/.test(t)) expect(got).toBe(Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(Number(t))))
        else expect(t).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/)
      }),
      { numRuns: 3000 },
    )
    expect(['0x10', '1e21', '-5', 'Infinity', 'soon'].map((v) => retryAfterSeconds(v, NOW))).toEqual([undefined, undefined, undefined, undefined, undefined])
    expect([' 30 ', '2.5', '99999999999'].map((v) => retryAfterSeconds(v, NOW))).toEqual([30, 3, MAX_RETRY_AFTER_SECONDS])
    expect(retryAfterSeconds(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90)
    expect(retryAfterSeconds(new Date(NOW - 90_000).toUTCString(), NOW)).toBe(0)
  })

  it('reads a reset time in epoch seconds as a wait from 1 s to a day', () => {
    expect(resetAfterSeconds(String(NOW / 1000 + 300), NOW)).toBe(300)
    expect(resetAfterSeconds('1e300', NOW)).toBeUndefined()
    expect(resetAfterSeconds('99999999999999', NOW)).toBe(MAX_RETRY_AFTER_SECONDS)
    expect(resetAfterSeconds(String(NOW / 1000 - 5), NOW)).toBe(1)
  })
})
