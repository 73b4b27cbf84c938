import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, json, mockFetch, newCaller, type SeenRequest } from '../helpers'
import { expectFieldEnvelope } from './envelope'

// Usernames that have tried to steer identity resolution off its endpoints: percent-escapes a did:web
// decodes into "/", "?", "#" or "@", malformed escapes, dot segments, backslashes and full-width forms.
const NASTY = [
  'did:web:%E0',
  'did:web:%',
  'did:web:evil.example%2Fadmin%3Fx%3D',
  'did:web:evil.example%23frag',
  'did:web:user%40evil.example',
  'did:web:evil.example%5Cx',
  'did:web:evil.example%3A8443',
  'did:web:evil.example:user:alice',
  'did:web:..',
  'did:plc:..',
  'did:plc:%2e%2e',
  'did:plc:abc%2F..%2Fexport',
  'did:plc:abc%3Fa%3Db',
  '@alice.bsky.social',
  'alice.bsky.social/../admin',
  'a?b@c.example',
  'a#b@c.example',
  'ａｌｉｃｅ．bsky．social',
  'alice\u3002bsky\u3002social',
  'alice.bsky.social\r\nx-injected: 1',
  'did:web:a\u0000b',
]

/** Everything answers "not here": identity resolution fails and the login is refused, so only the request shapes matter. */
function refuseAll(req: Request): Response {
  const url = new URL(req.url)
  if (url.pathname === '/xrpc/com.atproto.server.createSession') return json({ error: 'AuthenticationRequired', message: 'Invalid identifier or password' }, 401)
  return new Response('not found', { status: 404 })
}

/** The only requests a login may make, each with the username in its one intended place. */
function checkShape(r: SeenRequest, username: string): void {
  const url = new URL(r.url)
  const text = username.trim()
  expect(url.hash).toBe('')
  expect(url.username + url.password).toBe('')
  if (url.origin === 'https://bsky.social' && url.pathname === '/xrpc/com.atproto.identity.resolveHandle') {
    expect([...url.searchParams.keys()]).toEqual(['handle'])
    expect(url.searchParams.get('handle')).toBe(text.replace(/^@/, '').toLowerCase())
  } else if (url.origin === 'https://bsky.social' && url.pathname === '/xrpc/com.atproto.server.createSession') {
    expect(url.search).toBe('')
    expect(Object.keys(JSON.parse(r.body))).toEqual(['identifier', 'password'])
  } else if (url.origin === 'https://cloudflare-dns.com' && url.pathname === '/dns-query') {
    expect([...url.searchParams.keys()]).toEqual(['name', 'type'])
    expect(url.searchParams.get('name')).toBe(`_atproto.${text.replace(/^@/, '').toLowerCase()}`)
  } else if (url.origin === 'https://plc.directory') {
    const segments = url.pathname.split('/').slice(1)
    expect(segments).toHaveLength(1)
    expect(url.search).toBe('')
    expect(decodeURIComponent(segments[0])).toBe(text)
  } else if (url.pathname === '/.well-known/did.json') {
    expect(url.search).toBe('')
    expect(text.startsWith('did:web:')).toBe(true)
    expect(url.host).toBe(text.slice('did:web:'.length).replace(/%3A/i, ':').toLowerCase())
  } else if (url.pathname === '/.well-known/atproto-did') {
    expect(url.search).toBe('')
    expect(url.hostname).toBe(text.replace(/^@/, '').toLowerCase())
  } else {
    throw new Error(`unexpected outbound request ${r.method} ${r.url}`)
  }
}

describe('post_to_social: the username shapes only its own place in the login requests', () => {
  it('keeps every identity and login request on its endpoint, and never answers 500', async () => {
    const { token } = await newCaller()
    const usernames = fc.oneof(
      fc.constantFrom(...NASTY),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ maxLength: 30 }).map((s) => `did:web:${s}`),
      fc.string({ maxLength: 30 }).map((s) => `did:plc:${s}`),
    )
    await fc.assert(
      fc.asyncProperty(usernames, async (username) => {
        const seen = mockFetch(refuseAll)
        const res = await action('post_to_social', { username, password: 'pw-123456', content: 'hi' }, token)
        for (const r of seen) checkShape(r, username)
        expectFieldEnvelope(res, ['/username'])
      }),
      { numRuns: 60, examples: NASTY.map((n) => [n]) },
    )
  })
})

