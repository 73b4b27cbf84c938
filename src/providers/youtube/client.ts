import { ProviderError, UpstreamError } from '../errors'
import { readJson, readText, type GuardedFetch } from '../web/fetch'
import { retryAfterSeconds } from '../web/retry-after'
import {
  assertPlayable,
  buildMetadata,
  captionTracks,
  chooseTrack,
  consentCookie,
  consentError,
  extractInnertubeApiKey,
  extractJsonAssignment,
  isConsentPage,
  isTimedText,
  NO_TRANSCRIPT_TEXT,
  parseTimedText,
  timedTextUrl,
  tooManyRequests,
  transcriptText,
  type Cue,
  type VideoMetadata,
} from './transform'
import { encodeUriText } from '../../lib/text'

const SERVICE = 'YouTube'
const WATCH_URL = 'https://www.youtube.com/watch?v='
const PLAYER_URL = 'https://www.youtube.com/youtubei/v1/player?key='
/** The ANDROID InnerTube client still lists caption tracks that need no PO token (2026). */
const INNERTUBE_CLIENT = { clientName: 'ANDROID', clientVersion: '20.10.38' }

/** A fetched transcript with its metadata. */
export interface VideoTranscript {
  metadata: VideoMetadata
  cues: Cue[]
  text: string
}

/** Cookies YouTube sets, sent back on later requests of the same fetch (as a browser session would). */
class CookieJar {
  private readonly cookies = new Map<string, string>()
  add(pair: string) {
    const eq = pair.indexOf('=')
    if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
  absorb(res: Response) {
    for (const line of res.headers.getSetCookie()) this.add(line.split(';')[0])
  }
  header(): string | null {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : null
  }
}

async function ensureOk(res: Response, what: string, videoId: string): Promise<void> {
  if (res.ok) return
  res.body?.cancel().catch(() => undefined)
  if (res.status === 429) {
    const retry = retryAfterSeconds(res.headers.get('retry-after'))
    throw tooManyRequests(videoId, retry && retry > 0 ? retry : undefined)
  }
  throw new UpstreamError(SERVICE, 'status', `YouTube answered the ${what} request for video ${videoId} with HTTP ${res.status}`, res.status)
}

/**
 * Fetches a video's transcript and metadata the way that works in 2026: the watch page (API key,
 * microformat, chapters; passing the EU consent form with a CONSENT cookie), the InnerTube player
 * with the ANDROID client (caption tracks), then the chosen track's timedtext XML.
 */
export async function fetchTranscript(fetch: GuardedFetch, videoId: string, language: string | undefined): Promise<VideoTranscript> {
  const jar = new CookieJar()
  const get = async (url: string, what: string) => {
    const headers: Record<string, string> = { 'accept-language': 'en-US,en;q=0.9' }
    const cookie = jar.header()
    if (cookie) headers.cookie = cookie
    const res = await fetch(url, { service: SERVICE, headers, timeoutMs: 15_000, maxBytes: 8 * 1024 * 1024 })
    jar.absorb(res)
    await ensureOk(res, what, videoId)
    return readText(res, SERVICE)
  }

  let html = await get(`${WATCH_URL}${videoId}`, 'watch page')
  if (isConsentPage(html)) {
    const cookie = consentCookie(html)
    if (!cookie) throw consentError(videoId)
    jar.add(cookie)
    html = await get(`${WATCH_URL}${videoId}`, 'watch page')
    if (isConsentPage(html)) throw consentError(videoId)
  }
  const apiKey = extractInnertubeApiKey(html, videoId)
  const watchPlayer = extractJsonAssignment(html, 'ytInitialPlayerResponse')
  const initialData = extractJsonAssignment(html, 'ytInitialData')

  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-language': 'en-US,en;q=0.9' }
  const cookie = jar.header()
  if (cookie) headers.cookie = cookie
  const res = await fetch(`${PLAYER_URL}${encodeUriText(apiKey)}`, {
    method: 'POST',
    service: SERVICE,
    headers,
    body: JSON.stringify({ context: { client: INNERTUBE_CLIENT }, videoId }),
    // Reading the player is side-effect free, so a 5xx may be retried.
    idempotent: true,
    timeoutMs: 15_000,
  })
  jar.absorb(res)
  await ensureOk(res, 'InnerTube player', videoId)
  const player = await readJson(res, SERVICE)

  assertPlayable(player, videoId)
  const choice = chooseTrack(captionTracks(player, videoId), language, videoId)
  const xml = await get(timedTextUrl(choice, videoId), 'timedtext')
  if (!isTimedText(xml)) throw new UpstreamError(SERVICE, 'invalid', `YouTube's caption track for video ${videoId} is not timedtext XML`)
  const cues = parseTimedText(xml)
  if (!cues.length) throw new ProviderError('not_found', `${NO_TRANSCRIPT_TEXT} The caption track of video ${videoId} is empty.`, 'url')
  const metadata = buildMetadata({ videoId, player, watchPlayer, initialData, choice })
  return { metadata, cues, text: transcriptText(cues) }
}
