import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import handlesInvalid from '../fixtures/atproto/interop.handle_syntax_invalid.txt?raw'
import handlesValid from '../fixtures/atproto/interop.handle_syntax_valid.txt?raw'
import { parseIdentifier, pdsEndpoint } from '../../src/providers/atproto/identity'
import { buildFacets, detectSpans, graphemeCount, isValidHandle, limitViolations, utf8Length } from '../../src/providers/atproto/richtext'
import { postWebUrl, retryAfterSeconds, scrub, xrpcError } from '../../src/providers/atproto/transform'
import * as before from '../fixtures/before-redos/richtext'
import { facetText } from './fake-pds'
import { validateLexicon } from './lexicon'

const lines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('#'))

describe('handle syntax', () => {
  it('accepts every valid handle of the interop suite', () => {
    for (const h of lines(handlesValid)) expect(isValidHandle(h), h).toBe(true)
  })
  it('rejects every invalid handle of the interop suite', () => {
    for (const h of lines(handlesInvalid)) expect(isValidHandle(h), JSON.stringify(h)).toBe(false)
  })
  it('classifies usernames as email, DID or handle', () => {
    expect(parseIdentifier('alice@example.com')).toEqual({ kind: 'email', value: 'alice@example.com' })
    expect(parseIdentifier('did:plc:aliceaaaaaaaaaaaaaaaaaaa')).toEqual({ kind: 'did', value: 'did:plc:aliceaaaaaaaaaaaaaaaaaaa' })
    expect(parseIdentifier('@Alice.Bsky.Social')).toEqual({ kind: 'handle', value: 'alice.bsky.social' })
    expect(parseIdentifier('alice')).toBeNull()
    expect(parseIdentifier('not a handle!')).toBeNull()
  })
})

describe('post text limits', () => {
  it('counts emoji sequences as one grapheme each and their UTF-8 bytes', () => {
    expect(graphemeCount('👩‍👩‍👧‍👦')).toBe(1)
    expect(utf8Length('👩‍👩‍👧‍👦')).toBe(25)
    expect(graphemeCount('🇩🇪👍🏽é')).toBe(3)
  })
  it('allows exactly 300 graphemes and names the count past it', () => {
    expect(limitViolations('a'.repeat(300))).toEqual([])
    expect(limitViolations('a'.repeat(301))).toEqual(['content is 301 characters (graphemes) long; a post allows at most 300'])
  })
  it('names the byte limit for text that is short in graphemes but long in bytes', () => {
    const family = '👩‍👩‍👧‍👦'.repeat(121)
    expect(graphemeCount(family)).toBe(121)
    expect(limitViolations(family)).toEqual(['content is 3025 bytes of UTF-8; a post allows at most 3000'])
  })
})

