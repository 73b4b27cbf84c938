import { clearableTimeout } from '../../lib/timers'
import { ProviderError, UnsafeUrlError, UpstreamError } from '../errors'
import { addressRefusal, assertPublicUrl, isIpLiteral, nameRefusal, PRIVATE_FETCH_HINT } from './address'
import { parseJson } from '../../lib/json-depth'
import { encodeUriText } from '../../lib/text'

/**
 * How outbound host names are checked. `doh`: each name is resolved (A and AAAA) through the
 * DNS-over-HTTPS JSON endpoint `url` before every request and redirect hop, and refused when any
 * answer is a special-purpose address. `platform`: no lookup; the network in front of the Worker
 * refuses private targets (Cloudflare's network does for Worker subrequests; so does a workerd
 * whose `internet` network allows only "public").
 */
export interface DnsCheck {
  mode: 'doh' | 'platform'
  url: string
}

export const DEFAULT_DOH_URL = 'https://cloudflare-dns.com/dns-query'
export const DEFAULT_DNS_CHECK: DnsCheck = { mode: 'doh', url: DEFAULT_DOH_URL }

/** What a name resolves to, once every answer is public. */
export type Lookup = { kind: 'public'; addresses: string[] } | { kind: 'missing'; why: string }

const RESOLVER_TIMEOUT_MS = 5000
const MAX_ANSWER_BYTES = 64 * 1024
/** Lookups of public answers are kept per isolate for their TTL, at most this long. */
const MAX_CACHE_MS = 60_000
const CACHE_ENTRIES = 2000
const cache = new Map<string, { addresses: string[]; until: number }>()

const TYPE_A = 1
const TYPE_CNAME = 5
const TYPE_AAAA = 28
const RCODES: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 4: 'NOTIMP', 5: 'REFUSED' }

interface DohAnswer {
  Status?: unknown
  Answer?: { name?: unknown; type?: unknown; TTL?: unknown; data?: unknown }[]
}

function resolverFailed(host: string, dns: DnsCheck, why: string, kind: 'network' | 'timeout' | 'invalid' = 'network'): UpstreamError {
  return new UpstreamError('DNS', kind, `DNS lookup for ${host} failed: ${why}; the address could not be checked, so nothing was fetched (resolver: ${dns.url}, the OUTBOUND_DOH_URL setting)`)
}

async function query(host: string, type: 'A' | 'AAAA', dns: DnsCheck, fetcher: typeof fetch): Promise<DohAnswer> {
  const url = `${dns.url}${dns.url.includes('?') ? '&' : '?'}name=${encodeUriText(host)}&type=${type}`
  let res: Response
  let text: string
  const timeout = clearableTimeout(RESOLVER_TIMEOUT_MS)
  try {
    res = await fetcher(url, { headers: { accept: 'application/dns-json' }, signal: timeout.signal })
    text = await res.text().catch(() => '')
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
    if (timedOut) throw resolverFailed(host, dns, `the resolver did not answer within ${RESOLVER_TIMEOUT_MS} ms`, 'timeout')
    throw resolverFailed(host, dns, `the resolver could not be reached: ${describeFetchError(err)}`)
  } finally {
    timeout.clear()
  }
  if (!res.ok) throw resolverFailed(host, dns, `the resolver answered HTTP ${res.status}`)
  if (text.length > MAX_ANSWER_BYTES) throw resolverFailed(host, dns, 'the resolver answered more than 64 KiB', 'invalid')
  try {
    const parsed = parseJson(text) as DohAnswer
    if (parsed && typeof parsed === 'object' && typeof parsed.Status === 'number') return parsed
  } catch {
    // reported below
  }
  throw resolverFailed(host, dns, 'the resolver answered something that is not a DNS JSON answer', 'invalid')
}

/**
 * Resolves a host name through DNS over HTTPS and checks every answer. Refuses (UnsafeUrlError)
 * when any address, however many are public, is special-purpose, or a CNAME in the chain is a local
 * name: the runtime may connect to any of them. A resolver that cannot answer is an UpstreamError
 * (nothing is fetched unchecked); a name with no address is `missing`. Public lookups are cached
 * for their TTL (60 s at most); DNS rebinding between this check and the runtime's own lookup is
 * not prevented by it (README, "Security model").
 */
