import { z } from 'zod'

export const GetVideoTranscriptInput = z.strictObject({
  url: z.string().min(1).max(2048).describe('URL of the YouTube video: a watch, youtu.be, embed, shorts or live URL, e.g. https://www.youtube.com/watch?v=GJLlxj_dtq8'),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'must be a language code such as "en", "de" or "zh-Hant"')
    .optional()
    .describe(
      'Optional language code of the transcript ("en", "de", "zh-Hant"). Manual captions in it are preferred, then generated ones, then a YouTube machine translation. Default: English, else the first manual track, else the first generated one.',
    ),
})

const KeyMoment = z.object({
  title: z.string().describe('Chapter title'),
  start_seconds: z.number().int().describe('Start of the chapter in seconds'),
  time: z.string().describe('Start as YouTube shows it, e.g. "0:39"'),
})

/** The `metadata` object returned beside `response`. */
export const VideoMetadataSchema = z.object({
  author: z.string(),
  category: z.string().nullable(),
  channel_id: z.string(),
  channel_link: z.string().nullable(),
  channel_name: z.string(),
  description: z.string(),
  id: z.string(),
  key_moments: z.array(KeyMoment),
  length_seconds: z.number().int().nullable(),
  likes: z.number().int().nullable(),
  published_time: z.string().nullable().describe('Short date, e.g. "Mar 26, 2024"'),
  thumbnail: z.string().nullable(),
  title: z.string(),
  views: z.number().int().nullable(),
  transcript_language: z.string().describe('Language code of the returned transcript'),
  transcript_source: z.enum(['manual', 'generated', 'translated']),
})
