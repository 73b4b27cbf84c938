import { ProviderError, UpstreamError } from '../errors'
import { parseJson } from '../../lib/json-depth'
import { decodeEntities } from '../../lib/text'

/** The original service's words for "no transcript"; kept as the start of every such message. */
export const NO_TRANSCRIPT_TEXT = "The requested page doesn't exist or there are no translations available for the video."

const SERVICE = 'YouTube'
const PROXY_HINT = 'Route YouTube traffic through a proxy outside the blocked network with the YOUTUBE_PROXY_URL setting.'

/** One caption track as the InnerTube player lists it. */
export interface CaptionTrack {
  baseUrl: string
  languageCode: string
  name: string
  /** True for automatic speech recognition ("auto-generated") tracks. */
  generated: boolean
  translatable: boolean
}

/** A language YouTube can machine-translate a translatable track into. */
export interface TranslationLanguage {
  languageCode: string
  name: string
}

/** The track to fetch: a track, optionally machine-translated into `translateTo`. */
export interface TrackChoice {
  track: CaptionTrack
  translateTo: TranslationLanguage | null
}

/** One timed caption: start and duration in seconds. */
export interface Cue {
  start: number
  duration: number
  text: string
}

/** A chapter of the video ("key moment"). */
export interface KeyMoment {
  title: string
  start_seconds: number
  /** The timestamp as YouTube shows it, e.g. "0:39" or "1:02:03". */
  time: string
}