export async function lookupPublic(url: URL, dns: DnsCheck, fetcher: typeof fetch = fetch): Promise<Lookup> {
  // A host name may be a long run of dots: the lookbehind starts the trailing run once, not at each dot.
  const host = url.hostname.toLowerCase().replace(/(?<!\.)\.+$/, '')
  const key = `${dns.url} ${host}`
  const now = Date.now()
  const kept = cache.get(key)
  if (kept && kept.until > now) return { kind: 'public', addresses: kept.addresses }
  const answers = await Promise.all([query(host, 'A', dns, fetcher), query(host, 'AAAA', dns, fetcher)])
  if (answers.some((a) => a.Status === 3)) return { kind: 'missing', why: 'no such domain (NXDOMAIN)' }
  const failed = answers.find((a) => a.Status !== 0)
  if (failed) throw resolverFailed(host, dns, `the resolver answered ${RCODES[failed.Status as number] ?? `rcode ${String(failed.Status)}`}`)
  const addresses: string[] = []
  let ttl = MAX_CACHE_MS / 1000
  for (const record of answers.flatMap((a) => (Array.isArray(a.Answer) ? a.Answer : []))) {
    const data = typeof record.data === 'string' ? record.data.trim() : ''
    if (record.type === TYPE_CNAME) {
      const alias = data.replace(/(?<!\.)\.+$/, '')
      const named = nameRefusal(alias)
      if (named) throw new UnsafeUrlError(url.toString(), `the host name is an alias (CNAME) of ${alias}: ${named}; ${PRIVATE_FETCH_HINT}`)
    }
    if (record.type !== TYPE_A && record.type !== TYPE_AAAA) continue
    const refused = addressRefusal(data)
    if (refused) throw new UnsafeUrlError(url.toString(), `the host name resolves to ${data.slice(0, 60)}, ${refused}; ${PRIVATE_FETCH_HINT}`)
    addresses.push(data)
    ttl = Math.min(ttl, typeof record.TTL === 'number' && record.TTL >= 0 ? record.TTL : 0)
  }
  if (addresses.length === 0) return { kind: 'missing', why: 'the name has no A or AAAA record' }
  if (cache.size >= CACHE_ENTRIES) cache.clear()
  if (ttl > 0) cache.set(key, { addresses, until: now + ttl * 1000 })
  return { kind: 'public', addresses }
}

/**
 * What went wrong in a fetch that threw, in words: workerd reports a refused or reset connection
 * as "Network connection lost." and a failed DNS lookup, TLS handshake or connection the runtime's
 * network policy does not allow only as "internal error; reference = <id>" (the detail goes to its
 * log), so that one is named for what it can be.
 */
export function describeFetchError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  if (/^Network connection lost\.?$/i.test(message)) return 'the connection was refused or dropped'
  const reference = /internal error; reference = (\w+)/i.exec(message)
  if (reference) return `the DNS lookup, connection or TLS handshake failed (runtime error reference ${reference[1]})`
  if (/\btimed? ?out\b/i.test(message)) return 'the connection timed out'
  return message.slice(0, 200) || 'the request failed'
}

/** The checks of one destination: literal address and name first, then what the name resolves to. */
export interface DestinationCheck {
  allowPrivate: boolean
  dns?: DnsCheck
  fetcher?: typeof fetch
}

/**
 * Checks a URL for outbound use before it is fetched: `assertPublicUrl`, then, for a host name under
 * the `doh` check, every address it resolves to. With `field` (a URL the caller gave), a refusal
 * names the field and a name that does not exist is a 400; without it, that is an UpstreamError
 * saying the DNS lookup failed.
 */
export async function assertPublicDestination(raw: string | URL, check: DestinationCheck, field?: string): Promise<URL> {
  const url = assertPublicUrl(raw, check.allowPrivate, field)
  const dns = check.dns ?? DEFAULT_DNS_CHECK
  if (check.allowPrivate || dns.mode !== 'doh' || isIpLiteral(url)) return url
  let lookup: Lookup
  try {
    lookup = await lookupPublic(url, dns, check.fetcher)
  } catch (err) {
    if (field && err instanceof UnsafeUrlError) throw new UnsafeUrlError(err.url, err.reason, field)
    throw err
  }
  if (lookup.kind === 'missing') {
    if (field) throw new ProviderError('invalid_input', `${field}: the host ${url.hostname} cannot be reached: ${lookup.why}`, field)
    throw new UpstreamError('DNS', 'network', `DNS lookup for ${url.hostname} failed: ${lookup.why}`)
  }
  return url
}
