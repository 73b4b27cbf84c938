import { getDomain, getHostname } from 'tldts'

/**
 * The registrable domain ("example.co.uk" for "shop.example.co.uk") of a URL or host name, from the
 * public suffix list bundled in `tldts` (ICANN and private sections, so "user.github.io" stays
 * distinct from "github.io"). IP addresses and single-label hosts give the host itself; null when
 * no host can be read.
 */
export function registrableDomain(urlOrHost: string): string | null {
  const host = getHostname(urlOrHost.trim().toLowerCase())
  if (!host) return null
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^www\./, '')
}

/** Registrable domains of a list of URLs, deduplicated in first-seen order. */
export function domainsOf(urls: string[]): string[] {
  const out = new Set<string>()
  for (const u of urls) {
    const d = registrableDomain(u)
    if (d) out.add(d)
  }
  return [...out]
}