/** The transcript action's `metadata` (every field of the spec plus which transcript was used). */
export interface VideoMetadata {
  author: string
  category: string | null
  channel_id: string
  channel_link: string | null
  channel_name: string
  description: string
  id: string
  key_moments: KeyMoment[]
  length_seconds: number | null
  likes: number | null
  published_time: string | null
  thumbnail: string | null
  title: string
  views: number | null
  /** Language code of the transcript returned. */
  transcript_language: string
  /** `manual` (uploaded captions), `generated` (speech recognition) or `translated` (machine translation). */
  transcript_source: 'manual' | 'generated' | 'translated'
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

/** The InnerTube API key embedded in the watch page; a captcha page means the IP is rate limited. */
export function extractInnertubeApiKey(html: string, videoId: string): string {
  const match = /"INNERTUBE_API_KEY":\s*"([a-zA-Z0-9_-]+)"/.exec(html)
  if (match) return match[1]
  if (isCaptchaPage(html)) throw tooManyRequests(videoId)
  throw new UpstreamError(SERVICE, 'invalid', `YouTube's watch page for video ${videoId} did not hold the data this service reads (INNERTUBE_API_KEY); YouTube may have changed the page.`)
}

/** YouTube's "unusual traffic" page carries a reCAPTCHA. */
export function isCaptchaPage(html: string): boolean {
  return html.includes('class="g-recaptcha"')
}

/** The EU consent interstitial that replaces the watch page until a CONSENT cookie is sent. */
export function isConsentPage(html: string): boolean {
  return html.includes('action="https://consent.youtube.com/s"')
}

/** The CONSENT cookie value that accepts the consent form, or null when the form has no token. */
export function consentCookie(html: string): string | null {
  const match = /name="v" value="(.*?)"/.exec(html)
  // The token comes from page text into a Cookie header: only cookie-value octets (RFC 6265) may pass,
  // since ";" or "," would add cookies and NUL or non-Latin-1 text would make Headers throw.
  return match && /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{1,512}$/.test(match[1]) ? `CONSENT=YES+${match[1]}` : null
}

/** The error for a consent form that a cookie did not get past. */
export function consentError(videoId: string): UpstreamError {
  return new UpstreamError(
    SERVICE,
    'status',
    `YouTube showed its cookie consent page instead of video ${videoId} and did not accept the consent cookie (this happens to EU egress addresses). ${PROXY_HINT}`,
  )
}

/** The error for a captcha page or HTTP 429 from YouTube. */
export function tooManyRequests(videoId: string, retryAfterSeconds?: number): UpstreamError {
  return new UpstreamError(
    SERVICE,
    'rate_limited',
    `YouTube is refusing requests from this server's IP address (too many requests; it answered video ${videoId} with a captcha or 429). Try again later, or ${PROXY_HINT.charAt(0).toLowerCase()}${PROXY_HINT.slice(1)}`,
    429,
    retryAfterSeconds,
  )
}

/**
 * Values a page's JSON assignment may hold. A parsed value costs up to 64 bytes of heap, so 8 MB of
 * `{},` (2.6 million objects) took 166 MB, past a Worker's 128 MB; YouTube's own are far below this.
 */
export const MAX_JSON_VALUES = 500_000

/**
 * Reads a `var name = {...};` (or `window["name"] = {...}`) JSON assignment from a page by
 * matching braces, since the object is followed by arbitrary script. Null when absent, broken or
 * holding more than MAX_JSON_VALUES values (counted by their separators before anything is parsed).
 */
export function extractJsonAssignment(html: string, name: string): Json | null {
  const marker = new RegExp(`(?:var\\s+${name}|window\\[["']${name}["']\\]|${name})\\s*=\\s*\\{`)
  const found = marker.exec(html)
  if (!found) return null
  const start = found.index + found[0].length - 1
  let depth = 0
  let values = 0
  let inString = false
  for (let i = start; i < html.length; i++) {
    const ch = html.charCodeAt(i)
    if (inString) {
      if (ch === 92)
        i++ // backslash: skip the escaped character
      else if (ch === 34) inString = false
      continue
    }
    if (ch === 34) inString = true
    else if (ch === 44 || ch === 91) {
      if (++values > MAX_JSON_VALUES) return null
    } else if (ch === 123) {
      depth++
      if (++values > MAX_JSON_VALUES) return null
    } else if (ch === 125 && --depth === 0) {
      try {
        return parseJson(html.slice(start, i + 1))
      } catch {
        return null
      }
    }
  }
  return null
}

function runsText(value: Json): string {
  if (!value) return ''
  if (typeof value.simpleText === 'string') return value.simpleText
  if (Array.isArray(value.runs)) return value.runs.map((r: Json) => r?.text ?? '').join('')
  return ''
}

/**
 * Throws the typed error for a player response whose video cannot be played; returns when the
 * status is OK (or absent, as in some responses that still carry captions).
 */
export function assertPlayable(player: Json, videoId: string): void {
  const status: unknown = player?.playabilityStatus?.status
  if (status === undefined || status === 'OK') return
  if (typeof status !== 'string') throw new UpstreamError(SERVICE, 'invalid', 'YouTube answered a playability status that is not text')
  const reason = typeof player.playabilityStatus.reason === 'string' ? player.playabilityStatus.reason : runsText(player.playabilityStatus.errorScreen?.playerErrorMessageRenderer?.reason)
  if (/private/i.test(reason)) {
    throw new ProviderError('not_found', `Video ${videoId} is private: only its owner can watch it, so its transcript cannot be fetched.`, 'url')
  }
  if (status === 'LOGIN_REQUIRED') {
    if (/not a bot/i.test(reason)) {
      throw new UpstreamError(SERVICE, 'status', `YouTube asked this server to sign in to confirm it is not a bot: it is blocking requests from this server's IP address (bot check). ${PROXY_HINT}`)
    }
    if (/inappropriate|age/i.test(reason)) {
      throw new ProviderError('forbidden', `Video ${videoId} is age restricted: YouTube shows it only to signed-in adults, so its transcript cannot be fetched.`, 'url')
    }
    throw new ProviderError('forbidden', `Video ${videoId} requires signing in to YouTube${reason ? ` ("${reason}")` : ''}, so its transcript cannot be fetched.`, 'url')
  }
  if (status === 'ERROR' && /unavailable/i.test(reason)) {
    throw new ProviderError('not_found', `Video ${videoId} is unavailable: it does not exist or was removed (YouTube: "${reason}").`, 'url')
  }
  const runs = player.playabilityStatus.errorScreen?.playerErrorMessageRenderer?.subreason?.runs
  const subreasons = (Array.isArray(runs) ? runs : []).map((r: Json) => (typeof r?.text === 'string' ? r.text.trim() : '')).filter(Boolean)
  const why = [reason || status, ...subreasons].join('; ')
  throw new ProviderError('unprocessable', `Video ${videoId} cannot be played (${status}): ${why}.`, 'url')
}

/** The caption tracks of a playable video; none at all means the owner turned captions off. */
export function captionTracks(player: Json, videoId: string): { tracks: CaptionTrack[]; translationLanguages: TranslationLanguage[] } {
  const renderer = player?.captions?.playerCaptionsTracklistRenderer
  const raw = renderer?.captionTracks
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ProviderError('not_found', `${NO_TRANSCRIPT_TEXT} Captions are turned off for video ${videoId}.`, 'url')
  }
  const tracks: CaptionTrack[] = raw
    .filter((t: Json) => typeof t?.baseUrl === 'string' && typeof t?.languageCode === 'string')
    .map((t: Json) => ({
      baseUrl: t.baseUrl.replace('&fmt=srv3', ''),
      languageCode: t.languageCode,
      name: runsText(t.name) || t.languageCode,
      generated: t.kind === 'asr',
      translatable: t.isTranslatable === true,
    }))
  // Tracks are listed, but none with a URL and a language: the answer is not one this reader knows.
  if (tracks.length === 0) throw new UpstreamError(SERVICE, 'invalid', `YouTube listed caption tracks for video ${videoId} without a URL and language`)
  const translationLanguages: TranslationLanguage[] = (Array.isArray(renderer.translationLanguages) ? renderer.translationLanguages : [])
    .filter((l: Json) => typeof l?.languageCode === 'string')
    .map((l: Json) => ({ languageCode: l.languageCode, name: runsText(l.languageName) || l.languageCode }))
  return { tracks, translationLanguages }
}

