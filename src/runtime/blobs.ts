/**
 * JSON values of any size for D1 rows: small ones inline, large ones (D1 caps a row at 2 MB) in KV
 * behind a marker. Used for run outputs and variable values.
 */
const INLINE_LIMIT = 512 * 1024
const MARKER = '{"$kv":'

export async function encodeJson(cache: KVNamespace, key: string, value: unknown): Promise<string> {
  const text = JSON.stringify(value ?? null)
  if (text.length <= INLINE_LIMIT) return text
  await cache.put(`blob:${key}`, text)
  return JSON.stringify({ $kv: `blob:${key}` })
}

/** True when `text` (from encodeJson) is the value's JSON itself rather than a pointer to KV. */
export function isInlineJson(text: string): boolean {
  return !text.startsWith(MARKER)
}

export async function decodeJson(cache: KVNamespace, text: string | null): Promise<unknown> {
  if (text === null) return null
  if (text.startsWith(MARKER)) {
    const { $kv } = JSON.parse(text) as { $kv: string }
    const stored = await cache.get($kv)
    if (stored === null) throw new Error(`stored value ${$kv} is missing from KV`)
    return JSON.parse(stored)
  }
  return JSON.parse(text)
}
