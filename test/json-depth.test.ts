import { SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { JsonTooDeepError, MAX_JSON_DEPTH, parseJson, shortPointer, tooDeep } from '../src/lib/json-depth'
import { bodyOperations, bodyWith, sendBody, slots, type BodyOperation } from './contract/bodies'
import { action, BASE, mockFetch, newCaller, request, type Json } from './helpers'

/**
 * JSON nested as deep as a body's size allows, wherever JSON comes in. A workflow whose step input
 * nested 20,000 levels made POST /v1/agents answer 500 (the echo's JSON.stringify overflowed the
 * stack): every body now nests at most MAX_JSON_DEPTH levels, and so does an input after its
 * `{{...}}` references are resolved, so no chain of steps or variables can grow it.
 */

/** Levels of arrays and objects in a value, by recursion (values here are shallow enough for it). */
function levels(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return 1 + children.reduce<number>((m, c) => Math.max(m, levels(c)), 0)
}

/** The text of a value nesting `n` levels: arrays, objects or both by turns, a string at the bottom. */
function deepText(n: number, shape: 'array' | 'object' | 'mixed', leaf = '"x"'): string {
  let open = ''
  let close = ''
  for (let i = 0; i < n; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0)
    open += array ? '[' : '{"k":'
    close = (array ? ']' : '}') + close
  }
  return open + leaf + close
}

const shape = fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed')

describe('measuring depth', () => {
  it('finds the first value past the limit, and only such a value, for any JSON (1,000 runs)', () => {
    const wrapped = fc.tuple(fc.jsonValue({ maxDepth: 6 }), fc.array(fc.constantFrom('array', 'object'), { maxLength: 40 }), fc.integer({ min: 0, max: 50 }))
    fc.assert(
      fc.property(wrapped, ([inner, wraps, max]) => {
        let value: unknown = inner
        for (const w of wraps) value = w === 'array' ? [1, value] : { a: 1, b: value }
        const path = tooDeep(value, max)
        expect(path === null).toBe(levels(value) <= max)
        if (path) {
          let at: unknown = value
          for (const key of path) at = (at as Record<string | number, unknown>)[key]
          expect(path.length).toBe(max)
          expect(typeof at === 'object' && at !== null).toBe(true)
        }
      }),
      { numRuns: 1000, seed: 20261129 },
    )
  })

  it('parses JSON of up to the limit as JSON.parse does, and refuses deeper text with a SyntaxError naming where', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), shape, (n, s) => {
        const text = deepText(n, s)
        if (n <= MAX_JSON_DEPTH) expect(parseJson(text)).toEqual(JSON.parse(text))
        else {
          let err: unknown
          try {
            parseJson(text)
          } catch (e) {
            err = e
          }
          expect(err).toBeInstanceOf(SyntaxError)
          expect(err).toBeInstanceOf(JsonTooDeepError)
          expect((err as JsonTooDeepError).path).toHaveLength(MAX_JSON_DEPTH)
        }
      }),
      { numRuns: 300, seed: 20261129 },
    )
    // The most a 1 MiB body holds: half a million levels, measured without recursion.
    expect(() => parseJson(deepText(500_000, 'array', '1'))).toThrow(JsonTooDeepError)
  })

  it('names a path by its first segments', () => {
    expect(shortPointer([])).toBe('/')
    expect(shortPointer(['workflow', 'steps', 0, 'in/put'])).toBe('/workflow/steps/0/in~1put')
    expect(shortPointer(['a', 0, 0, 0, 0, 0, 0, 0, 0, 0])).toBe('/a/0/0/0/0/0/0/0/…')
  })
})

let token: string
let operations: BodyOperation[] = []

beforeAll(async () => {
  token = (await newCaller('deep json', { perMinute: 1_000_000, perDay: 10_000_000 })).token
  operations = await bodyOperations()
})

const send = (method: string, path: string, body: string, admin: boolean) => sendBody({ method, path, admin }, body, token, 'deep-json')