function describeTracks(tracks: CaptionTrack[]): string {
  return tracks.map((t) => `${t.languageCode} (${t.name})`).join(', ')
}

/**
 * Picks the track to fetch. With a language: a manual track in it, else a generated one, else a
 * translation of a translatable track (manual first). Without: English, else the first manual
 * track, else the first generated one. Manual captions always win over generated ones.
 */
export function chooseTrack(list: { tracks: CaptionTrack[]; translationLanguages: TranslationLanguage[] }, language: string | undefined, videoId: string): TrackChoice {
  const { tracks, translationLanguages } = list
  const manual = tracks.filter((t) => !t.generated)
  const generated = tracks.filter((t) => t.generated)
  const inLanguage = (code: string) => (t: CaptionTrack) => t.languageCode.toLowerCase() === code.toLowerCase()
  if (language) {
    const direct = manual.find(inLanguage(language)) ?? generated.find(inLanguage(language))
    if (direct) return { track: direct, translateTo: null }
    const target = translationLanguages.find((l) => l.languageCode.toLowerCase() === language.toLowerCase())
    const source = manual.find((t) => t.translatable) ?? generated.find((t) => t.translatable)
    if (target && source) return { track: source, translateTo: target }
    throw new ProviderError(
      'not_found',
      `${NO_TRANSCRIPT_TEXT} Video ${videoId} has no "${language}" captions${source ? ' and YouTube cannot translate into it' : ''}; available: ${describeTracks(tracks)}.`,
      'language',
    )
  }
  const track = manual.find(inLanguage('en')) ?? manual[0] ?? generated.find(inLanguage('en')) ?? generated[0]
  return { track, translateTo: null }
}

/** The timedtext URL of a choice; an `exp=xpe` URL cannot be fetched without a PO token. */
export function timedTextUrl(choice: TrackChoice, videoId: string): string {
  if (choice.track.baseUrl.includes('&exp=xpe')) {
    throw new UpstreamError(
      SERVICE,
      'status',
      `YouTube requires a proof-of-origin (PO) token for the captions of video ${videoId}, which this service cannot produce; YouTube does this to addresses it distrusts. ${PROXY_HINT}`,
    )
  }
  let url: URL
  try {
    url = new URL(choice.track.baseUrl, 'https://www.youtube.com')
  } catch {
    throw new UpstreamError(SERVICE, 'invalid', `YouTube listed a caption URL for video ${videoId} that is not valid`)
  }
  if (url.hostname !== 'www.youtube.com' && url.hostname !== 'youtube.com') {
    throw new UpstreamError(SERVICE, 'invalid', `YouTube listed a caption URL for video ${videoId} on an unexpected host (${url.hostname})`)
  }
  // The URL comes from the player answer: only the timedtext endpoint is read with the session's cookies.
  if (url.protocol !== 'https:' || url.port !== '' || url.username !== '' || url.password !== '' || url.pathname !== '/api/timedtext') {
    throw new UpstreamError(SERVICE, 'invalid', `YouTube listed a caption URL for video ${videoId} that is not its timedtext endpoint`)
  }
  if (choice.translateTo) url.searchParams.set('tlang', choice.translateTo.languageCode)
  return url.toString()
}

