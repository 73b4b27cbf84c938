import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { action, mockFetch, newCaller, request } from '../helpers'
import { KEY_MOMENTS, TITLE, TRANSCRIPT, VIDEO_ID, yt } from './fixtures'

type Innertube = keyof typeof yt.innertube

interface FakeYouTubeOptions {
  /** Watch page bodies served in order (the last one repeats). */
  pages?: string[]
  watchStatus?: number
  watchHeaders?: Record<string, string>
  innertube?: Innertube
  playerStatus?: number
  timedtextStatus?: number
}

/**
 * A fake www.youtube.com that checks requests the way YouTube's endpoints need them: the watch page
 * by video id, the InnerTube player by API key and ANDROID client body, timedtext by signed URL.
 */
function fakeYouTube(opts: FakeYouTubeOptions = {}) {
  const pages = opts.pages ?? [yt.watchHtml]
  let pageIndex = 0
  const log: { watch: Request[]; player: unknown[]; timedtext: URL[] } = { watch: [], player: [], timedtext: [] }
  const seen = mockFetch(async (req) => {
    const url = new URL(req.url)
    if (url.hostname !== 'www.youtube.com') return null
    if (url.pathname === '/watch' && req.method === 'GET') {
      log.watch.push(req)
      if (opts.watchStatus) return new Response('error page', { status: opts.watchStatus, headers: opts.watchHeaders })
      const body = pages[Math.min(pageIndex++, pages.length - 1)]
      return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', 'set-cookie': 'YSC=abc123; Path=/; Secure' } })
    }
    if (url.pathname === '/youtubei/v1/player' && req.method === 'POST') {
      if (url.searchParams.get('key') !== 'AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8') return new Response('bad key', { status: 400 })
      const body = (await req.json()) as { context: { client: { clientName: string } }; videoId: string }
      log.player.push(body)
      if (body.context?.client?.clientName !== 'ANDROID' || !body.videoId) return new Response('bad body', { status: 400 })
      if (opts.playerStatus) return new Response('player error', { status: opts.playerStatus })
      return new Response(yt.innertube[opts.innertube ?? 'ok'], { headers: { 'content-type': 'application/json' } })
    }
    if (url.pathname === '/api/timedtext' && req.method === 'GET') {
      log.timedtext.push(url)
      if (opts.timedtextStatus) return new Response('', { status: opts.timedtextStatus })
      if (!url.searchParams.get('signature') || url.searchParams.get('fmt') === 'srv3') return new Response('', { status: 403 })
      return new Response(yt.transcriptXml, { headers: { 'content-type': 'text/xml' } })
    }
    return new Response('not found', { status: 404 })
  })
  return { log, seen }
}

