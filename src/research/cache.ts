import type { SectionName, SectionResult } from './types'

/**
 * The KV cache of report sections, one entry per (account, domain, section). Keyed per account
 * because some sections hold account-owned artifacts (screenshot, timeline) and model text written
 * with the account's own model key.
 */
const key = (accountId: string, domain: string, section: SectionName) => `research:v1:${accountId}:${domain}:${section}`

/** A cached section, or null. */
export async function readSection(cache: KVNamespace, accountId: string, domain: string, section: SectionName): Promise<SectionResult | null> {
  const text = await cache.get(key(accountId, domain, section))
  if (text === null) return null
  try {
    return JSON.parse(text) as SectionResult
  } catch {
    return null
  }
}

/** Stores a section for `ttlSeconds` (KV's minimum is 60 s). */
export async function writeSection(cache: KVNamespace, accountId: string, domain: string, section: SectionName, result: SectionResult, ttlSeconds: number): Promise<void> {
  const { cached: _cached, ...stored } = result
  await cache.put(key(accountId, domain, section), JSON.stringify(stored), { expirationTtl: Math.max(60, ttlSeconds) })
}