function cueText(raw: string): string {
  // The XML layer decodes once; caption text is itself HTML-escaped ("&lt;i>"), so decode, strip tags, decode.
  const once = decodeEntities(raw)
  // A tag ends at the next "<" as well, so a caption full of "<" is not rescanned from each of them.
  return decodeEntities(once.replace(/<[^<>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim()
}

/**
 * Parses timedtext XML: the classic `<text start dur>` form and the srv3 `<p t d>` form (ms).
 * Empty cues are dropped; formatting tags are stripped.
 * @example parseTimedText('<transcript><text start="0" dur="1.5">Hi</text></transcript>') // [{start:0,duration:1.5,text:'Hi'}]
 */
export function parseTimedText(xml: string): Cue[] {
  const cues: Cue[] = []
  for (const m of elements(xml, 'text')) {
    const text = cueText(m.body)
    if (!text) continue
    cues.push({ start: Number(attr(m.attrs, 'start') ?? 0), duration: Number(attr(m.attrs, 'dur') ?? 0), text })
  }
  if (cues.length) return cues
  for (const m of elements(xml, 'p')) {
    const text = cueText(m.body)
    if (!text) continue
    cues.push({ start: Number(attr(m.attrs, 't') ?? 0) / 1000, duration: Number(attr(m.attrs, 'd') ?? 0) / 1000, text })
  }
  return cues
}

/**
 * Each `<tag ...>body</tag>` in order, the body ending at the first close tag, as the lazy regex
 * `<tag\b([^>]*)>([\s\S]*?)</tag>` reads them. The regex searched the rest of the text again from
 * every open tag left unclosed (an hour of CPU for 8 MB of "<text>"); once no ">" or close tag
 * follows one open tag, none follows a later one either, so the scan stops there.
 */
function* elements(xml: string, tag: string): Generator<{ attrs: string; body: string }> {
  const open = new RegExp(`<${tag}\\b`, 'g')
  const close = `</${tag}>`
  for (let m = open.exec(xml); m; m = open.exec(xml)) {
    const attrsEnd = xml.indexOf('>', open.lastIndex)
    if (attrsEnd < 0) return
    const end = xml.indexOf(close, attrsEnd + 1)
    if (end < 0) return
    yield { attrs: xml.slice(open.lastIndex, attrsEnd), body: xml.slice(attrsEnd + 1, end) }
    open.lastIndex = end + close.length
  }
}

function attr(attrs: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1]
}

/** True when a body looks like a timedtext document at all (even one without cues). */
export function isTimedText(xml: string): boolean {
  return /<transcript\b|<timedtext\b/.test(xml)
}

/** The spoken text of a transcript: cues joined by single spaces. */
export function transcriptText(cues: Cue[]): string {
  return cues.map((c) => c.text).join(' ')
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/**
 * "Mar 26, 2024" from YouTube's publishDate ("2024-03-26T07:00:00-07:00" or "2024-03-26"), using the
 * calendar date YouTube states (its own time zone), as the watch page shows it.
 */
export function formatPublished(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value)
  if (!m) return null
  const month = Number(m[2])
  if (month < 1 || month > 12) return null
  return `${MONTHS[month - 1]} ${Number(m[3])}, ${m[1]}`
}

/** Seconds of a "1:02:03" / "0:39" timestamp; null when it is not one. */
export function timestampSeconds(text: string): number | null {
  if (!/^\d+(:\d{1,2}){1,2}$/.test(text)) return null
  return text.split(':').reduce((sum, part) => sum * 60 + Number(part), 0)
}

/** Chapters ("key moments") from the watch page's ytInitialData, in order, without YouTube's duplicates. */
export function keyMoments(initialData: Json): KeyMoment[] {
  const found: KeyMoment[] = []
  const seen = new Set<string>()
  const visit = (node: Json, depth: number) => {
    if (!node || typeof node !== 'object' || depth > 60) return
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1)
      return
    }
    const marker = node.macroMarkersListItemRenderer
    if (marker && typeof marker === 'object') {
      const title = runsText(marker.title).trim()
      const time = runsText(marker.timeDescription).trim()
      const fromTime = timestampSeconds(time)
      const fromEndpoint = count(marker.onTap?.watchEndpoint?.startTimeSeconds)
      const start = fromTime ?? fromEndpoint
      const key = `${start}|${title}`
      if (title && start !== null && !seen.has(key)) {
        seen.add(key)
        found.push({ title, start_seconds: start, time: time || formatTimestamp(start) })
      }
      return
    }
    for (const value of Object.values(node)) visit(value, depth + 1)
  }
  visit(initialData, 0)
  return found.sort((a, b) => a.start_seconds - b.start_seconds)
}

