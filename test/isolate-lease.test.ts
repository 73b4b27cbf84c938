import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { offlineEncoder } from '../src/agents/encoder'
import { IsolateOnce } from '../src/lib/isolate-lease'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const never = <T>() => new Promise<T>(() => {})
const PENDING = Symbol('pending')
/** What a promise has come to by `ms` from now. */
const settledBy = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    sleep(ms).then((): typeof PENDING => PENDING),
  ])

type Caller = { behaviour: 'ok' | 'fail' | 'hang'; startMs: number; workMs: number }

describe('a value made once per isolate', () => {
  it('never leaves a caller waiting on another caller that stopped, hands out one value, and runs one live make at a time', async () => {
    const caller = fc.record({ behaviour: fc.constantFrom('ok', 'fail', 'hang'), startMs: fc.integer({ min: 0, max: 30 }), workMs: fc.integer({ min: 0, max: 8 }) }) as fc.Arbitrary<Caller>
    await fc.assert(
      fc.asyncProperty(fc.array(caller, { minLength: 1, maxLength: 6 }), async (callers) => {
        const once = new IsolateOnce<{ by: number }>({ staleMs: 40, pollMs: 2 })
        const made = new Set<number>()
        let live = 0
        let mostLive = 0
        const outcomes = callers.map(async ({ behaviour, startMs, workMs }, i) => {
          await sleep(startMs)
          return once.get(async (beat) => {
            made.add(i)
            // A caller whose request ended: its make neither settles nor beats again.
            if (behaviour === 'hang') return never()
            mostLive = Math.max(mostLive, ++live)
            try {
              await sleep(workMs)
              beat()
              await sleep(workMs)
              if (behaviour === 'fail') throw new Error(`make ${i} failed`)
              return { by: i }
            } finally {
              live--
            }
          })
        })
        const results = await Promise.all(outcomes.map((p) => settledBy(p, 40 * callers.length + 150)))
        const values = new Set<unknown>()
        results.forEach((r, i) => {
          if (r === PENDING) {
            // Only a caller whose own make stopped is still waiting.
            expect(callers[i].behaviour).toBe('hang')
            expect(made.has(i)).toBe(true)
          } else if ('error' in r) {
            expect((r.error as Error).message).toBe(`make ${i} failed`)
          } else values.add(r.value)
        })
        expect(values.size).toBeLessThanOrEqual(1)
        expect(mostLive).toBeLessThanOrEqual(1)
      }),
      { numRuns: 25 },
    )
  })

  it('hands a value made by a holder taken for gone, once it ends after all, to discard and keeps the first', async () => {
    const discarded: string[] = []
    const once = new IsolateOnce<string>({ staleMs: 10, pollMs: 2 }, (extra) => discarded.push(extra))
    const slow = once.get(async () => (await sleep(60), 'slow'))
    await sleep(5)
    const quick = once.get(async () => 'quick')
    expect(await quick).toBe('quick')
    expect(await slow).toBe('quick')
    expect(discarded).toEqual(['slow'])
  })
})

describe('the offline encoder of an isolate', () => {
  it('is loaded by the next search when the request loading it ended mid-load, without waiting on it', async () => {
    const assets = (path: string) => env.ASSETS!.fetch(new Request(`https://assets.invalid/${path}`))
    // The first request's asset reads never finish: its request was cancelled while they were in flight.
    const stopped = offlineEncoder(() => never())
    void stopped.embed(['a request whose client went away'])
    const next = await settledBy(offlineEncoder(assets).embed(['get the transcript of a youtube video']), 20_000)
    expect(next).not.toBe(PENDING)
    const [vector] = (next as { value: Float32Array[] }).value
    expect(vector[0]).toBeCloseTo(0.040693, 5)
  }, 30_000)
})