describe('every documented request body', () => {
  it('refuses JSON nested past the limit anywhere in it with a 400 naming where, never a 5xx (every operation, 6 runs each)', async () => {
    mockFetch(() => new Response('not here', { status: 404 }))
    expect(operations.length).toBeGreaterThan(20)
    let sent = 0
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...op.examples).chain((example) => fc.record({ example: fc.constant(example), slot: fc.constantFrom(...slots(example)) })),
          // From just past the limit to about what a 1 MiB body holds.
          fc.oneof(fc.integer({ min: MAX_JSON_DEPTH, max: MAX_JSON_DEPTH + 5 }), fc.integer({ min: 1_000, max: 150_000 })),
          shape,
          async ({ example, slot }, n, s) => {
            const r = await sendBody(op, bodyWith(example, slot, deepText(n, s)), token, 'deep-json')
            sent++
            expect(r.status, `${op.method} ${op.path} ${JSON.stringify(r.body).slice(0, 300)}`).toBe(400)
            // POST /mcp answers a JSON-RPC parse error, every other route the error envelope.
            const message: string = op.path === '/mcp' ? r.body.error.message : r.body.error
            if (op.path === '/mcp') expect(r.body.error.code).toBe(-32700)
            else expect(r.body.code).toBe('INVALID_JSON')
            expect(message).toContain(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`)
            expect(message).toContain(shortPointer(slot).replace('/…', '').slice(0, 40))
          },
        ),
        { numRuns: 6, seed: 20261129 },
      )
    }
    expect((await request('GET', '/v1/me', { token })).status).toBe(200)
    console.log(`json depth: ${sent} requests over ${operations.length} operations, each refused with a 400 naming where`)
  }, 300_000)

  it('keeps a workflow whose step input nests 20,000 levels out with a 400, not a 500 (the reported case)', async () => {
    const body = `{"name":"Deep","description":"d","workflow":{"steps":[{"id":"a","action":"store_variable","input":{"name":"v","value":${deepText(20_000, 'array')}}}]}}`
    const r = await send('POST', '/v1/agents', body, false)
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400)
    expect(r.body.error).toContain('/workflow/steps/0/input/value/0/0/0/…')
  })

  it('takes a body of exactly the limit, stores it and answers it back whole', async () => {
    // The body's object is one level, so its value nests one fewer.
    const value = deepText(MAX_JSON_DEPTH - 1, 'mixed')
    const stored = await send('POST', '/v1/action/store_variable', `{"name":"at_limit","value":${value}}`, false)
    expect(stored.status).toBe(200)
    const read = await action('get_variable', { name: 'at_limit' }, token, { 'workflow-id': 'deep-json' })
    expect(read.body.response.value).toEqual(JSON.parse(value))
    const over = await send('POST', '/v1/action/store_variable', `{"name":"over","value":${deepText(MAX_JSON_DEPTH, 'mixed')}}`, false)
    expect(over.status).toBe(400)
  })
})

describe('inputs after their references are resolved', () => {
  const flow = { 'workflow-id': 'deep-json' }

  it('refuses an input a stored value would nest past the limit, naming the field', async () => {
    expect((await send('POST', '/v1/action/store_variable', `{"name":"x","value":${deepText(100, 'array')}}`, false)).status).toBe(200)
    // 1 (the input) + 1 (value) + 1 (a) + 30 arrays + the 100 levels of x: past 128.
    const text = `{"name":"y","value":{"a":${deepText(30, 'array', '"{{x}}"')}}}`
    const r = await SELF.fetch(`${BASE}/v1/action/store_variable`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...flow }, body: text })
    const body = (await r.json()) as Json
    expect(r.status, JSON.stringify(body).slice(0, 300)).toBe(400)
    expect(body.code).toBe('VALIDATION_FAILED')
    expect(body.error).toContain('/value/a/0/0/0/0/0/0/…')
    expect(body.details[0].message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`)
    // Within the limit the same reference resolves.
    const fits = await action('store_variable', { name: 'y', value: { a: [['{{x}}']] } }, token, flow)
    expect(fits.status).toBe(200)
    expect(levels(fits.body.response.value)).toBe(103)
  })

  it('stops an agent whose steps each nest the last step result deeper: the step that passes the limit fails, nothing crashes', async () => {
    const wrap = (inner: string) => ({ name: 'v', value: JSON.parse(deepText(50, 'object', JSON.stringify(inner))) })
    const steps = [{ id: 's0', action: 'store_variable', input: { name: 'v', value: 'seed' } }]
    for (let i = 1; i < 6; i++) steps.push({ id: `s${i}`, action: 'store_variable', input: wrap(`{{steps.s${i - 1}.value}}`) as never })
    const created = await request('POST', '/v1/agents', { token, body: { name: 'Nesting chain', description: 'Each step nests the last result 50 levels deeper', workflow: { steps } } })
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201)
    const run = await action('invoke_agent', { id: created.body.response.id }, token, flow)
    expect(run.status, JSON.stringify(run.body).slice(0, 300)).toBe(400)
    expect(run.body.code).toBe('VALIDATION_FAILED')
    // s1 nests 52 levels, s2 102; s3 would be 152.
    expect(run.body.error).toContain('/workflow/steps/s3/input/value/k/k/k/…')
  })
})