describe('rich text facets', () => {
  const text = '✨ Hi @bob.bsky.social! Read https://example.com/a_(b)?x=1. #release #2024 #日本語 (see @unknown.example)'

  it('finds mentions, links and hashtags with UTF-8 byte offsets', () => {
    const spans = detectSpans(text)
    expect(spans.map((s) => [s.kind, facetText(text, s)])).toEqual([
      ['mention', '@bob.bsky.social'],
      ['link', 'https://example.com/a_(b)?x=1'],
      ['tag', '#release'],
      ['tag', '#日本語'],
      ['mention', '@unknown.example'],
    ])
    expect(spans[0]).toMatchObject({ byteStart: 7, byteEnd: 23 })
  })

  it('builds lexicon-valid facets and leaves unresolved mentions as plain text', () => {
    const facets = buildFacets(detectSpans(text), new Map([['bob.bsky.social', 'did:plc:bobbbbbbbbbbbbbbbbbbbbbb']]))
    expect(facets.map((f) => f.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bobbbbbbbbbbbbbbbbbbbbbb' },
      { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a_(b)?x=1' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'release' },
      { $type: 'app.bsky.richtext.facet#tag', tag: '日本語' },
    ])
    for (const f of facets) expect(validateLexicon('app.bsky.richtext.facet', f)).toEqual([])
  })

  it('does not take emails, mid-word hashes or URL fragments for mentions and tags', () => {
    expect(detectSpans('mail me@example.com or see https://x.example/#frag and c#sharp').map((s) => s.kind)).toEqual(['link'])
  })
})

describe('XRPC error mapping', () => {
  it('never repeats the password the PDS echoed', () => {
    const err = xrpcError('login', 401, { error: 'AuthenticationRequired', message: 'bad password hunter2' }, new Headers(), ['hunter2'])
    expect(err.message).not.toContain('hunter2')
    expect(scrub('a hunter2 b hunter2', ['hunter2'])).toBe('a [redacted] b [redacted]')
  })
  it('reads the rate-limit reset of the PDS', () => {
    expect(retryAfterSeconds(new Headers({ 'ratelimit-reset': '1000300' }), 1_000_000_000)).toBe(300)
    expect(retryAfterSeconds(new Headers({ 'retry-after': '7' }))).toBe(7)
    expect(retryAfterSeconds(new Headers())).toBeUndefined()
  })
  it('builds the bsky.app address of a post and finds the PDS of a DID document', () => {
    expect(postWebUrl('alice.bsky.social', 'at://did:plc:x/app.bsky.feed.post/3l000')).toBe('https://bsky.app/profile/alice.bsky.social/post/3l000')
    expect(pdsEndpoint({ service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: 'https://pds.example.org/' }] })).toBe('https://pds.example.org')
    expect(pdsEndpoint({ service: [{ id: '#other', type: 'X', serviceEndpoint: 'https://x.example' }] })).toBeNull()
  })
  it('never names a PDS the password would reach over plain http, whatever the endpoint text', () => {
    const pds = (serviceEndpoint: string) => pdsEndpoint({ service: [{ id: 'did:web:x#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint }] })
    expect(pds('http://pds.example.org')).toBeNull()
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ validSchemes: ['http', 'https', 'ftp', 'ws'] }), fc.string()), (endpoint) => {
        const found = pds(endpoint)
        expect(found === null || new URL(found).protocol === 'https:').toBe(true)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('rich text and identifiers in linear time', () => {
  it('reads an email identifier as the backtracking pattern did', () => {
    const before = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
    const text = fc.oneof(fc.string({ unit: fc.constantFrom(...'ab@.- '), maxLength: 20 }), fc.emailAddress())
    fc.assert(
      fc.property(text, (t) => {
        expect(parseIdentifier(t)?.kind === 'email').toBe(before.test(t.trim()))
      }),
      { numRuns: 2000 },
    )
    expect(parseIdentifier(`a@${'.'.repeat(100_000)}@`)).toBeNull()
  })

  it('finds the same links, mentions and tags in ordinary posts as before', () => {
    const piece = fc.constantFrom(
      'hi ',
      'see ',
      'https://a.example/x',
      'https://a.example/(y)',
      'http://b.test',
      '.',
      ',',
      '!',
      '?',
      ')',
      '(',
      "'",
      '"',
      '...',
      ' ',
      '\n',
      '@bob.test',
      '@alice.bsky.social',
      '@x-',
      '@y.',
      '#release',
      '#tag!',
      '#1234',
      '#日本',
      '＃wide',
      '#a…',
      'ok',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('')
        expect(detectSpans(text)).toEqual(before.detectSpans(text))
      }),
      { numRuns: 2000 },
    )
  })

  it('returns on long runs of trailing punctuation in a link, a mention and a tag', () => {
    for (const text of [`https://a.b${','.repeat(100_000)}x`, `@a${'.'.repeat(100_000)}x`, `#a${'!'.repeat(100_000)}x`]) expect(Array.isArray(detectSpans(text))).toBe(true)
  })
})
