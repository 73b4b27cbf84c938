import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UnsafeUrlError } from '../src/providers/errors'
import { assertPublicUrl, nameRefusal } from '../src/providers/web/address'
import { lookupPublic } from '../src/providers/web/dns'
import { createGuardedFetch } from '../src/providers/web/fetch'
import { TEST_DNS } from './fake-dns'

/**
 * The class behind every SSRF finding: an address in any special-purpose range, written in any
 * textual form, as a URL literal or as what a name resolves to. The ranges are IANA's IPv4 and IPv6
 * special-purpose registries (RFC 6890 and updates) written out here, apart from the code's table.
 */
const V4_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
]
const V6_RANGES = [
  '::/128',
  '::1/128',
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
]

const v4Parse = (s: string) => s.split('.').reduce((n, p) => n * 256 + Number(p), 0)
const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
function v6Parse(s: string): bigint {
  const [head, tail = ''] = s.split('::')
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n)
}
const groupsOf = (n: bigint) => Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn))

const inV4 = (n: number) =>
  V4_RANGES.some((r) => {
    const [base, bits] = r.split('/')
    const size = 2 ** (32 - Number(bits))
    return n >= v4Parse(base) && n < v4Parse(base) + size
  })
const inV6 = (n: bigint) =>
  n >> 125n !== 1n ||
  V6_RANGES.some((r) => {
    const [base, bits] = r.split('/')
    const shift = BigInt(128 - Number(bits))
    return n >> shift === v6Parse(base) >> shift
  })

/** An address inside one of the ranges (or, for IPv6, anywhere outside global unicast 2000::/3). */
const specialV4 = fc.constantFrom(...V4_RANGES).chain((r) => {
  const [base, bits] = r.split('/')
  return fc.integer({ min: 0, max: 2 ** (32 - Number(bits)) - 1 }).map((host) => v4Parse(base) + host)
})
const specialV6 = fc.oneof(
  fc.constantFrom(...V6_RANGES).chain((r) => {
    const [base, bits] = r.split('/')
    return fc.bigInt({ min: 0n, max: (1n << BigInt(128 - Number(bits))) - 1n }).map((host) => v6Parse(base) | host)
  }),
  fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).filter((n) => n >> 125n !== 1n),
)
const publicV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).filter((n) => !inV4(n))
const publicV6 = fc.bigInt({ min: 1n << 125n, max: (2n << 125n) - 1n }).filter((n) => !inV6(n))

/** The textual forms of an IPv4 address that a URL parser accepts (it normalizes them all). */
const v4UrlForm = (n: number) =>
  fc.constantFrom(
    v4Text(n),
    String(n),
    `0x${n.toString(16)}`,
    v4Text(n)
      .split('.')
      .map((p) => `0${Number(p).toString(8)}`)
      .join('.'),
    v4Text(n)
      .split('.')
      .map((p) => `0x${Number(p).toString(16)}`)
      .join('.'),
    `${n >>> 24}.${(n >>> 16) & 255}.${n & 0xffff}`,
    `${n >>> 24}.${n & 0xffffff}`,
  )

/** Groups with the longest run of two or more zero groups written as "::". */
function compress(hex: string[]): string {
  let best = -1
  let bestLen = 1
  for (let i = 0; i < hex.length;) {
    let j = i
    while (j < hex.length && hex[j] === '0') j++
    if (j - i > bestLen) [best, bestLen] = [i, j - i]
    i = Math.max(j, i + 1)
  }
  return best < 0 ? hex.join(':') : `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`
}

/** The textual forms of RFC 4291: full, leading zeros, upper case, compressed, dotted IPv4 tail. */
const v6Form = (n: bigint) => {
  const g = groupsOf(n)
  const hex = g.map((x) => x.toString(16))
  const tail = `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`
  const head = compress(hex.slice(0, 6))
  return fc.constantFrom(
    hex.join(':'),
    g.map((x) => x.toString(16).padStart(4, '0')).join(':'),
    hex.join(':').toUpperCase(),
    compress(hex),
    compress(hex).toUpperCase(),
    `${hex.slice(0, 6).join(':')}:${tail}`,
    head.endsWith('::') ? `${head}${tail}` : `${head}:${tail}`,
  )
}

let checked = 0
let sampleName = 0

/** A guarded fetch whose resolver answers `data` for every name; records what else it is asked. */
function resolvingTo(type: 'A' | 'AAAA', data: string, requested: string[]) {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: (async (input: RequestInfo | URL) => {
      const url = new URL(String(input))
      if (url.origin + url.pathname === TEST_DNS.url) {
        const asked = url.searchParams.get('type')
        const Answer = asked === type ? [{ name: url.searchParams.get('name'), type: type === 'A' ? 1 : 28, TTL: 30, data }] : []
        return Response.json({ Status: 0, Answer })
      }
      requested.push(url.toString())
      return new Response('reached')
    }) as typeof fetch,
  })
}

