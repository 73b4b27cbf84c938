import type { ActionContext } from '../../runtime/context'
import { readJson } from '../web/fetch'
import { finite, objectOf, shapeError, text } from '../shape'
import { encodeUriText } from '../../lib/text'

/** Public Bluesky AppView (no login needed for profile reads). */
export const APPVIEW = 'https://public.api.bsky.app'

/** `app.bsky.actor.getProfile` fields the research uses. */
export interface BskyProfile {
  did: string
  handle: string
  displayName?: string
  followersCount?: number
  followsCount?: number
  postsCount?: number
}

/** The handle in a bsky.app profile URL, or null. */
export function handleFromUrl(url: string): string | null {
  try {
    const u = new URL(url)
    if (u.hostname !== 'bsky.app') return null
    const m = /^\/profile\/([A-Za-z0-9.:-]+)\/?$/.exec(u.pathname)
    return m ? m[1] : null
  } catch {
    return null
  }
}

/** A public profile with follower counts; null when the AppView does not know the actor. */
export async function getProfile(ctx: ActionContext, actor: string): Promise<{ profile: BskyProfile | null; url: string }> {
  const url = `${APPVIEW}/xrpc/app.bsky.actor.getProfile?actor=${encodeUriText(actor)}`
  const res = await ctx.fetch(url, { service: 'Bluesky', headers: { accept: 'application/json' }, timeoutMs: 10_000 })
  if (!res.ok) {
    await res.body?.cancel()
    return { profile: null, url }
  }
  return { profile: readProfile(await readJson(res, 'Bluesky')), url }
}

/** The fields of a getProfile answer the research uses; counts that are not numbers are left out, a profile without a DID and handle is the shape error. */
export function readProfile(body: unknown): BskyProfile {
  const o = objectOf(body, 'Bluesky', 'the profile')
  const did = text(o.did)
  const handle = text(o.handle)
  if (did === null || handle === null) throw shapeError('Bluesky', 'the profile has no did and handle')
  const profile: BskyProfile = { did, handle }
  const displayName = text(o.displayName)
  if (displayName !== null) profile.displayName = displayName
  for (const key of ['followersCount', 'followsCount', 'postsCount'] as const) {
    const n = finite(o[key])
    if (n !== null) profile[key] = n
  }
  return profile
}
