import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, json, mockFetch, newCaller, request } from '../helpers'
import { sectionsOffExcept } from '../research/fakes'
import { deliverFailingRun } from '../queue-delivery'
import { expectFieldEnvelope } from './envelope'

const newsOnly = sectionsOffExcept('news')

/** Text JSON allows but some built-ins throw on: lone surrogates, among characters URLs care about. */
const loneText = (units = ['\ud800', '\udfff', 'a', '%', '\n', 'é']) => fc.string({ unit: fc.constantFrom(...units), minLength: 1, maxLength: 8 })
/** A word (no whitespace, which an address may not hold) with at least one lone surrogate. */
const loneWord = loneText(['\ud800', '\udfff', 'a', '%', 'é']).filter((s) => !s.isWellFormed())

async function hubspotCaller(): Promise<string> {
  const { token } = await newCaller()
  mockFetch(() => json({ results: [] }))
  const res = await request('PUT', '/v1/integrations/crm', { token, body: { provider: 'hubspot', access_token: 'pat-na1-00000000-throws', verify: false } })
  expect(res.status).toBe(200)
  return token
}

describe('CRM: text a URL cannot carry', () => {
  it('answers an email with a lone surrogate with a 400 naming the field', async () => {
    const token = await hubspotCaller()
    await fc.assert(
      fc.asyncProperty(loneWord, fc.boolean(), async (local, lookup) => {
        mockFetch(() => json({ results: [] }))
        const email = `${local}x@example.com`
        const res = lookup
          ? await action('crm.v2.lookup_object', { object_type: 'contacts', object_id: email }, token)
          : await action('crm.v2.update_object', { object_type: 'contacts', identifier_value: email, identification_method: 'Email Address (Contacts only)', properties: '{"firstname":"Ada"}' }, token)
        expectFieldEnvelope(res, ['/object_id', '/identifier_value'])
        expect(res.status).toBe(400)
      }),
      { numRuns: 20 },
    )
  })
})

describe('post_to_social: a PDS answer a URL cannot carry', () => {
  it('still answers 200 for a post that was made when the handle or record key holds a lone surrogate', async () => {
    const { token } = await newCaller()
    await fc.assert(
      fc.asyncProperty(loneText(), loneText(), async (handle, rkey) => {
        fc.pre(!handle.isWellFormed() || !rkey.isWellFormed())
        const did = 'did:plc:aliceaaaaaaaaaaaaaaaaaaa'
        mockFetch((req) => {
          const path = new URL(req.url).pathname
          if (path.endsWith('/com.atproto.server.createSession')) return json({ did, handle, accessJwt: 'access.jwt.x', refreshJwt: 'refresh.jwt.x' })
          if (path.endsWith('/com.atproto.repo.createRecord')) return json({ uri: `at://${did}/app.bsky.feed.post/${rkey}`, cid: 'bafyreiabc' })
          if (path.endsWith('/com.atproto.server.deleteSession')) return new Response(null, { status: 200 })
          return new Response('not found', { status: 404 })
        })
        const res = await action('post_to_social', { username: 'alice@example.com', password: 'alic-e4pp-pass-w0rd', content: 'hello' }, token)
        expectFieldEnvelope(res, [])
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(res.body.response.uri).toBe(`at://${did}/app.bsky.feed.post/${rkey}`)
        expect(res.body.response.url).toBeNull()
      }),
      { numRuns: 20 },
    )
  })
})

describe('company research: a company name that is not valid text', () => {
  it('still searches the news for a name with a lone surrogate (from the JSON-LD of the homepage)', async () => {
    await fc.assert(
      fc.asyncProperty(
        loneText().filter((s) => !s.isWellFormed()),
        async (name) => {
          const { token } = await newCaller()
          const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Organization', name: `Acme ${name}` })
          const seen = mockFetch((req) => {
            if (new URL(req.url).hostname === 'api.gdeltproject.org') return json({ articles: [] })
            return new Response(`<!doctype html><html><head><title>Acme</title><script type="application/ld+json">${ld}</script></head><body>Hi</body></html>`, {
              headers: { 'content-type': 'text/html; charset=utf-8' },
            })
          })
          const res = await action('company_research_v2_run_full_research', { domain: 'acme.example', ...newsOnly }, token)
          expect(res.status, JSON.stringify(res.body)).toBe(200)
          const news = res.body.response.sections.news
          expect(news.status, news.note).not.toBe('error')
          const gdelt = seen.filter((r) => new URL(r.url).hostname === 'api.gdeltproject.org')
          expect(gdelt.map((r) => new URL(r.url).searchParams.get('query'))).toEqual([`"${`Acme ${name}`.trim().toWellFormed()}"`])
        },
      ),
      { numRuns: 8 },
    )
  })
})

/** Built-ins that throw on data: each throw is the same on every delivery. */
const THROWS: [string, () => unknown][] = [
  ['encodeURIComponent', () => encodeURIComponent('\ud800')],
  ['decodeURIComponent', () => decodeURIComponent('%E0')],
  ['toISOString', () => new Date(8.64e15 + 1).toISOString()],
  ['repeat', () => 'x'.repeat(-1)],
  ['normalize', () => 'x'.normalize('NFX')],
  ['JSON.parse', () => JSON.parse('{')],
  // Built at run time: the lint refuses a literal pattern that cannot compile.
  ['RegExp', () => new RegExp(['('].join(''))],
  ['BigInt', () => BigInt('1.5')],
  ['toFixed', () => (1).toFixed(101)],
]

describe('queued runs: a built-in that throws on data', () => {
  it('fails the run at its first delivery instead of retrying what fails the same way every time', async () => {
    const { accountId, token } = await newCaller()
    let n = 0
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...THROWS), async ([, thrower]) => {
        const runId = `run_throws${String(n++).padStart(14, '0')}`
        const { result, deliveries } = await deliverFailingRun(thrower, accountId, runId)
        expect(result.retryMessages).toEqual([])
        expect(result.explicitAcks).toEqual(['m1'])
        expect(deliveries).toBe(1)
        const run = (await request('GET', `/v1/runs/${runId}`, { token })).body.response
        expect(run).toMatchObject({ state: 'failed', attempts: 1, error: { status: 500, code: 'INTERNAL' } })
      }),
      { numRuns: 20 },
    )
  })
})
