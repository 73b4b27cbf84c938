import { SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { actions } from '../src/actions/registry'
import { ADMIN, mockFetch, newCaller, type Json } from './helpers'

/**
 * Property-based bad input: every generated request is invalid or hostile by construction (an
 * unknown field, a wrong type, broken JSON, a wrong content type, a bad header ...). Every answer
 * must be a 4xx error envelope whose message names the problem; never a 5xx.
 */

const RUNS_PER_TARGET = Math.ceil(10_000 / (actions.length + 8))

const weirdStrings = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\udfff\ud800', '\u202e\u2066', '🦄'.repeat(200), 'a'.repeat(20_000), '\\', '"', "'; DROP TABLE runs; --"),
  fc.constantFrom(
    '{{',
    '}}',
    '{{}}',
    '{{ }}',
    '{{a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff.gg}}',
    '{{__proto__}}',
    '{{constructor.prototype}}',
    '{{x[99999999999]}}',
    '{{{{x}}}}',
    '{{x}}'.repeat(500),
  ),
  fc.webUrl(),
  fc.constantFrom('http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'file:///etc/passwd', 'javascript:alert(1)'),
)

const deepValue = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, weirdStrings, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(weirdStrings, tie('value'), { maxKeys: 4 }),
})).value

/** A body that cannot be valid: known fields with random values, plus one guaranteed fault. */
function invalidBody(fields: string[]) {
  const known = fields.length ? fc.dictionary(fc.constantFrom(...fields), deepValue, { maxKeys: fields.length }) : fc.constant({})
  return fc
    .record({ known, unknown: fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !fields.includes(k) && !k.includes('__proto__')), extra: deepValue })
    .map(({ known, unknown, extra }) => JSON.stringify({ ...known, [`zz_${unknown}`]: extra }))
}

const brokenJson = fc.oneof(
  fc.string({ maxLength: 200 }).filter((s) => {
    try {
      JSON.parse(s)
      return false
    } catch {
      return true
    }
  }),
  fc.constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'nul', '\ufeff{"a":1', '{"a":"\\x"}', '{"a": 1e999999}garbage'),
)

const oddHeaders = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=latin1',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/vnd.api+json',
      '',
    ),
    'workflow-id': fc.oneof(
      fc.string({ maxLength: 300 }).map((s) => s.replace(/[\r\n\0]/g, '')),
      fc.constant('valid-flow'),
    ),
    'idempotency-key': fc.string({ minLength: 0, maxLength: 300 }).map((s) => s.replace(/[\r\n\0]/g, '')),
    prefer: fc.constantFrom('wait=abc', 'wait=-1', 'wait=99999999999', 'respond-async', 'handling=lenient', ''),
    'x-request-id': fc.string({ maxLength: 200 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  },
  { requiredKeys: [] },
)

let token: string
const stats = { requests: 0, fiveHundreds: 0, envelopes: 0 }

beforeAll(async () => {
  token = (await newCaller('fuzz', { perMinute: 1_000_000, perDay: 10_000_000 })).token
})

function safeHeaders(h: Record<string, string>): Headers {
  const out = new Headers()
  for (const [k, v] of Object.entries(h)) {
    try {
      out.set(k, v)
    } catch {
      // a value fetch itself refuses (e.g. non-ByteString) never reaches the Worker
    }
  }
  return out
}

async function send(method: string, path: string, body: string | undefined, headers: Record<string, string>, auth: string | null) {
  const h = safeHeaders(headers)
  if (auth) h.set('authorization', auth)
  const res = await SELF.fetch(`https://api.test${path}`, { method, headers: h, body })
  const text = await res.text()
  stats.requests++
  if (res.status >= 500) stats.fiveHundreds++
  let parsed: Json = null
  try {
    parsed = JSON.parse(text)
  } catch {
    // asserted below
  }
  return { status: res.status, body: parsed, text }
}

