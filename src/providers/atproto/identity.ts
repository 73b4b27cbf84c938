import type { Env } from '../../env'
import type { GuardedFetch } from '../web/fetch'
import { isValidHandle } from './richtext'
import { parseJson } from '../../lib/json-depth'
import { recordsOf, type DohAnswer } from '../dns/transform'
import { encodeUriText } from '../../lib/text'

const SERVICE = 'AT Protocol identity'
const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]+$/

/** The settings identity resolution uses, with their defaults. */
export interface AtprotoSettings {
  pdsUrl: string
  plcUrl: string
  dohUrl: string
}

function baseUrl(value: string | undefined, fallback: string): string {
  const text = value?.trim() || fallback
  return text.replace(/(?<!\/)\/+$/, '')
}

/** ATPROTO_PDS_URL, ATPROTO_PLC_URL and ATPROTO_DOH_URL with their defaults. */
export function atprotoSettings(env: Env): AtprotoSettings {
  return {
    pdsUrl: baseUrl(env.ATPROTO_PDS_URL, 'https://bsky.social'),
    plcUrl: baseUrl(env.ATPROTO_PLC_URL, 'https://plc.directory'),
    dohUrl: baseUrl(env.ATPROTO_DOH_URL, 'https://cloudflare-dns.com/dns-query'),
  }
}

/** What a `username` is: an email (log in at the default PDS), a DID, or a handle. */
export type Identifier = { kind: 'email'; value: string } | { kind: 'did'; value: string } | { kind: 'handle'; value: string }

/** Classifies and normalizes a username ("@Alice.bsky.social" becomes the handle "alice.bsky.social"); null when it is none of the three. */
export function parseIdentifier(username: string): Identifier | null {
  const text = username.trim()
  // The domain splits at its first "." after the first character, so a run of dots is not tried at every split.
  if (/^[^\s@]+@[^\s@][^\s@.]*\.[^\s@]+$/.test(text)) return { kind: 'email', value: text }
  if (DID.test(text)) return { kind: 'did', value: text }
  const handle = text.replace(/^@/, '').toLowerCase()
  return isValidHandle(handle) ? { kind: 'handle', value: handle } : null
}

/** True for a DID string. */
export function isDid(value: unknown): value is string {
  return typeof value === 'string' && DID.test(value)
}

const QUICK = { service: SERVICE, timeoutMs: 5000, retries: 1, maxBytes: 256 * 1024 }

async function jsonOrNull(res: Response): Promise<unknown> {
  if (!res.ok) {
    res.body?.cancel().catch(() => undefined)
    return null
  }
  try {
    return parseJson(await res.text())
  } catch {
    return null
  }
}

async function viaPds(fetch: GuardedFetch, pdsUrl: string, handle: string): Promise<string | null> {
  const res = await fetch(`${pdsUrl}/xrpc/com.atproto.identity.resolveHandle?handle=${encodeUriText(handle)}`, QUICK)
  const body = (await jsonOrNull(res)) as { did?: unknown } | null
  return isDid(body?.did) ? body.did : null
}

async function viaDns(fetch: GuardedFetch, dohUrl: string, handle: string): Promise<string | null> {
  const res = await fetch(`${dohUrl}?name=${encodeUriText(`_atproto.${handle}`)}&type=TXT`, { ...QUICK, headers: { accept: 'application/dns-json' } })
  let records: string[]
  try {
    records = recordsOf((await jsonOrNull(res)) as DohAnswer, 'TXT')
  } catch {
    // A resolver's answer of another shape (no object, an Answer that is not a list) holds no DID.
    return null
  }
  const dids = records.filter((txt) => txt.startsWith('did=')).map((txt) => txt.slice(4))
  // More than one distinct DID is ambiguous: the spec says resolution then fails.
  return dids.length && dids.every((d) => d === dids[0]) && isDid(dids[0]) ? dids[0] : null
}

async function viaWellKnown(fetch: GuardedFetch, handle: string): Promise<string | null> {
  const res = await fetch(`https://${handle}/.well-known/atproto-did`, { ...QUICK, maxRedirects: 0 })
  if (!res.ok) {
    res.body?.cancel().catch(() => undefined)
    return null
  }
  const text = (await res.text()).trim()
  return isDid(text) ? text : null
}

/**
 * Resolves a handle to its DID: the PDS's com.atproto.identity.resolveHandle first, then the
 * `_atproto` DNS TXT record (DNS over HTTPS), then https://<handle>/.well-known/atproto-did.
 * Null when none answers; network failures count as no answer.
 */
export async function resolveHandle(fetch: GuardedFetch, settings: AtprotoSettings, handle: string): Promise<string | null> {
  const attempts = [() => viaPds(fetch, settings.pdsUrl, handle), () => viaDns(fetch, settings.dohUrl, handle), () => viaWellKnown(fetch, handle)]
  for (const attempt of attempts) {
    try {
      const did = await attempt()
      if (did) return did
    } catch (err) {
      if ((err as Error).name !== 'UpstreamError' && (err as Error).name !== 'UnsafeUrlError') throw err
    }
  }
  return null
}

/**
 * The `#atproto_pds` service endpoint of a DID document, if it names an https URL: the caller's
 * password and session tokens go there, so a document naming plain http leaves login on the default PDS.
 */
export function pdsEndpoint(didDoc: unknown): string | null {
  const services = (didDoc as { service?: unknown })?.service
  if (!Array.isArray(services)) return null
  for (const s of services as { id?: unknown; type?: unknown; serviceEndpoint?: unknown }[]) {
    if (typeof s?.id !== 'string' || !s.id.endsWith('#atproto_pds') || s.type !== 'AtprotoPersonalDataServer') continue
    if (typeof s.serviceEndpoint !== 'string') continue
    try {
      const url = new URL(s.serviceEndpoint)
      if (url.protocol === 'https:') return url.origin
    } catch {
      continue
    }
  }
  return null
}

/**
 * The host (and port) a did:web names, or null. Only the spec's one escape, %3A for the port colon,
 * is decoded: decoding any other would let "%2F", "%3F", "%23" or "%40" rewrite the path or the host
 * of the request, and a malformed escape would throw. DIDs with path parts are not resolved.
 */
export function didWebHost(did: string): string | null {
  const host = did.slice('did:web:'.length).replace(/%3A/i, ':').toLowerCase()
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9](?::\d{1,5})?$/.test(host) ? host : null
}

/** Reads a DID document: did:plc from the PLC directory, did:web from its /.well-known/did.json. */
export async function didDocument(fetch: GuardedFetch, settings: AtprotoSettings, did: string): Promise<unknown> {
  let url: string
  // A DID may carry "%" escapes; sent raw, "%2F.." would be decoded by the directory into another path.
  // Colons stay literal, as the directory's own URLs spell them.
  if (did.startsWith('did:plc:')) url = `${settings.plcUrl}/${encodeUriText(did).replaceAll('%3A', ':')}`
  else if (did.startsWith('did:web:')) {
    const host = didWebHost(did)
    if (!host) return null
    url = `https://${host}/.well-known/did.json`
  } else return null
  try {
    return await jsonOrNull(await fetch(url, QUICK))
  } catch (err) {
    if ((err as Error).name === 'UpstreamError' || (err as Error).name === 'UnsafeUrlError') return null
    throw err
  }
}
