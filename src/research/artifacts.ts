import { newId } from '../lib/ids'

/** Stored artifacts (screenshots, timeline SVGs) live this long in KV. */
const ARTIFACT_TTL_SECONDS = 30 * 24 * 3600

const key = (accountId: string, id: string) => `artifact:${accountId}:${id}`

/** Stores bytes for an account; returns the artifact id and the path the owner fetches it from. */
export async function putArtifact(cache: KVNamespace, accountId: string, body: Uint8Array | string, contentType: string): Promise<{ id: string; url: string }> {
  const id = newId('art')
  await cache.put(key(accountId, id), body, { expirationTtl: ARTIFACT_TTL_SECONDS, metadata: { contentType } })
  return { id, url: `/v1/artifacts/${id}` }
}

/** An artifact of the account, or null (another account's artifact reads as absent). */
export async function getArtifact(cache: KVNamespace, accountId: string, id: string): Promise<{ body: ArrayBuffer; contentType: string } | null> {
  if (!/^art_[A-Za-z0-9]{1,64}$/.test(id)) return null
  const got = await cache.getWithMetadata<{ contentType: string }>(key(accountId, id), 'arrayBuffer')
  if (!got.value) return null
  return { body: got.value, contentType: got.metadata?.contentType ?? 'application/octet-stream' }
}
