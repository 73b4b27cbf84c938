import { ApiError } from '../http/errors'
import { assertPublicUrl } from '../providers/web/address'

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

function invalid(message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `domain ${message}`, [{ path: '/domain', message }])
}

/**
 * Normalizes a company domain: drops an http(s) scheme, a trailing slash, `www.`, trailing dots and
 * case; converts IDN to punycode. Rejects IP addresses, URLs with a path, query or port, and
 * anything that is not a domain name, and names that only exist inside a network (`localhost`,
 * `.local`, `.internal` ...), with a 400 naming the field.
 * @example normalizeDomain('https://WWW.Bücher.de/') // 'xn--bcher-kva.de'
 */
export function normalizeDomain(raw: string): string {
  let text = raw.trim()
  if (text === '') throw invalid('is empty')
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)
  if (scheme) {
    if (!/^https?$/i.test(scheme[1])) throw invalid(`must be a bare domain name, not a ${scheme[1]}: URL`)
    text = text.slice(scheme[0].length)
  }
  text = text.replace(/\/$/, '')
  if (/[/?#@\s]/.test(text)) throw invalid('must be a bare domain name without a path, query, credentials or spaces (e.g. "example.com")')
  if (/:\d*$/.test(text) || text.startsWith('[')) throw invalid('must be a bare domain name without a port or IP address')
  let host: string
  try {
    host = new URL(`http://${text}/`).hostname
  } catch {
    throw invalid('is not a valid domain name')
  }
  host = host.toLowerCase().replace(/(?<!\.)\.+$/, '')
  if (/^[\d.]+$/.test(host) || host.includes(':')) throw invalid('must be a domain name, not an IP address')
  if (host.startsWith('www.')) host = host.slice(4)
  const labels = host.split('.')
  if (labels.length < 2 || host.length > 253) throw invalid('must be a domain name with at least two labels, such as "example.com"')
  if (!labels.every((l) => LABEL.test(l)) || !TLD.test(labels[labels.length - 1])) throw invalid('is not a valid domain name')
  // Names that only exist inside a network (localhost, .local, .internal ...) are refused like private addresses.
  try {
    assertPublicUrl(`https://${host}/`, false)
  } catch (err) {
    const reason = (err as Error).message.replace(/^Refusing to fetch [^:]+: /, '')
    throw new ApiError('UNSAFE_URL', `domain ${host} is refused: ${reason}`, [{ path: '/domain', message: reason }])
  }
  return host
}

/** True when `url`'s host is `domain` or a subdomain of it (www. ignored). */
export function hostMatches(url: string, domain: string): boolean {
  try {
    const host = new URL(url).hostname
      .toLowerCase()
      .replace(/(?<!\.)\.+$/, '')
      .replace(/^www\./, '')
    return host === domain || host.endsWith(`.${domain}`)
  } catch {
    return false
  }
}
