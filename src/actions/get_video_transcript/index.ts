import { z } from 'zod'
import { ApiError } from '../../http/errors'
import { fetchTranscript } from '../../providers/youtube/client'
import { youtubeFetch } from '../../providers/youtube/proxy'
import type { VideoMetadata } from '../../providers/youtube/transform'
import { ACCEPTED_URL_FORMS, videoIdFromUrl } from '../../providers/youtube/url'
import { defineAction } from '../define'
import { GetVideoTranscriptInput, VideoMetadataSchema } from './schema'

/** What the action returns: the wire `response` text and the top-level `metadata`. */
export interface TranscriptResult {
  response: string
  metadata: VideoMetadata
}

/** Fetches a YouTube video's transcript and metadata; `response` is the title, a blank line, then the text. */
export const getVideoTranscriptAction = defineAction({
  name: 'get_video_transcript',
  summary: 'Fetch a video transcript',
  description:
    'Fetches the transcript of a YouTube video (manual captions preferred over generated ones, optional language) with its metadata. The answer is {"status":200,"metadata":{...},"response":"<title>\\n\\n<transcript text>"}.',
  input: GetVideoTranscriptInput,
  output: z.object({ response: z.string(), metadata: VideoMetadataSchema }),
  hints: { readOnly: true, idempotent: true },
  mode: 'inline',
  examples: [{ url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' }, { url: 'https://youtu.be/GJLlxj_dtq8', language: 'de' }],
  present: (output: TranscriptResult) => ({ response: output.response, metadata: output.metadata }),
  async run(input, ctx): Promise<TranscriptResult> {
    const videoId = videoIdFromUrl(input.url)
    if (!videoId) {
      const message = `url is not a YouTube video URL; accepted forms: ${ACCEPTED_URL_FORMS}`
      throw new ApiError('VALIDATION_FAILED', message, [{ path: '/url', message }])
    }
    const transcript = await fetchTranscript(youtubeFetch(ctx.env, ctx.fetch), videoId, input.language)
    return { response: `${transcript.metadata.title}\n\n${transcript.text}`, metadata: transcript.metadata }
  },
})
