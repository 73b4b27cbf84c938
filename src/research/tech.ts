import fingerprintFile from './fingerprints.json'
import type { Homepage } from './site'

interface Fingerprint {
  name: string
  category: string
  headers?: Record<string, string>
  cookies?: string[]
  scripts?: string[]
  meta?: Record<string, string>
  html?: string[]
  mx?: string[]
  txt?: string[]
}

/** One detected technology and the evidence for it. */
export interface Detection {
  name: string
  category: string
  /** What matched, e.g. "header server: cloudflare" or "script https://js.stripe.com/v3". */
  evidence: string[]
}

const FINGERPRINTS = (fingerprintFile as { technologies: Fingerprint[] }).technologies
// The patterns run on markup, headers and DNS records that the researched site writes, and the lint
// cannot read them here: each must stay linear. A run such as `[^ ]*` after a literal is scanned again
// from every place the literal repeats, so it stops at that literal's own characters too (`include:[^ :]*`).
// Each pattern is compiled once: made afresh for every script, cookie or record it was tried on,
// a homepage of 112,000 script tags (3 MB) took 1.2 s of CPU, against 0.2 s now.
const compiled = new Map<string, RegExp>()
const re = (pattern: string) => {
  let r = compiled.get(pattern)
  if (!r) compiled.set(pattern, (r = new RegExp(pattern, 'i')))
  return r
}

/** Everything detection reads. */
export interface TechSignals {
  page?: Pick<Homepage, 'headers' | 'cookies' | 'scripts' | 'meta' | 'html'>
  mx?: string[]
  txt?: string[]
}

/** Matches the project's fingerprint file against headers, cookies, script sources, meta, markup and DNS. */
export function detectTechnologies(signals: TechSignals): Detection[] {
  const found: Detection[] = []
  const page = signals.page
  for (const fp of FINGERPRINTS) {
    const evidence: string[] = []
    if (page) {
      for (const [name, pattern] of Object.entries(fp.headers ?? {})) {
        const value = page.headers[name.toLowerCase()]
        if (value !== undefined && re(pattern).test(value)) evidence.push(`header ${name}: ${value.slice(0, 80)}`)
      }
      for (const pattern of fp.cookies ?? []) {
        const hit = page.cookies.find((c) => re(pattern).test(c))
        if (hit) evidence.push(`cookie ${hit}`)
      }
      for (const pattern of fp.scripts ?? []) {
        const hit = page.scripts.find((s) => re(pattern).test(s))
        if (hit) evidence.push(`script ${hit.slice(0, 160)}`)
      }
      for (const [name, pattern] of Object.entries(fp.meta ?? {})) {
        const value = page.meta[name]
        if (value !== undefined && re(pattern).test(value)) evidence.push(`meta ${name}: ${value.slice(0, 80)}`)
      }
      for (const pattern of fp.html ?? []) {
        const m = re(pattern).exec(page.html)
        if (m) evidence.push(`markup ${m[0].slice(0, 80)}`)
      }
    }
    for (const pattern of fp.mx ?? []) {
      const hit = signals.mx?.find((r) => re(pattern).test(r))
      if (hit) evidence.push(`MX ${hit}`)
    }
    for (const pattern of fp.txt ?? []) {
      const hit = signals.txt?.find((r) => re(pattern).test(r))
      if (hit) evidence.push(`TXT ${hit.slice(0, 100)}`)
    }
    if (evidence.length) found.push({ name: fp.name, category: fp.category, evidence: [...new Set(evidence)] })
  }
  return found
}

/** Number of fingerprints in the file (for docs and tests). */
export const FINGERPRINT_COUNT = FINGERPRINTS.length
