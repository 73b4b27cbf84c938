import transcriptXml from '../fixtures/youtube/transcript.xml.static?raw'
import watchHtml from '../fixtures/youtube/youtube.html.static?raw'
import innertube from '../fixtures/youtube/youtube.innertube.json.static?raw'
import ageRestricted from '../fixtures/youtube/youtube_age_restricted.innertube.json.static?raw'
import alteredUserAgent from '../fixtures/youtube/youtube_altered_user_agent.innertube.json.static?raw'
import consentPage from '../fixtures/youtube/youtube_consent_page.html.static?raw'
import consentPageInvalid from '../fixtures/youtube/youtube_consent_page_invalid.html.static?raw'
import poTokenRequired from '../fixtures/youtube/youtube_po_token_required.innertube.json.static?raw'
import requestBlocked from '../fixtures/youtube/youtube_request_blocked.innertube.json.static?raw'
import tooManyRequests from '../fixtures/youtube/youtube_too_many_requests.html.static?raw'
import transcriptsDisabled from '../fixtures/youtube/youtube_transcripts_disabled.innertube.json.static?raw'
import transcriptsDisabled2 from '../fixtures/youtube/youtube_transcripts_disabled2.innertube.json.static?raw'
import unplayable from '../fixtures/youtube/youtube_unplayable.innertube.json.static?raw'
import videoUnavailable from '../fixtures/youtube/youtube_video_unavailable.innertube.json.static?raw'
import ww1NlEn from '../fixtures/youtube/youtube_ww1_nl_en.innertube.json.static?raw'

/** The recorded YouTube payloads of test/fixtures/youtube (see its README), as text. */
export const yt = {
  transcriptXml,
  watchHtml,
  consentPage,
  consentPageInvalid,
  tooManyRequests,
  innertube: {
    ok: innertube,
    ageRestricted,
    alteredUserAgent,
    poTokenRequired,
    requestBlocked,
    transcriptsDisabled,
    transcriptsDisabled2,
    unplayable,
    videoUnavailable,
    ww1NlEn,
  },
}

export const VIDEO_ID = 'GJLlxj_dtq8'
export const TITLE = 'Surface Go Review - It’s Awesome'
export const TRANSCRIPT = 'Hey, this is just a test this is not the original transcript just something shorter, I made up for testing'
export const KEY_MOMENTS = [
  { title: 'Build Quality', start_seconds: 39, time: '0:39' },
  { title: 'Screen', start_seconds: 66, time: '1:06' },
  { title: 'Pen Support', start_seconds: 106, time: '1:46' },
  { title: 'Webcam', start_seconds: 129, time: '2:09' },
  { title: 'Keyboard', start_seconds: 155, time: '2:35' },
  { title: 'Trackpad', start_seconds: 188, time: '3:08' },
  { title: 'Performance', start_seconds: 199, time: '3:19' },
  { title: 'Battery Life', start_seconds: 220, time: '3:40' },
  { title: 'Gaming Performance', start_seconds: 236, time: '3:56' },
  { title: 'Ports', start_seconds: 254, time: '4:14' },
]