describe('SSRF by address class', () => {
  it('refuses every special-purpose IPv4 address in every form a URL accepts', () => {
    fc.assert(
      fc.property(
        specialV4.chain((n) => v4UrlForm(n).map((form) => [n, form] as const)),
        ([, form]) => {
          checked++
          expect(() => assertPublicUrl(`http://${form}/x`, false)).toThrow(UnsafeUrlError)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('refuses every special-purpose IPv6 address (and all outside 2000::/3) in every textual form', () => {
    fc.assert(
      fc.property(
        specialV6.chain((n) => v6Form(n)),
        (form) => {
          checked++
          expect(() => assertPublicUrl(`http://[${form}]/x`, false)).toThrow(UnsafeUrlError)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('refuses a name whose A or AAAA answer is special-purpose, in any form the resolver writes it, sending nothing', async () => {
    const answers = fc.oneof(
      specialV4.map((n) => ['A', v4Text(n)] as const),
      specialV6.chain((n) => v6Form(n).map((f) => ['AAAA', f] as const)),
    )
    await fc.assert(
      fc.asyncProperty(answers, async ([type, data]) => {
        checked++
        const requested: string[] = []
        const err = await resolvingTo(type, data, requested)(`https://gen${sampleName++}.example/`).catch((e: unknown) => e)
        expect(err).toBeInstanceOf(UnsafeUrlError)
        expect(requested).toEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it('lets public addresses through, literal or resolved (the check is not a blanket refusal)', async () => {
    const answers = fc.oneof(
      publicV4.map((n) => ['A', v4Text(n)] as const),
      publicV6.chain((n) => v6Form(n).map((f) => ['AAAA', f] as const)),
    )
    await fc.assert(
      fc.asyncProperty(answers, async ([type, data]) => {
        checked++
        expect(assertPublicUrl(`http://${type === 'A' ? data : `[${data}]`}/`, false).hostname).toBeTruthy()
        const requested: string[] = []
        const res = await resolvingTo(type, data, requested)(`https://gen${sampleName++}.example/`)
        expect(res.status).toBe(200)
        expect(requested).toHaveLength(1)
      }),
      { numRuns: 200 },
    )
  })

  it('printed its figure', () => {
    console.log(`ssrf-property: ${checked} generated addresses in ${V4_RANGES.length} IPv4 and ${V6_RANGES.length + 1} IPv6 special ranges and their textual forms, literal and resolved`)
    expect(checked).toBe(1300)
  })
})

describe('host names of dots in linear time', () => {
  const host = fc
    .array(fc.constantFrom('a', 'localhost', 'local', 'internal', 'metadata', 'home.arpa', 'example', 'com', 'Example', '.', '..', '-'), { minLength: 1, maxLength: 6 })
    .map((p) => p.join(''))
  const reason = (url: string) => {
    try {
      assertPublicUrl(url, false)
      return 'allowed'
    } catch (err) {
      return err instanceof UnsafeUrlError ? err.reason : String(err)
    }
  }

  it('drops the trailing dots of a host as before', () => {
    // A name the old `\.+$` already trimmed reads the same to the new trim, so the two must agree.
    const before = (h: string) => h.toLowerCase().replace(/\.+$/, '')
    fc.assert(
      fc.property(host, (h) => {
        expect(nameRefusal(h)).toBe(nameRefusal(before(h)))
        if (before(h) !== '') expect(reason(`https://${h}/`)).toBe(reason(`https://${before(h)}/`))
      }),
      { numRuns: 2000 },
    )
  })

  it("returns on a host of 100,000 dots, in the URL check, the name check and a resolver's alias", async () => {
    const dots = `a${'.'.repeat(100_000)}b`
    expect(nameRefusal(dots)).toBeNull()
    expect(reason(`http://${dots}/`)).toBe('allowed')
    const answer = (data: string, type: number) => new Response(JSON.stringify({ Status: 0, Answer: [{ name: 'x', type, TTL: 60, data }] }))
    // The resolver's answer is capped at 64 KiB, so its alias is a shorter run.
    const alias = `a${'.'.repeat(60_000)}b.`
    const resolver = (async (input: RequestInfo | URL) => (String(input).endsWith('type=A') ? answer(alias, 5) : answer('2606:4700::1', 28))) as typeof fetch
    await expect(lookupPublic(new URL(`http://${dots}/`), TEST_DNS, resolver)).resolves.toMatchObject({ kind: 'public' })
  })
})
