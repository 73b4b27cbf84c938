const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Base62 of bytes, padded like src/lib/ids.ts bytesToBase62 (43 characters for 32 bytes). */
export function base62(bytes) {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out
    n /= 62n
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0')
}
