import { z } from 'zod'
import { ApiError } from '../../http/errors'
import { fetchCardImage, fetchLinkCard, type CardImage, type LinkCard } from '../../providers/atproto/card'
import { createRecord, createSession, deleteSession, uploadBlob, type BlobRef } from '../../providers/atproto/client'
import { atprotoSettings, didDocument, parseIdentifier, pdsEndpoint, resolveHandle, type AtprotoSettings, type Identifier } from '../../providers/atproto/identity'
import { buildFacets, detectSpans, graphemeCount, limitViolations, utf8Length, type Facet } from '../../providers/atproto/richtext'
import { postWebUrl } from '../../providers/atproto/transform'
import type { GuardedFetch } from '../../providers/web/fetch'
import { defineAction } from '../define'
import { PostToSocialInput, PostToSocialOutput } from './schema'

const COLLECTION = 'app.bsky.feed.post' as const

type PostResult = z.infer<typeof PostToSocialOutput>

function invalid(field: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', message, [{ path: `/${field}`, message }])
}

/** The PDS to log in at: the one in the account's DID document, else the configured default. */
async function loginPds(fetch: GuardedFetch, settings: AtprotoSettings, id: Identifier): Promise<string> {
  if (id.kind === 'email') return settings.pdsUrl
  const did = id.kind === 'did' ? id.value : await resolveHandle(fetch, settings, id.value)
  if (!did) return settings.pdsUrl
  return pdsEndpoint(await didDocument(fetch, settings, did)) ?? settings.pdsUrl
}

async function resolveMentions(fetch: GuardedFetch, settings: AtprotoSettings, handles: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(handles)].slice(0, 20)
  const entries = await Promise.all(unique.map(async (h) => [h, await resolveHandle(fetch, settings, h)] as const))
  return new Map(entries.filter((e): e is readonly [string, string] => e[1] !== null))
}

/**
 * Posts to Bluesky (any AT Protocol PDS) as the caller's own account: rich-text facets for links,
 * mentions and hashtags, a link card for the first link, and the post's URI, CID and web address.
 */
export const postToSocialAction = defineAction({
  name: 'post_to_social',
  summary: 'Post to a social network',
  description:
    'Creates a Bluesky (AT Protocol) post as the given account. Links, @mentions and #hashtags become facets; the first link gets a card when its page can be read. Use an app password. dry_run returns the record without posting.',
  input: PostToSocialInput,
  output: PostToSocialOutput,
  hints: { sideEffect: true },
  mode: 'inline',
  examples: [{ username: 'alice.bsky.social', password: '<ACCOUNT_PASSWORD>', content: 'Shipped! Notes at https://example.com/notes #release cc @bob.bsky.social' }],
  async run(input, ctx): Promise<PostResult> {
    const id = parseIdentifier(input.username)
    if (!id) throw invalid('username', 'username must be a handle such as alice.bsky.social, a DID, or the account email')
    const text = input.content
    if (!text.trim()) throw invalid('content', 'content must contain some text')
    const problems = limitViolations(text)
    if (problems.length) throw invalid('content', `${problems.join('; ')}.`)

    const settings = atprotoSettings(ctx.env)
    const spans = detectSpans(text)
    const mentions = spans.flatMap((s) => (s.kind === 'mention' ? [s.handle] : []))
    const firstLink = spans.find((s) => s.kind === 'link')
    const [dids, card] = await Promise.all([resolveMentions(ctx.fetch, settings, mentions), firstLink ? fetchLinkCard(ctx.fetch, firstLink.uri) : Promise.resolve(null as LinkCard | null)])
    const facets: Facet[] = buildFacets(spans, dids)
    const image: CardImage | null = card?.image && !input.dry_run ? await fetchCardImage(ctx.fetch, card.image) : null

    const record = (thumb: BlobRef | null) => ({
      $type: COLLECTION,
      text,
      createdAt: new Date().toISOString(),
      ...(facets.length ? { facets } : {}),
      ...(card ? { embed: { $type: 'app.bsky.embed.external', external: { uri: card.uri, title: card.title, description: card.description, ...(thumb ? { thumb } : {}) } } } : {}),
    })
    const base = {
      graphemes: graphemeCount(text),
      bytes: utf8Length(text),
      unresolved_mentions: [...new Set(mentions)].filter((h) => !dids.has(h)),
    }
    const cardSummary = (thumbUploaded: boolean) => (card ? { uri: card.uri, title: card.title, description: card.description, image: card.image, thumb_uploaded: thumbUploaded } : null)

    if (input.dry_run) {
      return { dry_run: true, uri: null, cid: null, url: null, did: null, handle: null, record: record(null), ...base, link_card: cardSummary(false) }
    }

    const pds = await loginPds(ctx.fetch, settings, id)
    const session = await createSession(ctx.fetch, pds, id.value, input.password as string)
    ctx.secrets.add(session.accessJwt)
    ctx.secrets.add(session.refreshJwt)
    try {
      let thumb: BlobRef | null = null
      if (image) {
        try {
          thumb = await uploadBlob(ctx.fetch, session, image.bytes, image.mimeType)
        } catch (err) {
          // The card still goes out, just without its picture.
          ctx.log.warn('card thumbnail upload failed', { error: (err as Error).message })
        }
      }
      const posted = record(thumb)
      const created = await createRecord(ctx.fetch, session, COLLECTION, posted)
      return {
        dry_run: false,
        uri: created.uri,
        cid: created.cid,
        url: postWebUrl(session.handle, created.uri),
        did: session.did,
        handle: session.handle,
        record: posted,
        ...base,
        link_card: cardSummary(thumb !== null),
      }
    } finally {
      await deleteSession(ctx.fetch, session)
    }
  },
})
