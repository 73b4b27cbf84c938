import { UpstreamError } from '../errors'
import { readJson, readText, type GuardedFetch } from '../web/fetch'
import { isDid, pdsEndpoint } from './identity'
import { xrpcError, type XrpcCall } from './transform'
import { parseJson } from '../../lib/json-depth'
import { record as fieldsOf } from '../shape'

const SERVICE = 'Bluesky PDS'

/** A logged-in session. The tokens live only in memory for the length of one action call. */
export interface Session {
  pds: string
  did: string
  handle: string
  accessJwt: string
  refreshJwt: string
}

/** A blob reference as uploadBlob returns it and records embed it. */
export interface BlobRef {
  $type: 'blob'
  ref: { $link: string }
  mimeType: string
  size: number
}

async function failure(call: XrpcCall, res: Response, secrets: readonly string[]): Promise<Error> {
  let body: unknown
  try {
    body = parseJson(await readText(res, SERVICE))
  } catch {
    body = null
  }
  return xrpcError(call, res.status, body, res.headers, secrets)
}

/** The tokens go into an Authorization header: CR, LF, NUL or non-Latin-1 text would make Headers throw, and blanks get trimmed. */
function isBearerToken(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,8192}$/.test(value)
}

/**
 * Logs in with com.atproto.server.createSession. The password is sent once, in the body, and
 * kept nowhere; failures never repeat it. Posting goes to the PDS named in the returned DID
 * document when there is one (an entryway such as bsky.social hands accounts to their PDS).
 */
export async function createSession(fetch: GuardedFetch, pds: string, identifier: string, password: string): Promise<Session> {
  const res = await fetch(`${pds}/xrpc/com.atproto.server.createSession`, {
    method: 'POST',
    service: SERVICE,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier, password }),
    timeoutMs: 10_000,
  })
  if (!res.ok) throw await failure('login', res, [password])
  // record(): an answer that is not an object (null, a list) has none of the fields and fails the checks below.
  const body = fieldsOf(await readJson(res, SERVICE))
  if (!isDid(body.did) || !isBearerToken(body.accessJwt) || !isBearerToken(body.refreshJwt)) {
    throw new UpstreamError(SERVICE, 'invalid', 'The PDS answered the login without a DID and tokens')
  }
  return {
    pds: pdsEndpoint(body.didDoc) ?? pds,
    did: body.did,
    // A PDS reports 'handle.invalid' when the handle no longer resolves to the account; the DID still addresses it.
    handle: typeof body.handle === 'string' && body.handle !== 'handle.invalid' ? body.handle : body.did,
    accessJwt: body.accessJwt,
    refreshJwt: body.refreshJwt,
  }
}

/** Creates a record with com.atproto.repo.createRecord; returns its at:// URI and CID. */
export async function createRecord(fetch: GuardedFetch, session: Session, collection: string, record: Record<string, unknown>): Promise<{ uri: string; cid: string }> {
  const res = await fetch(`${session.pds}/xrpc/com.atproto.repo.createRecord`, {
    method: 'POST',
    service: SERVICE,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessJwt}` },
    body: JSON.stringify({ repo: session.did, collection, record }),
    timeoutMs: 15_000,
  })
  if (!res.ok) throw await failure('post', res, [session.accessJwt])
  const body = fieldsOf(await readJson(res, SERVICE))
  if (typeof body.uri !== 'string' || !body.uri.startsWith('at://') || typeof body.cid !== 'string') {
    throw new UpstreamError(SERVICE, 'invalid', 'The PDS answered createRecord without a URI and CID')
  }
  return { uri: body.uri, cid: body.cid }
}

/** Uploads an image with com.atproto.repo.uploadBlob (safe to retry: the same bytes give the same blob). */
export async function uploadBlob(fetch: GuardedFetch, session: Session, bytes: ArrayBuffer, mimeType: string): Promise<BlobRef> {
  const res = await fetch(`${session.pds}/xrpc/com.atproto.repo.uploadBlob`, {
    method: 'POST',
    service: SERVICE,
    headers: { 'content-type': mimeType, authorization: `Bearer ${session.accessJwt}` },
    body: bytes,
    idempotent: true,
    timeoutMs: 15_000,
  })
  if (!res.ok) throw await failure('upload', res, [session.accessJwt])
  const blob = fieldsOf(await readJson(res, SERVICE)).blob as Partial<BlobRef> | undefined
  if (!blob || blob.$type !== 'blob' || typeof blob.ref?.$link !== 'string' || typeof blob.mimeType !== 'string' || !Number.isSafeInteger(blob.size) || (blob.size as number) < 0) {
    throw new UpstreamError(SERVICE, 'invalid', 'The PDS answered uploadBlob without a blob reference')
  }
  return { $type: 'blob', ref: { $link: blob.ref.$link }, mimeType: blob.mimeType, size: blob.size as number }
}

/** Ends the session (com.atproto.server.deleteSession) so its tokens stop working; failures are ignored. */
export async function deleteSession(fetch: GuardedFetch, session: Session): Promise<void> {
  try {
    const res = await fetch(`${session.pds}/xrpc/com.atproto.server.deleteSession`, {
      method: 'POST',
      service: SERVICE,
      headers: { authorization: `Bearer ${session.refreshJwt}` },
      timeoutMs: 5000,
      retries: 0,
    })
    res.body?.cancel().catch(() => undefined)
  } catch {
    // The tokens expire on their own; a failed logout must not fail a post that went out.
  }
}