describe('post_to_social: session tokens the PDS answers', () => {
  it('sends them only as the bearer header they are, and refuses ones no header can carry with an upstream error', async () => {
    const { token } = await newCaller()
    const did = 'did:plc:abcdefghijklmnopqrstuvwx'
    const jwt = fc.oneof(fc.constantFrom('eyJ.a.b\r\nx-injected: 1', 'eyJ.a.b\n', 'eyJ\u0000', 'jwt-€', 'jwt ✓', '', ' ', 'eyJhbGciOi.eyJzdWIi.c2ln'), fc.string({ unit: 'grapheme', maxLength: 30 }))
    await fc.assert(
      fc.asyncProperty(jwt, jwt, async (accessJwt, refreshJwt) => {
        const seen = mockFetch((req) => {
          const path = new URL(req.url).pathname
          if (path === '/xrpc/com.atproto.server.createSession') return json({ did, handle: 'alice.test', accessJwt, refreshJwt })
          if (path === '/xrpc/com.atproto.repo.createRecord') return json({ uri: `at://${did}/app.bsky.feed.post/3l1`, cid: 'bafyreia' })
          if (path === '/xrpc/com.atproto.server.deleteSession') return new Response(null, { status: 200 })
          return new Response('not found', { status: 404 })
        })
        const res = await action('post_to_social', { username: 'alice@example.com', password: 'pw-123456', content: 'hi' }, token)
        expect(res.status, JSON.stringify(res.body)).not.toBe(500)
        expect(res.body.code).not.toBe('INTERNAL')
        for (const r of seen) {
          const url = new URL(r.url)
          expect(url.origin).toBe('https://bsky.social')
          expect(r.headers.get('x-injected')).toBeNull()
          const auth = r.headers.get('authorization')
          if (url.pathname === '/xrpc/com.atproto.repo.createRecord') expect(auth).toBe(`Bearer ${accessJwt}`)
          if (url.pathname === '/xrpc/com.atproto.server.deleteSession') expect(auth).toBe(`Bearer ${refreshJwt}`)
        }
      }),
      { numRuns: 40 },
    )
  })
})

describe('post_to_social: a DID the handle resolves to', () => {
  it('addresses only its own DID document', async () => {
    const { token } = await newCaller()
    const did = fc.oneof(
      fc.constantFrom('did:web:%E0', 'did:web:evil.example%2Fx%3F', 'did:web:a%40evil.example', 'did:plc:abc%2F..%2Fexport', 'did:plc:%2e%2e', 'did:web:pds.example'),
      fc.string({ maxLength: 30 }).map((s) => `did:web:${s}`),
      fc.string({ maxLength: 30 }).map((s) => `did:plc:${s}`),
    )
    await fc.assert(
      fc.asyncProperty(did, async (answer) => {
        const seen = mockFetch((req) => {
          const url = new URL(req.url)
          if (url.pathname === '/xrpc/com.atproto.identity.resolveHandle') return json({ did: answer })
          return refuseAll(req)
        })
        const res = await action('post_to_social', { username: 'alice.bsky.social', password: 'pw-123456', content: 'hi' }, token)
        expect(res.status, JSON.stringify(res.body)).not.toBe(500)
        for (const r of seen) {
          const url = new URL(r.url)
          if (url.origin === 'https://plc.directory') {
            expect(url.pathname.split('/').slice(1).map(decodeURIComponent)).toEqual([answer])
            expect(url.search).toBe('')
          } else if (url.pathname === '/.well-known/did.json') {
            expect(url.search + url.username + url.password).toBe('')
            expect(url.host).toBe(answer.slice('did:web:'.length).replace(/%3A/i, ':').toLowerCase())
          } else {
            // A DID that is no DID sends resolution on to DNS and the handle's well-known file.
            expect(['https://bsky.social', 'https://cloudflare-dns.com', 'https://alice.bsky.social']).toContain(url.origin)
          }
        }
      }),
      { numRuns: 60 },
    )
  })
})