function formatTimestamp(seconds: number): string {
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = String(seconds % 60).padStart(2, '0')
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/** A count YouTube sends as a number or digits (views, seconds, likes): a safe integer from 0 up, else null. */
function int(value: unknown): number | null {
  const n = typeof value === 'number' ? Math.trunc(value) : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN
  return Number.isSafeInteger(n) && n >= 0 ? n : null
}

/** A chapter's start in whole seconds: its number, or its text with any fraction cut off. */
const count = (value: unknown) => int(typeof value === 'string' && /^\d+\.\d+$/.test(value.trim()) ? Number(value) : value)

function likesFromInitialData(initialData: Json): number | null {
  if (!initialData) return null
  const text = JSON.stringify(initialData)
  const m = /along with ([\d,.]+) other/.exec(text)
  return m ? int(m[1].replace(/[,.]/g, '')) : null
}

function largestThumbnail(thumbnails: Json): string | null {
  const list = Array.isArray(thumbnails?.thumbnails) ? thumbnails.thumbnails : []
  let best: Json = null
  for (const t of list) if (typeof t?.url === 'string' && (!best || (t.width ?? 0) * (t.height ?? 0) > (best.width ?? 0) * (best.height ?? 0))) best = t
  return best?.url ?? null
}

/**
 * The spec's metadata from the InnerTube player (videoDetails), the watch page's player response
 * (microformat: category, publish date, likes, profile URL) and its ytInitialData (chapters).
 * Values YouTube did not send are null, never guessed.
 */
export function buildMetadata(args: { videoId: string; player: Json; watchPlayer: Json | null; initialData: Json | null; choice: TrackChoice }): VideoMetadata {
  const details = args.player?.videoDetails ?? {}
  const watchDetails = args.watchPlayer?.videoDetails ?? {}
  const micro = args.watchPlayer?.microformat?.playerMicroformatRenderer ?? args.player?.microformat?.playerMicroformatRenderer ?? {}
  const pick = (...values: unknown[]) => values.find((v) => typeof v === 'string' && v !== '') as string | undefined
  const channelId = pick(details.channelId, watchDetails.channelId, micro.externalChannelId) ?? ''
  const author = pick(details.author, watchDetails.author, micro.ownerChannelName) ?? ''
  const { track, translateTo } = args.choice
  return {
    author,
    category: pick(micro.category) ?? null,
    channel_id: channelId,
    channel_link: pick(micro.ownerProfileUrl) ?? (channelId ? `https://www.youtube.com/channel/${channelId}` : null),
    channel_name: pick(micro.ownerChannelName, author) ?? '',
    description: pick(details.shortDescription, watchDetails.shortDescription, runsText(micro.description)) ?? '',
    id: args.videoId,
    key_moments: args.initialData ? keyMoments(args.initialData) : [],
    length_seconds: int(details.lengthSeconds) ?? int(watchDetails.lengthSeconds) ?? int(micro.lengthSeconds),
    likes: int(micro.likeCount) ?? likesFromInitialData(args.initialData),
    published_time: formatPublished(micro.publishDate ?? micro.uploadDate),
    thumbnail: largestThumbnail(micro.thumbnail) ?? largestThumbnail(details.thumbnail) ?? largestThumbnail(watchDetails.thumbnail),
    title: pick(details.title, watchDetails.title, runsText(micro.title)) ?? '',
    views: int(details.viewCount) ?? int(watchDetails.viewCount) ?? int(micro.viewCount),
    transcript_language: translateTo ? translateTo.languageCode : track.languageCode,
    transcript_source: translateTo ? 'translated' : track.generated ? 'generated' : 'manual',
  }
}
