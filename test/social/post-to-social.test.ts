import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request, type FetchHandler } from '../helpers'
import { PNG, sitePages } from './card-site'
import { alice, BSKY_HOST, carol, dave, ENTRYWAY, erin, facetText, FakeAtproto } from './fake-pds'

/** The fake network, plus every outbound request written out (method, URL, headers, body) as it is made. */
function network() {
  const pds = new FakeAtproto()
  const wire: string[] = []
  const record: FetchHandler = async (req) => {
    wire.push(`${req.method} ${req.url} ${[...req.headers].map(([k, v]) => `${k}:${v}`).join(' ')} ${await req.text()}`)
    return null
  }
  const seen = mockFetch(record, pds.handle, sitePages)
  return { pds, seen, wire }
}

describe('post_to_social', () => {
  it('posts with mention, link and hashtag facets, a link card and the post address', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const content = 'Shipped 2.0 🚀 notes: https://example.com/notes. Thanks @bob.bsky.social! #release'
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content }, token)
    expect(res.status).toBe(200)
    const out = res.body.response
    expect(out).toMatchObject({ dry_run: false, did: alice.did, handle: alice.handle, unresolved_mentions: [] })
    expect(out.uri).toMatch(/^at:\/\/did:plc:alice[a-z]+\/app\.bsky\.feed\.post\/3l\d+$/)
    expect(out.cid).toMatch(/^bafyrei/)
    expect(out.url).toBe(`https://bsky.app/profile/alice.bsky.social/post/${out.uri.split('/').pop()}`)

    expect(pds.records).toHaveLength(1)
    const stored = pds.records[0]
    expect(stored).toMatchObject({ pds: BSKY_HOST, did: alice.did })
    const record = stored.record as { text: string; facets: { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[]; embed: Record<string, unknown> }
    expect(record.text).toBe(content)
    expect(record.facets.map((f) => [facetText(content, f.index), f.features[0]])).toEqual([
      ['https://example.com/notes', { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/notes' }],
      ['@bob.bsky.social', { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bobbbbbbbbbbbbbbbbbbbbbb' }],
      ['#release', { $type: 'app.bsky.richtext.facet#tag', tag: 'release' }],
    ])
    expect(record.embed).toEqual({
      $type: 'app.bsky.embed.external',
      external: {
        uri: 'https://example.com/notes',
        title: 'Release notes & more',
        description: 'Everything new in 2.0',
        thumb: { $type: 'blob', ref: { $link: expect.stringMatching(/^bafkrei/) }, mimeType: 'image/png', size: PNG.byteLength },
      },
    })
    expect(out.link_card).toEqual({
      uri: 'https://example.com/notes',
      title: 'Release notes & more',
      description: 'Everything new in 2.0',
      image: 'https://example.com/card.png',
      thumb_uploaded: true,
    })
    expect(pds.loggedOut).toEqual([alice.did])
  })

  it('logs in by email at the entryway and posts at the PDS its DID document names', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const res = await action('post_to_social', { username: alice.email, password: alice.password, content: 'hello from email login' }, token)
    expect(res.status).toBe(200)
    expect(pds.logins).toEqual([{ host: ENTRYWAY, identifier: alice.email }])
    expect(pds.records[0].pds).toBe(BSKY_HOST)
    expect(res.body.response.handle).toBe(alice.handle)
  })

  it('finds a self-hosted PDS through the DNS TXT record and the PLC directory', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const res = await action('post_to_social', { username: `@${carol.handle}`, password: carol.password, content: 'self-hosted hello' }, token)
    expect(res.status).toBe(200)
    expect(pds.logins).toEqual([{ host: carol.pds, identifier: carol.handle }])
    expect(pds.records[0]).toMatchObject({ pds: carol.pds, did: carol.did })
  })

  it('finds a did:web account through the well-known files', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const res = await action('post_to_social', { username: dave.handle, password: dave.password, content: 'did:web hello' }, token)
    expect(res.status).toBe(200)
    expect(pds.records[0]).toMatchObject({ pds: dave.pds, did: dave.did })
    expect(res.body.response.url).toContain('/profile/dave.example.net/post/')
  })

  it('posts emoji-heavy text with byte offsets the PDS accepts', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const content = `${'👩‍👩‍👧‍👦'.repeat(40)} 🎉 #パーティー with @bob.bsky.social 🇩🇪 ${'😀'.repeat(200)}`
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content }, token)
    expect(res.status).toBe(200)
    expect(res.body.response.graphemes).toBe(40 + 1 + 1 + 1 + 6 + 1 + 4 + 1 + 16 + 1 + 1 + 1 + 200)
    const record = pds.records[0].record as { facets: { index: { byteStart: number; byteEnd: number } }[] }
    expect(record.facets.map((f) => facetText(content, f.index))).toEqual(['#パーティー', '@bob.bsky.social'])
  })

  it.each([
    ['a'.repeat(301), 'content is 301 characters (graphemes) long; a post allows at most 300'],
    ['👩‍👩‍👧‍👦'.repeat(121), 'content is 3025 bytes of UTF-8; a post allows at most 3000'],
  ])('answers 400 naming the limit and the count (%#)', async (content, message) => {
    const { token } = await newCaller()
    const { seen } = network()
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content }, token)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ status: 400, response: null, code: 'VALIDATION_FAILED' })
    expect(res.body.error).toContain(message)
    expect(res.body.details[0].path).toBe('/content')
    expect(seen).toHaveLength(0)
  })

  it('answers wrong credentials with a clear 422 that echoes neither username nor password', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const wrong = 'wrong-pass-Zq81'
    const res = await action('post_to_social', { username: alice.handle, password: wrong, content: 'hi' }, token)
    expect(res.status).toBe(422)
    expect(res.body.code).toBe('UNPROCESSABLE')
    expect(res.body.error).toContain('rejected the username or password')
    expect(res.body.error).toContain('app password')
    expect(JSON.stringify(res.body)).not.toContain(wrong)
    expect(JSON.stringify(res.body)).not.toContain(alice.handle)
    expect(pds.records).toHaveLength(0)
  })

  it('explains that an account with emailed sign-in codes needs an app password', async () => {
    const { token } = await newCaller()
    network()
    const res = await action('post_to_social', { username: erin.handle, password: erin.password, content: 'hi' }, token)
    expect(res.status).toBe(422)
    expect(res.body.error).toContain('app password')
  })

  it('maps a rate-limited login to 429 with Retry-After', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    pds.rateLimitLogin = true
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'hi' }, token)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(250)
  })

  it('maps a PDS server error to 502 and still logs out', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    pds.createRecordStatus = 500
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'hi' }, token)
    expect(res.status).toBe(502)
    expect(res.body.code).toBe('UPSTREAM_FAILED')
    expect(pds.loggedOut).toEqual([alice.did])
  })

  it('never stores, returns or forwards the password beyond the login request', async () => {
    const { token } = await newCaller()
    const { wire } = network()
    const headers = { 'workflow-id': 'wf-social-1' }
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'secret test', output_variable_name: 'my_post' }, token, headers)
    expect(res.status).toBe(200)
    expect(JSON.stringify(res.body)).not.toContain(alice.password)

    const run = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token })
    expect(run.status).toBe(200)
    expect(run.body.response.input.password).toBe('[redacted]')
    expect(JSON.stringify(run.body)).not.toContain(alice.password)

    const variable = await action('get_variable', { name: 'my_post' }, token, headers)
    expect(variable.status).toBe(200)
    expect(variable.body.response.value.uri).toBe(res.body.response.uri)
    expect(JSON.stringify(variable.body)).not.toContain(alice.password)

    const carrying = wire.filter((b) => b.includes(alice.password))
    expect(carrying).toHaveLength(1)
    expect(carrying[0]).toContain('/xrpc/com.atproto.server.createSession')

    const failed = await action('post_to_social', { username: alice.handle, password: 'Wr0ng-Secret-77', content: 'x' }, token)
    const failedRun = await request('GET', `/v1/runs/${failed.headers.get('x-run-id')}`, { token })
    expect(JSON.stringify(failedRun.body)).not.toContain('Wr0ng-Secret-77')
  })

  it('returns the record of a dry run without logging in or posting', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const content = 'Try it: https://example.com/notes #beta @bob.bsky.social @nobody.example.org'
    const res = await action('post_to_social', { username: alice.handle, content, dry_run: true }, token)
    expect(res.status).toBe(200)
    const out = res.body.response
    expect(out).toMatchObject({ dry_run: true, uri: null, cid: null, url: null, unresolved_mentions: ['nobody.example.org'] })
    expect(out.record).toMatchObject({ $type: 'app.bsky.feed.post', text: content })
    expect(out.record.facets).toHaveLength(3)
    expect(out.record.embed.external).toEqual({ uri: 'https://example.com/notes', title: 'Release notes & more', description: 'Everything new in 2.0' })
    expect(pds.logins).toHaveLength(0)
    expect(pds.records).toHaveLength(0)
  })

  it('needs no password for a dry run, absent or empty (as a shell sends an unset $BSKY_APP_PASSWORD)', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    for (const extra of [{}, { password: '' }, { password: 'ignored' }]) {
      const res = await action('post_to_social', { username: alice.handle, content: 'dry', dry_run: true, ...extra }, token)
      expect(res.status).toBe(200)
      expect(res.body.response.dry_run).toBe(true)
    }
    expect(pds.logins).toHaveLength(0)
  })

  it('still requires a non-empty password to post, naming the field before any run starts', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    for (const extra of [{}, { password: '' }, { password: '', dry_run: false }]) {
      const res = await action('post_to_social', { username: alice.handle, content: 'hi', ...extra }, token)
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('VALIDATION_FAILED')
      expect(res.body.details).toEqual([{ path: '/password', message: expect.stringContaining('password is required to post') }])
      expect(res.headers.get('x-run-id')).toBeNull()
    }
    expect(pds.logins).toHaveLength(0)
  })

  it('posts without a card when the first link is not an HTML page', async () => {
    const { token } = await newCaller()
    const { pds } = network()
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'raw: https://example.com/plain' }, token)
    expect(res.status).toBe(200)
    expect(res.body.response.link_card).toBeNull()
    expect(pds.records[0].record.embed).toBeUndefined()
    expect((pds.records[0].record.facets as unknown[]).length).toBe(1)
  })

  it.each([
    [{ username: alice.handle, content: 'no password' }, '/password'],
    [{ username: 'alice', password: 'x', content: 'hi' }, '/username'],
    [{ username: alice.handle, password: 'x', content: '   ' }, '/content'],
    [{ username: alice.handle, password: 'x', content: 'hi', output_variable_name: '1bad' }, '/output_variable_name'],
    [{ username: alice.handle, password: 'x', content: 'hi', dry_run: 'yes' }, '/dry_run'],
    [{ username: alice.handle, password: 'x', content: 'hi', dry_run: 1 }, '/dry_run'],
    [{ username: alice.handle, password: 42, content: 'hi' }, '/password'],
    [{ username: alice.handle, password: 'x', content: ['hi'] }, '/content'],
    [{ username: alice.handle, password: 'x', content: 'hi', extra: 1 }, null],
  ])('answers 400 for a bad request (%#)', async (body, path) => {
    const { token } = await newCaller()
    network()
    const res = await action('post_to_social', body, token)
    expect(res.status).toBe(400)
    if (path) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path)
    expect(JSON.stringify(res.body)).not.toContain(alice.password)
  })
})
