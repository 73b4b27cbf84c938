import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller } from '../helpers'
import { expectFieldEnvelope } from './envelope'
import { UpstreamError } from '../../src/providers/errors'
import { timedTextUrl } from '../../src/providers/youtube/transform'
import { VIDEO_ID, yt } from '../youtube/fixtures'

const ID = /^[A-Za-z0-9_-]{11}$/

/** Cookie names and values of a Cookie header. */
function cookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>()
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=')
    if (eq > 0) out.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
  return out
}

describe('get_video_transcript: outbound request shapes', () => {
  it('sends only the parsed video id, to the watch page of www.youtube.com, whatever url the caller gives', async () => {
    const { token } = await newCaller()
    const urls = fc.oneof(
      fc.constantFrom(
        `https://www.youtube.com/watch?v=${VIDEO_ID}&v=..%2Fapi`,
        `https://www.youtube.com/watch?v=${VIDEO_ID}%26x%3D1`,
        `https://youtu.be/${VIDEO_ID}%2F..%2Fapi`,
        `https://youtu.be/..%2F..%2Fapi%3Fx`,
        `https://www.youtube.com@evil.example/watch?v=${VIDEO_ID}`,
        `https://evil.example\\@www.youtube.com/watch?v=${VIDEO_ID}`,
        `https://www.youtube.com／watch?v=${VIDEO_ID}`,
        `https://www．youtube．com/watch?v=${VIDEO_ID}`,
        `https://www.youtube.com/embed/${VIDEO_ID}#/../api`,
        `https://youtu.be/${VIDEO_ID}\r\nx-injected: 1`,
        `https://youtu.be/{{x}}`,
      ),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.string({ maxLength: 20 }).map((s) => `https://youtu.be/${s}`),
      fc.string({ maxLength: 20 }).map((s) => `https://www.youtube.com/watch?v=${s}`),
    )
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const seen = mockFetch(() => new Response('not found', { status: 404 }))
        const res = await action('get_video_transcript', { url }, token)
        expectFieldEnvelope(res, ['/url'])
        for (const r of seen) {
          const u = new URL(r.url)
          expect(u.origin).toBe('https://www.youtube.com')
          expect(u.pathname).toBe('/watch')
          expect([...u.searchParams.keys()]).toEqual(['v'])
          expect(u.searchParams.get('v')).toMatch(ID)
          expect(r.headers.get('x-injected')).toBeNull()
        }
      }),
      { numRuns: 60 },
    )
  })

  it('sends the consent token of the page as the one CONSENT cookie, or gives up with an upstream error', async () => {
    const { token } = await newCaller()
    const tokens = fc.oneof(
      fc.constantFrom('cb.20210328-17-p0.de+FX+119', 'x; SID=stolen', 'x\u0000y', 'x€', 'ÿ', 'x, y=z', 'x\\y', ' ', ''),
      fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !s.includes('"') && !/[\r\n]/.test(s)),
    )
    await fc.assert(
      fc.asyncProperty(tokens, async (value) => {
        const consent = yt.consentPage.replace('name="v" value="cb.20210328-17-p0.de+FX+119"', `name="v" value="${value}"`)
        let watch = 0
        const seen = mockFetch((req) => {
          const u = new URL(req.url)
          if (u.origin === 'https://www.youtube.com' && u.pathname === '/watch') return new Response(watch++ === 0 ? consent : yt.watchHtml, { headers: { 'content-type': 'text/html' } })
          return new Response('not found', { status: 404 })
        })
        const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
        expect(res.status, JSON.stringify(res.body)).not.toBe(500)
        const second = seen.filter((r) => new URL(r.url).pathname === '/watch')[1]
        if (second) {
          const jar = cookies(second.headers.get('cookie'))
          expect([...jar.keys()]).toEqual(['CONSENT'])
          expect(jar.get('CONSENT')).toBe(`YES+${value}`)
        } else {
          expect(res.status).toBe(502)
        }
      }),
      { numRuns: 50, examples: [['x; SID=stolen'], ['x€'], ['x\u0000y']] },
    )
  })
})

describe('timedTextUrl: the caption URL YouTube lists', () => {
  it('is fetched only over https from /api/timedtext of youtube.com, with the translation as one tlang parameter', () => {
    const track = (baseUrl: string) => ({ baseUrl, languageCode: 'en', name: 'English', generated: false, translatable: true })
    const baseUrl = fc.oneof(
      fc.constantFrom(
        'https://www.youtube.com/api/timedtext?v=x&signature=s',
        '/api/timedtext?v=x',
        'http://www.youtube.com/api/timedtext?v=x',
        'https://user:pw@www.youtube.com/api/timedtext?v=x',
        'https://www.youtube.com/youtubei/v1/player?key=k',
        'https://www.youtube.com/api/timedtext/../../logout',
        '//www.youtube.com/api/%2e%2e/x',
        'https://www.youtube.com:8443/api/timedtext',
        'https://evil.example/api/timedtext',
        'https://www.youtube.com.evil.example/api/timedtext',
      ),
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => `https://www.youtube.com/api/timedtext${s}`),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
    )
    const lang = fc.oneof(
      fc.constant(null),
      fc.string({ unit: 'grapheme', maxLength: 10 }).map((languageCode) => ({ languageCode, name: languageCode })),
    )
    fc.assert(
      fc.property(baseUrl, lang, (base, translateTo) => {
        let out: string
        try {
          out = timedTextUrl({ track: track(base), translateTo }, VIDEO_ID)
        } catch (err) {
          expect(err).toBeInstanceOf(UpstreamError)
          return
        }
        const url = new URL(out)
        expect(url.protocol).toBe('https:')
        expect(['www.youtube.com', 'youtube.com']).toContain(url.host)
        expect(url.username + url.password).toBe('')
        expect(url.pathname).toBe('/api/timedtext')
        if (translateTo) expect(url.searchParams.getAll('tlang')).toEqual([translateTo.languageCode])
      }),
      { numRuns: 300 },
    )
  })
})