describe('get_video_transcript', () => {
  it('returns the title and transcript in response and every metadata field at the top level', async () => {
    const { token } = await newCaller()
    const { log } = fakeYouTube()
    const res = await action('get_video_transcript', { url: `https://www.youtube.com/watch?v=${VIDEO_ID}` }, token)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual(['metadata', 'response', 'status'])
    expect(res.body.status).toBe(200)
    expect(res.body.response).toBe(`${TITLE}\n\n${TRANSCRIPT}`)
    expect(res.body.metadata).toMatchObject({
      author: 'Dave2D',
      category: 'Science & Technology',
      channel_id: 'UCVYamHliCI9rw1tHR1xbkfw',
      channel_link: 'http://www.youtube.com/@Dave2D',
      channel_name: 'Dave2D',
      id: VIDEO_ID,
      key_moments: KEY_MOMENTS,
      length_seconds: 316,
      likes: 43864,
      published_time: 'Aug 2, 2018',
      thumbnail: 'https://i.ytimg.com/vi/GJLlxj_dtq8/maxresdefault.jpg',
      title: TITLE,
      views: 1856109,
      transcript_language: 'en',
      transcript_source: 'manual',
    })
    expect(log.player[0]).toEqual({ context: { client: { clientName: 'ANDROID', clientVersion: '20.10.38' } }, videoId: VIDEO_ID })
    expect(log.timedtext[0].searchParams.get('lang')).toBe('en')
    expect(log.timedtext[0].searchParams.get('kind')).toBeNull()
    expect(log.watch[0].headers.get('accept-language')).toMatch(/^en-US/)
  })

  it.each([
    `https://youtu.be/${VIDEO_ID}?si=share`,
    `https://www.youtube.com/shorts/${VIDEO_ID}`,
    `https://www.youtube.com/embed/${VIDEO_ID}`,
    `https://www.youtube.com/live/${VIDEO_ID}`,
    `https://m.youtube.com/watch?v=${VIDEO_ID}&t=39s`,
  ])('accepts %s', async (url) => {
    const { token } = await newCaller()
    const { log } = fakeYouTube()
    const res = await action('get_video_transcript', { url }, token)
    expect(res.status).toBe(200)
    expect(new URL(log.watch[0].url).searchParams.get('v')).toBe(VIDEO_ID)
  })

  it.each(['https://vimeo.com/76979871', 'https://www.youtube.com/playlist?list=PL0', 'GJLlxj_dtq8', 'https://www.youtube.com/watch?v=abc'])('answers 400 naming the url field for %s', async (url) => {
    const { token } = await newCaller()
    const seen = mockFetch(() => null)
    const res = await action('get_video_transcript', { url }, token)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ status: 400, response: null, code: 'VALIDATION_FAILED' })
    expect(res.body.error).toContain('url')
    expect(res.body.details[0].path).toBe('/url')
    expect(seen.length).toBe(0)
  })

  it('answers 400 for wrong types and a malformed language', async () => {
    const { token } = await newCaller()
    for (const body of [{ url: 42 }, { url: null }, {}, { url: `https://youtu.be/${VIDEO_ID}`, language: 5 }, { url: `https://youtu.be/${VIDEO_ID}`, language: 'english please' }]) {
      const res = await action('get_video_transcript', body, token)
      expect(res.status).toBe(400)
    }
  })

  it('fetches the requested language and a machine translation when only that exists', async () => {
    const { token } = await newCaller()
    const { log } = fakeYouTube()
    const de = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}`, language: 'de' }, token)
    expect(de.status).toBe(200)
    expect(log.timedtext[0].searchParams.get('lang')).toBe('de')
    expect(de.body.metadata.transcript_language).toBe('de')

    const nl = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}`, language: 'nl' }, token)
    expect(nl.status).toBe(200)
    expect(log.timedtext[1].searchParams.get('tlang')).toBe('nl')
    expect(nl.body.metadata).toMatchObject({ transcript_language: 'nl', transcript_source: 'translated' })
  })

  it('answers 404 with the original text when the language is not available', async () => {
    const { token } = await newCaller()
    fakeYouTube({ innertube: 'ww1NlEn' })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}`, language: 'tlh' }, token)
    expect(res.status).toBe(404)
    expect(res.body.error).toContain("The requested page doesn't exist or there are no translations available for the video.")
    expect(res.body.details[0].path).toBe('/language')
  })

  it('passes the EU consent page with the CONSENT cookie', async () => {
    const { token } = await newCaller()
    const { log } = fakeYouTube({ pages: [yt.consentPage, yt.watchHtml] })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(200)
    expect(log.watch.length).toBe(2)
    expect(log.watch[1].headers.get('cookie')).toContain('CONSENT=YES+cb.20210328-17-p0.de+FX+119')
  })

  it('sends the cookies YouTube set on the watch page with the later requests', async () => {
    const { token } = await newCaller()
    const { seen } = fakeYouTube()
    await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    const timedtext = seen.find((r) => r.url.includes('/api/timedtext'))
    expect(timedtext?.headers.get('cookie')).toContain('YSC=abc123')
  })

  it.each([
    ['a consent page without a token', [yt.consentPageInvalid]],
    ['a consent page that keeps coming back', [yt.consentPage, yt.consentPage]],
  ])('answers 502 naming the proxy setting for %s', async (_name, pages) => {
    const { token } = await newCaller()
    fakeYouTube({ pages })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(502)
    expect(res.body.code).toBe('UPSTREAM_FAILED')
    expect(res.body.error).toContain('consent')
    expect(res.body.error).toContain('YOUTUBE_PROXY_URL')
  })

  it.each([
    ['ageRestricted', 403, 'FORBIDDEN', 'age restricted'],
    ['requestBlocked', 502, 'UPSTREAM_FAILED', 'YOUTUBE_PROXY_URL'],
    ['poTokenRequired', 502, 'UPSTREAM_FAILED', 'PO'],
    ['unplayable', 422, 'UNPROCESSABLE', 'Custom Reason'],
    ['videoUnavailable', 404, 'NOT_FOUND', 'unavailable'],
    ['transcriptsDisabled', 404, 'NOT_FOUND', "The requested page doesn't exist or there are no translations available for the video."],
    ['transcriptsDisabled2', 404, 'NOT_FOUND', "The requested page doesn't exist or there are no translations available for the video."],
  ] as const)('maps the %s recording to %i', async (name, status, code, text) => {
    const { token } = await newCaller()
    const { log } = fakeYouTube({ innertube: name })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(status)
    expect(res.body).toMatchObject({ status, response: null, code })
    expect(res.body.error).toContain(text)
    expect(log.timedtext.length).toBe(0)
  })

  it('answers 429 for the captcha page', async () => {
    const { token } = await newCaller()
    fakeYouTube({ pages: [yt.tooManyRequests] })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(res.body.error).toContain('YOUTUBE_PROXY_URL')
  })

  it('answers 429 with Retry-After when YouTube answers 429', async () => {
    const { token } = await newCaller()
    const { log } = fakeYouTube({ watchStatus: 429, watchHeaders: { 'retry-after': '120' } })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(429)
    expect(res.body.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(res.headers.get('retry-after')).toBe('120')
    expect(log.watch.length).toBe(1)
  })

  it('answers 429 when the timedtext request is rate limited', async () => {
    const { token } = await newCaller()
    fakeYouTube({ timedtextStatus: 429 })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(429)
  })

  it('answers 502 when YouTube fails with a server error', async () => {
    const { token } = await newCaller()
    fakeYouTube({ playerStatus: 500 })
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    expect(res.status).toBe(502)
    expect(res.body.error).toContain('HTTP 500')
  })

  it('keeps the transcript and its metadata on the run record', async () => {
    const { token } = await newCaller()
    fakeYouTube()
    const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
    const run = await request('GET', `/v1/runs/${res.headers.get('x-run-id')}`, { token })
    expect(run.status).toBe(200)
    expect(run.body.response).toMatchObject({ action: 'get_video_transcript', state: 'succeeded', output: `${TITLE}\n\n${TRANSCRIPT}` })
    expect(run.body.response.metadata).toMatchObject({ id: VIDEO_ID, likes: 43864 })
  })
})

describe('get_video_transcript through YOUTUBE_PROXY_URL', () => {
  it('sends every YouTube request through the forwarding proxy with its token', async () => {
    const { token } = await newCaller()
    const saved = { url: env.YOUTUBE_PROXY_URL, token: env.YOUTUBE_PROXY_TOKEN }
    env.YOUTUBE_PROXY_URL = 'https://yt-proxy.example.com/forward?target={url}'
    env.YOUTUBE_PROXY_TOKEN = 'proxy-token-1'
    try {
      const direct = fakeYouTube()
      const viaProxy: string[] = []
      // The proxy: checks its token, then forwards to the (fake) YouTube with the same method, headers and body.
      const proxy = async (req: Request) => {
        const url = new URL(req.url)
        if (url.hostname !== 'yt-proxy.example.com') return null
        if (req.headers.get('authorization') !== 'Bearer proxy-token-1') return new Response('no', { status: 401 })
        const target = url.searchParams.get('target') ?? ''
        viaProxy.push(target)
        const headers = new Headers(req.headers)
        headers.delete('authorization')
        return fetch(target, { method: req.method, headers, body: req.method === 'POST' ? await req.text() : undefined })
      }
      const spy = vi.mocked(globalThis.fetch)
      const handlers = spy.getMockImplementation()!
      spy.mockImplementation(async (input, init) => (await proxy(new Request(input, init))) ?? handlers(input, init))
      const res = await action('get_video_transcript', { url: `https://youtu.be/${VIDEO_ID}` }, token)
      expect(res.status).toBe(200)
      expect(res.body.response).toBe(`${TITLE}\n\n${TRANSCRIPT}`)
      expect(viaProxy.map((u) => new URL(u).pathname)).toEqual(['/watch', '/youtubei/v1/player', '/api/timedtext'])
      expect(direct.log.watch.length).toBe(1)
    } finally {
      env.YOUTUBE_PROXY_URL = saved.url
      env.YOUTUBE_PROXY_TOKEN = saved.token
    }
  })
})
