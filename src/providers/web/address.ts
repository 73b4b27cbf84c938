import { UnsafeUrlError } from '../errors'

/** Parses a dotted IPv4 literal as normalized by the URL parser ("127.0.0.1"). */
function parseIPv4(host: string): number[] | null {
  const parts = host.split('.')
  if (parts.length !== 4) return null
  const nums = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN))
  return nums.every((n) => n >= 0 && n <= 255) ? nums : null
}

function ipv4Blocked([a, b, c]: number[]): string | null {
  if (a === 0) return 'a "this network" address'
  if (a === 10) return 'a private address'
  if (a === 127) return 'a loopback address'
  if (a === 169 && b === 254) return 'a link-local or cloud metadata address'
  if (a === 172 && b >= 16 && b <= 31) return 'a private address'
  if (a === 192 && b === 168) return 'a private address'
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT address'
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'a reserved address'
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address'
  if (a === 198 && b === 51 && c === 100) return 'a documentation address'
  if (a === 203 && b === 0 && c === 113) return 'a documentation address'
  if (a >= 224) return 'a multicast or reserved address'
  return null
}

/** Expands an IPv6 literal (without brackets) to eight 16-bit groups. */
function parseIPv6(host: string): number[] | null {
  let text = host.toLowerCase().split('%')[0]
  const lastColon = text.lastIndexOf(':')
  const last = text.slice(lastColon + 1)
  if (last.includes('.')) {
    const v4 = parseIPv4(last)
    if (!v4) return null
    text = text.slice(0, lastColon + 1) + ((v4[0] << 8) | v4[1]).toString(16) + ':' + ((v4[2] << 8) | v4[3]).toString(16)
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)))
  const head = parse(halves[0])
  const rest = halves.length === 2 ? parse(halves[1]) : []
  const fill = 8 - head.length - rest.length
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null
  const groups = [...head, ...Array<number>(fill).fill(0), ...rest]
  return groups.every((g) => Number.isInteger(g)) ? groups : null
}

function ipv6Blocked(g: number[]): string | null {
  if (g.every((x) => x === 0)) return 'the unspecified address'
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'a loopback address'
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96) embed an IPv4 address.
  const embedsV4 =
    (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
  if (embedsV4) {
    const v4 = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff]
    return ipv4Blocked(v4) ?? null
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local (private) address'
  if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address'
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address'
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'a documentation address'
  // 6to4 (2002::/16) embeds an IPv4 address in groups 1-2.
  if (g[0] === 0x2002) return ipv4Blocked([g[1] >> 8, g[1] & 0xff, g[2] >> 8, g[2] & 0xff])
  return null
}

const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /\.local$/, /\.internal$/, /\.home\.arpa$/, /^metadata$/, /^metadata\.google\.internal$/]

/**
 * Checks a URL for outbound use: http(s) only, no credentials, no private, loopback, link-local,
 * CGNAT, metadata or reserved addresses in any literal form the URL parser accepts (decimal, octal
 * and hex IPv4 are normalized by it first). `allowPrivate` is for local development and tests only;
 * `field` names the request field the URL came from, so the 400 can name it.
 */
export function assertPublicUrl(raw: string | URL, allowPrivate: boolean, field?: string): URL {
  const text = String(raw)
  try {
    return checkUrl(text, allowPrivate)
  } catch (err) {
    if (field && err instanceof UnsafeUrlError) throw new UnsafeUrlError(err.url, err.reason, field)
    throw err
  }
}

function checkUrl(text: string, allowPrivate: boolean): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UnsafeUrlError(text, 'it is not a valid absolute URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeUrlError(text, `the scheme ${url.protocol} is not allowed (http and https only)`)
  if (url.username || url.password) throw new UnsafeUrlError(text, 'URLs with credentials are not allowed')
  if (url.port && !/^\d+$/.test(url.port)) throw new UnsafeUrlError(text, 'the port is not valid')
  if (allowPrivate) return url
  const host = url.hostname.toLowerCase().replace(/\.+$/, '')
  if (host === '') throw new UnsafeUrlError(text, 'the host is empty')
  if (host.startsWith('[')) {
    const groups = parseIPv6(host.slice(1, -1))
    if (!groups) throw new UnsafeUrlError(text, 'the IPv6 address is not valid')
    const reason = ipv6Blocked(groups)
    if (reason) throw new UnsafeUrlError(text, `the host is ${reason}`)
    return url
  }
  const v4 = parseIPv4(host)
  if (v4) {
    const reason = ipv4Blocked(v4)
    if (reason) throw new UnsafeUrlError(text, `the host is ${reason}`)
    return url
  }
  if (/^[\d.]+$/.test(host) || /^0x/i.test(host)) throw new UnsafeUrlError(text, 'the host is not a valid address')
  if (BLOCKED_NAMES.some((re) => re.test(host))) throw new UnsafeUrlError(text, 'the host name is local or internal')
  if (!host.includes('.')) throw new UnsafeUrlError(text, 'the host name has no domain (single-label names are internal)')
  return url
}
