const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Base62 text of random bytes (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2))
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62]
    }
  }
  return out
}

/** Base62 encoding of arbitrary bytes (big-endian), used for token secrets. */
export function bytesToBase62(bytes: Uint8Array): string {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out
    n /= 62n
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), '0')
}

/**
 * Prefixed id for an internal record.
 * @example newId('run') // "run_4fK2..."
 */
export function newId(prefix: 'acc' | 'team' | 'tok' | 'run' | 'crm' | 'art'): string {
  return `${prefix}_${randomBase62(20)}`
}

/** Alphanumeric agent id (the spec requires alphanumeric ids for agents). */
export function newAgentId(): string {
  return randomBase62(16)
}