function expectEnvelope(r: { status: number; body: Json; text: string }) {
  expect(r.status, r.text.slice(0, 300)).toBeGreaterThanOrEqual(400)
  expect(r.status, r.text.slice(0, 300)).toBeLessThan(500)
  expect(r.body).toMatchObject({ status: r.status, response: null })
  expect(typeof r.body.error).toBe('string')
  expect(r.body.error.length).toBeGreaterThan(5)
  expect(typeof r.body.code).toBe('string')
  stats.envelopes++
}

const shapeOf = (a: (typeof actions)[number]) => Object.keys((a.input as unknown as { shape?: Record<string, unknown> }).shape ?? {})

describe('property-based bad input', () => {
  it.each(actions.map((a) => [a.name, shapeOf(a)] as const))('answers every invalid request to %s with a 4xx envelope', async (name, fields) => {
    // Everything the Worker might try to fetch is answered locally; nothing should be fetched at all.
    const outbound = mockFetch(() => new Response('not here', { status: 404 }))
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          invalidBody(fields).map((b) => ({ body: b, headers: {} as Record<string, string>, auth: `Bearer ${token}` })),
          fc.record({ body: invalidBody(fields), headers: oddHeaders, auth: fc.constant(`Bearer ${token}`) }),
          fc.record({ body: brokenJson, headers: fc.constant({ 'content-type': 'application/json' }), auth: fc.constant(`Bearer ${token}`) }),
          fc.record({
            body: invalidBody(fields),
            headers: fc.constant({ 'content-type': 'application/json' }),
            auth: fc.oneof(
              fc.constant(''),
              fc.string({ maxLength: 80 }).map((s) => `Bearer ${s}`),
            ),
          }),
        ),
        async ({ body, headers, auth }) => {
          const h: Record<string, string> = { 'content-type': 'application/json', ...headers }
          if (h['workflow-id'] === undefined && body.includes('{{')) h['workflow-id'] = 'fuzz-flow'
          const r = await send('POST', `/v1/action/${name}`, body, h, auth || null)
          expectEnvelope(r)
        },
      ),
      { numRuns: RUNS_PER_TARGET, seed: 20261121 },
    )
    expect(outbound).toEqual([])
  })

  const routes: [string, string, string[]][] = [
    ['POST', '/v1/agents', ['name', 'description', 'visibility', 'team_id', 'parameters', 'workflow', 'slug', 'icon']],
    ['POST', '/v1/agents/import', ['agents']],
    ['PATCH', '/v1/agents/acctbrief01', ['name', 'description', 'visibility', 'parameters', 'workflow']],
    ['PUT', '/v1/agents/acctbrief01/review', ['rating']],
    ['PUT', '/v1/grants/acctbrief01', ['integrations']],
    ['POST', '/v1/tokens', ['name', 'expires_at', 'expires_in_days']],
    ['POST', '/v1/admin/accounts', ['name', 'rate_limit_per_minute', 'rate_limit_per_day']],
    ['POST', '/v1/admin/teams', ['name']],
    ['PATCH', '/v1/admin/accounts/acc_nobody', ['rate_limit_per_minute']],
    ['PUT', '/v1/integrations/crm', ['provider', 'access_token', 'token_type', 'verify']],
  ]
  it.each(routes)('answers every invalid %s %s with a 4xx envelope', async (method, path, fields) => {
    const auth = path.startsWith('/v1/admin') ? ADMIN : `Bearer ${token}`
    await fc.assert(
      fc.asyncProperty(fc.oneof(invalidBody(fields), brokenJson), async (body) => {
        expectEnvelope(await send(method, path, body, { 'content-type': 'application/json' }, auth))
      }),
      { numRuns: RUNS_PER_TARGET, seed: 20261121 },
    )
  })

  it('sent at least 10,000 requests with no 5xx', () => {
    console.log(`fuzz: ${stats.requests} requests, ${stats.fiveHundreds} with status 5xx, ${stats.envelopes} error envelopes`)
    expect(stats.requests).toBeGreaterThanOrEqual(10_000)
    expect(stats.fiveHundreds).toBe(0)
    expect(stats.envelopes).toBe(stats.requests)
  })
})
