import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller } from '../helpers'
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
      ),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.string({ maxLength: 20 }).map((s) => `https://youtu.be/${s}`),
      fc.string({ maxLength: 20 }).map((s) => `https://www.youtube.com/watch?v=${s}`),
    )
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const seen = mockFetch(() => new Response('not found', { status: 404 }))
        const res = await action('get_video_transcript', { url }, token)
        expect(res.status, JSON.stringify(res.body)).not.toBe(500)
        if (res.status === 400) expect(res.body.details.map((d: { path: string }) => d.path)).toContain('/url')
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
