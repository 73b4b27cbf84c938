import { z } from 'zod'
import { outputVariable } from '../common/fields'

export const PostToSocialInput = z
  .strictObject({
    username: z.string().min(1).max(320).describe('The account to post as: its handle (alice.bsky.social, a leading @ is fine), its DID, or its sign-in email'),
    password: z
      .string()
      .max(1024)
      .optional()
      .describe(
        'The account password; use an app password (Settings > Privacy and security > App passwords). Secret: used once, never stored or echoed. Required unless dry_run is true (a dry run ignores it, even empty).',
      )
      .meta({ writeOnly: true, format: 'password' }),
    content: z
      .string()
      .min(1)
      .max(100_000)
      .describe('Text of the post: at most 300 characters (graphemes) and 3000 UTF-8 bytes. Links, @mentions and #hashtags become rich-text facets; the first link gets a card.'),
    output_variable_name: outputVariable('post_result'),
    dry_run: z.boolean().default(false).describe('When true, validates the content, resolves mentions and the link card, and returns the record without logging in or posting. Default false.'),
  })
  .superRefine((v, ctx) => {
    if (!v.dry_run && !v.password) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'password is required to post (use an app password); only a dry_run may leave it out or empty' })
    }
  })

const Facet = z.object({
  index: z.object({ byteStart: z.number().int(), byteEnd: z.number().int() }),
  features: z.array(z.record(z.string(), z.unknown())),
})

/** The result of a post (or of a dry run). */
export const PostToSocialOutput = z.object({
  dry_run: z.boolean(),
  uri: z.string().nullable().describe('at:// URI of the created post; null for a dry run'),
  cid: z.string().nullable().describe('CID of the created record; null for a dry run'),
  url: z.string().nullable().describe('Web address of the post on bsky.app; null for a dry run, or when the PDS answered a handle or record key that is not valid text'),
  did: z.string().nullable().describe('DID of the posting account (null for a dry run)'),
  handle: z.string().nullable().describe('Handle of the posting account (null for a dry run)'),
  record: z.object({ $type: z.literal('app.bsky.feed.post'), text: z.string(), createdAt: z.string(), facets: z.array(Facet).optional(), embed: z.unknown().optional() }),
  graphemes: z.number().int(),
  bytes: z.number().int(),
  unresolved_mentions: z.array(z.string()).describe('Mentioned handles that resolve to no DID; they stay plain text'),
  link_card: z.object({ uri: z.string(), title: z.string(), description: z.string(), image: z.string().nullable(), thumb_uploaded: z.boolean() }).nullable(),
})
