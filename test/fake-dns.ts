/**
 * A fake DNS-over-HTTPS resolver (the JSON API of cloudflare-dns.com and dns.google) for tests: the
 * outbound service of the test Worker answers it (vitest.config.ts), so the SSRF check resolves
 * every outbound host name as it does in production. Names under `.rebind.test` answer what their
 * table says; every other name resolves to one public address.
 */

/** The resolver the test Worker is configured with (OUTBOUND_DOH_URL). */
export const TEST_DOH_URL = 'https://dns.test/dns-query'
/** The DNS check for guarded fetches a test builds itself. */
export const TEST_DNS = { mode: 'doh', url: TEST_DOH_URL } as const
export const PUBLIC_ADDRESS = '93.184.215.14'

type Record = [type: 'A' | 'AAAA' | 'CNAME', data: string]
type Behaviour = { records: Record[] } | { status: number } | { http: number } | { garbage: true }

const A = (data: string): Record => ['A', data]
const AAAA = (data: string): Record => ['AAAA', data]
const CNAME = (data: string): Record => ['CNAME', data]

/** Names whose answers are private or special-purpose: every one must be refused. */
export const PRIVATE_NAMES: { [name: string]: Record[] } = {
  'loopback.rebind.test': [A('127.0.0.1')],
  'private10.rebind.test': [A('10.0.0.5')],
  'private192.rebind.test': [A('192.168.1.20')],
  'metadata.rebind.test': [A('169.254.169.254')],
  'cgnat.rebind.test': [A('100.64.1.1')],
  'this-network.rebind.test': [A('0.0.0.0')],
  'nat64-discovery.rebind.test': [A('192.0.0.170')],
  'reserved.rebind.test': [A('240.1.2.3')],
  'v6-loopback.rebind.test': [AAAA('::1')],
  'v6-mapped.rebind.test': [AAAA('::ffff:127.0.0.1')],
  'v6-mapped-hex.rebind.test': [AAAA('::FFFF:A9FE:A9FE')],
  'v6-mapped-public.rebind.test': [AAAA('::ffff:93.184.215.14')],
  'v6-nat64.rebind.test': [AAAA('64:ff9b::a00:1')],
  'v6-nat64-local.rebind.test': [AAAA('64:ff9b:1::c0a8:1')],
  'v6-ula.rebind.test': [AAAA('fd12:3456:0:0:0:0:0:1')],
  'v6-linklocal.rebind.test': [AAAA('fe80::1')],
  'v6-6to4.rebind.test': [AAAA('2002:7f00:1::1')],
  'v6-teredo.rebind.test': [AAAA('2001:0:4136:e378:8000:63bf:3fff:fdd2')],
  'v6-documentation.rebind.test': [AAAA('2001:db8::1')],
  'cname-chain.rebind.test': [CNAME('hop1.rebind.test.'), CNAME('hop2.rebind.test.'), A('192.168.7.7')],
  'cname-internal.rebind.test': [CNAME('metadata.google.internal.')],
  'cname-localhost.rebind.test': [CNAME('localhost.'), A('127.0.0.1')],
  'mixed.rebind.test': [A(PUBLIC_ADDRESS), A('127.0.0.1')],
  'mixed-v6.rebind.test': [A(PUBLIC_ADDRESS), AAAA('fd00::1')],
}

/** Names the resolver cannot answer for: each must be refused with a message saying the lookup failed. */
export const FAILING_NAMES: { [name: string]: Behaviour } = {
  'nxdomain.rebind.test': { status: 3 },
  'servfail.rebind.test': { status: 2 },
  'noaddress.rebind.test': { records: [] },
  'resolver-down.rebind.test': { http: 503 },
  'resolver-garbage.rebind.test': { garbage: true },
}

const TYPES = { A: 1, CNAME: 5, AAAA: 28 } as const

function behaviour(name: string): Behaviour {
  if (name in PRIVATE_NAMES) return { records: PRIVATE_NAMES[name] }
  return FAILING_NAMES[name] ?? { records: [A(PUBLIC_ADDRESS)] }
}

/** The fake resolver's answer to a DoH JSON query, or null when the request is not one. */
export function fakeDnsAnswer(request: Request): Response | null {
  const url = new URL(request.url)
  if (`${url.origin}${url.pathname}` !== TEST_DOH_URL) return null
  const name = (url.searchParams.get('name') ?? '').toLowerCase().replace(/\.$/, '')
  const type = url.searchParams.get('type') === 'AAAA' ? 'AAAA' : 'A'
  const b = behaviour(name)
  if ('http' in b) return new Response('resolver unavailable', { status: b.http })
  if ('garbage' in b) return new Response('<html>not a DNS answer</html>', { status: 200, headers: { 'content-type': 'text/html' } })
  const status = 'status' in b ? b.status : 0
  const records = 'records' in b ? b.records.filter(([t]) => t === 'CNAME' || t === type) : []
  const body = {
    Status: status,
    TC: false,
    RD: true,
    RA: true,
    AD: false,
    CD: false,
    Question: [{ name: `${name}.`, type: TYPES[type] }],
    ...(records.length ? { Answer: records.map(([t, data]) => ({ name: `${name}.`, type: TYPES[t], TTL: 300, data })) } : {}),
  }
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/dns-json' } })
}

/** Wraps a test's own fetcher so the fake resolver answers DNS queries and the fetcher sees only the rest. */
export function withFakeDns(fetcher: typeof fetch): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const dns = fakeDnsAnswer(new Request(input, init))
    return dns ?? fetcher(input, init)
  }) as typeof fetch
}
