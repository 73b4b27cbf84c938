import { UnsafeUrlError } from '../errors'

/** What a refusal of a private target adds, so a developer knows the switch (never set it in production). */
export const PRIVATE_FETCH_HINT = 'for local development, allow private targets with ALLOW_PRIVATE_FETCH=true (npm run dev -- --var ALLOW_PRIVATE_FETCH:true)'

/**
 * IANA's IPv4 special-purpose address registry (RFC 6890 and its updates), plus multicast and the
 * reserved block: none of these is a public web server, so every one is refused, including the few
 * the registry marks globally reachable (AS112, AMT, the 6to4 relay anycast).
 */
const V4_SPECIAL: [string, string][] = [
  ['0.0.0.0/8', 'a "this network" address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local or cloud metadata address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol assignment (NAT64 discovery, DS-Lite)'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.31.196.0/24', 'an AS112 DNS sink address'],
  ['192.52.193.0/24', 'an AMT relay address'],
  ['192.88.99.0/24', 'a 6to4 relay anycast address'],
  ['192.168.0.0/16', 'a private address'],
  ['192.175.48.0/24', 'an AS112 DNS sink address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
]

/**
 * IANA's IPv6 special-purpose address registry, with the forms that carry an IPv4 address (`v4`:
 * the bit offset of the embedded address). Anything outside 2000::/3, the only block allocated for
 * global unicast, is refused too (`OUTSIDE_GLOBAL`).
 */
const V6_SPECIAL: [string, string, number?][] = [
  ['::/128', 'the unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::ffff:0:0/96', 'an IPv4-mapped IPv6 address', 96],
  ['::/96', 'an IPv4-compatible IPv6 address', 96],
  ['64:ff9b::/96', 'a NAT64 (IPv4-translated) address', 96],
  ['64:ff9b:1::/48', 'a local-use NAT64 address', 96],
  ['100::/64', 'a discard-only address'],
  ['100:0:0:1::/64', 'a dummy IPv6 prefix address'],
  ['2001::/32', 'a Teredo tunnel address'],
  ['2001::/23', 'an IETF protocol assignment (PCP/TURN anycast, benchmarking, AMT, AS112, ORCHID)'],
  ['2001:db8::/32', 'a documentation address'],
  ['2002::/16', 'a 6to4 address', 16],
  ['2620:4f:8000::/48', 'an AS112 DNS sink address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'a segment-routing address'],
  ['fc00::/7', 'a unique-local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]
const OUTSIDE_GLOBAL = 'an address outside the global unicast range 2000::/3'

/** Canonical dotted IPv4 ("127.0.0.1": four decimal parts, no leading zeros), as URLs and DNS answers write it. */
function parseIPv4(text: string): number | null {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return null
  return parts.reduce((n, p) => n * 256 + Number(p), 0)
}

/** An IPv6 address in any textual form of RFC 4291 (compressed, leading zeros, any case, dotted IPv4 tail) as a 128-bit number. */
function parseIPv6(text: string): bigint | null {
  let body = text.toLowerCase()
  let words = 8
  let tail = 0n
  const lastColon = body.lastIndexOf(':')
  if (lastColon < 0) return null
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(body.slice(lastColon + 1))
    if (v4 === null) return null
    tail = BigInt(v4)
    words = 6
    body = body.slice(0, lastColon + 1)
    if (!body.endsWith('::')) body = body.slice(0, -1)
  }
  const halves = body.split('::')
  if (halves.length > 2) return null
  const groups = (s: string) => (s === '' ? [] : s.split(':'))
  const head = groups(halves[0])
  const rest = halves.length === 2 ? groups(halves[1]) : []
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null
  const fill = words - head.length - rest.length
  if (halves.length === 1 ? fill !== 0 : fill < 1) return null
  const all = [...head, ...Array<string>(fill).fill('0'), ...rest]
  const n = all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n)
  return words === 6 ? (n << 32n) | tail : n
}

interface Range<N> {
  base: N
  mask: N
  what: string
  v4?: number
}

function v4Range([cidr, what]: [string, string]): Range<number> {
  const [addr, bits] = cidr.split('/')
  const mask = Number(bits) === 0 ? 0 : (0xffffffff << (32 - Number(bits))) >>> 0
  return { base: parseIPv4(addr)!, mask, what }
}

function v6Range([cidr, what, v4]: [string, string, number?]): Range<bigint> {
  const [addr, bits] = cidr.split('/')
  const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - Number(bits))) - 1n)
  return { base: parseIPv6(addr)!, mask, what, v4 }
}

