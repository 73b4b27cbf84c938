const encoder = new TextEncoder()

/** Lowercase hex SHA-256 of a string. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text))
  return toHex(new Uint8Array(digest))
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** Constant-time string comparison (lengths are compared after hashing so they do not leak either). */
export async function safeEqual(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([crypto.subtle.digest('SHA-256', encoder.encode(a)), crypto.subtle.digest('SHA-256', encoder.encode(b))])
  return crypto.subtle.timingSafeEqual(ha, hb)
}

/** HMAC-SHA256 of a message, hex encoded. */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message))))
}

/**
 * An HTTP Basic authorization value, the credentials as UTF-8 (RFC 7617): `btoa` of the text itself
 * throws on any character past Latin-1, which a password may hold.
 */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${b64encode(encoder.encode(`${user}:${password}`))}`
}

function b64encode(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s)
}

function b64decode(text: string): Uint8Array {
  const s = atob(text)
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i)
  return out
}

/** Thrown when ENCRYPTION_KEY is missing or not a base64 32-byte key. */
export class MissingKeyError extends Error {
  constructor(message = 'ENCRYPTION_KEY is not set (a base64 32-byte key)') {
    super(message)
    this.name = 'MissingKeyError'
  }
}

/** Imported keys, kept as keys: a pending import is never shared between requests (lib/isolate-lease.ts). */
const keyCache = new Map<string, CryptoKey>()

async function aesKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new MissingKeyError()
  const cached = keyCache.get(secret)
  if (cached) return cached
  let raw: Uint8Array
  try {
    raw = b64decode(secret.trim())
  } catch {
    throw new MissingKeyError('ENCRYPTION_KEY is not valid base64')
  }
  if (raw.length !== 32) throw new MissingKeyError('ENCRYPTION_KEY must decode to 32 bytes')
  const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt'])
  keyCache.set(secret, key)
  return key
}

/**
 * Seals text with AES-GCM under ENCRYPTION_KEY; `context` is bound as additional data so a sealed
 * value cannot be moved to another record.
 * @example await seal(env.ENCRYPTION_KEY, token, `crm:${accountId}`) // "v1.<iv>.<ciphertext>"
 */
export async function seal(secret: string | undefined, plaintext: string, context: string): Promise<string> {
  const key = await aesKey(secret)
  const iv = crypto.getRandomValues(new Uint8Array(12))
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(context) }, key, encoder.encode(plaintext))
  return `v1.${b64encode(iv)}.${b64encode(new Uint8Array(ct))}`
}

/** Opens a value made by `seal` with the same context. */
export async function open(secret: string | undefined, sealed: string, context: string): Promise<string> {
  const key = await aesKey(secret)
  const [version, iv, ct] = sealed.split('.')
  if (version !== 'v1' || !iv || !ct) throw new Error('sealed value has an unknown format')
  const pt = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: b64decode(iv), additionalData: encoder.encode(context) }, key, b64decode(ct))
  return new TextDecoder().decode(pt)
}
