/**
 * The credentials an outbound request carries, as text an upstream could echo back. Upstreams quote
 * requests in their errors ("Incorrect API key provided: sk-..."), and those errors reach run records,
 * answers and logs; whoever scrubs them needs the values. Found by header, not by provider, so a new
 * client's key is covered without anyone remembering to register it.
 */

/**
 * Shorter values are placeholders, not credentials: a keyless OpenAI-compatible server is sent
 * "Bearer none", and scrubbing "none" would rewrite every answer that says it.
 */
const MIN_CREDENTIAL_CHARS = 8

/** Headers that hold a credential by name (`x-api-key`, `apikey`, `x-cb-user-key`, `x-auth-token` ...). */
const CREDENTIAL_HEADER = /api-?key|token|secret|passw(or)?d|credential|(^|-)(user-)?key$|(^|-)auth(-|$)/i

/**
 * Removes every header that carries a credential (Authorization, Proxy-Authorization, Cookie and
 * those named like a key or token): what a redirect to another origin must not take along, as the
 * Fetch standard drops Authorization there. The host a key was meant for chose where to send us,
 * not where the key goes.
 */
export function dropCredentials(headers: Headers): void {
  for (const name of [...headers.keys()]) {
    if (name === 'authorization' || name === 'proxy-authorization' || name === 'cookie' || CREDENTIAL_HEADER.test(name)) headers.delete(name)
  }
}

/** Text of a Basic credential: "user:password" from its base64, or null when it is not that. */
function basicText(encoded: string): string | null {
  try {
    const binary = atob(encoded)
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)))
  } catch {
    return null
  }
}

/**
 * Every credential value in `headers`: an Authorization header whole and its token (for Basic, also
 * "user:password" and the password), and the value of each header named like a credential.
 * @example credentialValues(new Headers({ authorization: 'Bearer sk-0123456789' })) // ['Bearer sk-0123456789', 'sk-0123456789']
 */
export function credentialValues(headers: Headers): string[] {
  const out: string[] = []
  headers.forEach((value, name) => {
    if (name === 'authorization' || name === 'proxy-authorization') {
      const m = /^(\S+)[ \t]+(\S.*)$/.exec(value)
      out.push(value)
      if (!m) return
      out.push(m[2])
      if (m[1].toLowerCase() !== 'basic') return
      const text = basicText(m[2].trim())
      if (text === null) return
      out.push(text)
      const colon = text.indexOf(':')
      if (colon >= 0) out.push(text.slice(colon + 1))
    } else if (CREDENTIAL_HEADER.test(name)) out.push(value)
  })
  return out.filter((v) => v.trim().length >= MIN_CREDENTIAL_CHARS)
}