const V4_RANGES = V4_SPECIAL.map(v4Range)
const V6_RANGES = V6_SPECIAL.map(v6Range)
const GLOBAL_UNICAST = v6Range(['2000::/3', ''])

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')

function v4Refusal(n: number): string | null {
  return V4_RANGES.find((r) => (n & r.mask) >>> 0 === r.base)?.what ?? null
}

function v6Refusal(n: bigint): string | null {
  const range = V6_RANGES.find((r) => (n & r.mask) === r.base)
  if (range) {
    if (range.v4 === undefined) return range.what
    const embedded = Number((n >> BigInt(128 - range.v4 - 32)) & 0xffffffffn)
    const inner = v4Refusal(embedded)
    return `${range.what} (of ${dotted(embedded)}${inner ? `, ${inner}` : ''})`
  }
  return (n & GLOBAL_UNICAST.mask) === GLOBAL_UNICAST.base ? null : OUTSIDE_GLOBAL
}

/**
 * Why an IP address (as text, in any IPv4 dotted or IPv6 form) may not be fetched, or null for a
 * public address. Text that is not an address is refused too: an answer that cannot be checked is
 * not trusted.
 * @example addressRefusal('::ffff:127.0.0.1') // 'an IPv4-mapped IPv6 address (of 127.0.0.1, a loopback address)'
 */
export function addressRefusal(text: string): string | null {
  const v4 = parseIPv4(text)
  if (v4 !== null) return v4Refusal(v4)
  const v6 = text.includes(':') ? parseIPv6(text.replace(/^\[|\]$/g, '')) : null
  if (v6 !== null) return v6Refusal(v6)
  return `not an IP address (${JSON.stringify(text.slice(0, 60))})`
}

const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /\.local$/, /\.internal$/, /\.home\.arpa$/, /^metadata$/, /^metadata\.google\.internal$/]

/** Why a host name is local or internal by its name alone (no lookup needed), or null. */
export function nameRefusal(host: string): string | null {
  // A host name may be a long run of dots: the lookbehind starts the trailing run once, not at each dot.
  const name = host.toLowerCase().replace(/(?<!\.)\.+$/, '')
  if (BLOCKED_NAMES.some((re) => re.test(name))) return 'the host name is local or internal'
  if (!name.includes('.')) return 'the host name has no domain (single-label names are internal)'
  return null
}

/** True when a URL's host is an IP literal rather than a name to resolve. */
export function isIpLiteral(url: URL): boolean {
  return url.hostname.startsWith('[') || parseIPv4(url.hostname) !== null
}

/**
 * Checks a URL for outbound use: http(s) only, no credentials, no special-purpose address (private,
 * loopback, link-local, CGNAT, metadata, documentation, reserved; IPv4-mapped, NAT64, 6to4 and
 * every other IPv6 form outside global unicast) in any literal form the URL parser accepts (decimal,
 * octal and hex IPv4 are normalized by it first), and no local or internal names. Names are checked
 * by what they resolve to in `resolvePublicHost` (dns.ts). `allowPrivate` is for local development
 * and tests only; `field` names the request field the URL came from, so the 400 can name it.
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
  const host = url.hostname.toLowerCase().replace(/(?<!\.)\.+$/, '')
  if (host === '') throw new UnsafeUrlError(text, 'the host is empty')
  if (host.startsWith('[') || parseIPv4(host) !== null) {
    const reason = addressRefusal(host)
    if (reason) throw new UnsafeUrlError(text, `the host is ${reason}; ${PRIVATE_FETCH_HINT}`)
    return url
  }
  if (/^[\d.]+$/.test(host) || /^0x/i.test(host)) throw new UnsafeUrlError(text, 'the host is not a valid address')
  const named = nameRefusal(host)
  if (named) throw new UnsafeUrlError(text, `${named}; ${PRIVATE_FETCH_HINT}`)
  return url
}
