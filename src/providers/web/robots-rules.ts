/**
 * robots.txt groups and rules, and the allow/disallow decision for one URL, with a bound on the work
 * of every decision. The answers are those of the `robots-parser` package this module replaced
 * (RFC 9309 matching as Google does it: group by product token, longest match wins, Allow wins a
 * tie, `*` and a final `$`), which the tests keep as the oracle. What differs is the cost: that
 * package compared every rule with every prefix of the path, so 380 KB of `*` rules against a
 * 2,000-character URL took 1.4 s per decision. Here a rule is matched in one left-to-right pass,
 * rules without `*` are found through a sorted index, and a decision that would cost more than
 * MAX_MATCH_STEPS stops and answers `undecided`. Only the first MAX_ROBOTS_CHARS of robots.txt
 * are read, and no decision is made for a URL longer than MAX_DECIDED_URL_LENGTH.
 */
import { encodeUri } from '../../lib/text'

/** Characters of robots.txt read: Google reads the first 500 KiB and ignores the rest (RFC 9309 §2.5 asks for at least that much). */
export const MAX_ROBOTS_CHARS = 500 * 1024

/** Longest URL a decision is made for, and the longest the crawl follows (the limit `website_url` has too). */
export const MAX_DECIDED_URL_LENGTH = 2048

/**
 * Work one decision may spend, in steps: a URL character scanned by a `*` rule is one, and the
 * fixed costs below are weighed in steps by what they measured in Node. A large robots.txt of the
 * kind sites write needs a few thousand (240 `*` rules against URLs of 100 characters: at most
 * 7,000). The slowest step is a short part searched for in a run of its first character (about
 * 6 ns), so a decision costs about 1 ms of CPU at most (0.8 ms measured).
 */
export const MAX_MATCH_STEPS = 131_072

/** Steps charged for trying one `*` rule, besides what its parts cost. */
export const RULE_STEPS = 32

/** Steps charged for a `*` rule passed over because the path lacks one of its characters. */
export const SKIP_STEPS = 4

/** Steps charged for each search of a `*` rule's parts, besides the characters it scans. */
export const PART_STEPS = 12

/** Steps charged for looking a path up in one group: an agent may be named in thousands, each a few objects away in memory. */
export const GROUP_STEPS = 256

interface Rule {
  /** The pattern, percent-encoding normalized; its length ranks it. */
  pattern: string
  allow: boolean
}

/** The lines from a run of User-agent lines to the next such run. */
interface Group {
  rules: Rule[]
  /** Whether an Allow, Disallow or Crawl-delay line named the group: only then do its agents have a group of their own. */
  named: boolean
  crawlDelay?: number
  /** Built at the first decision that needs it, and shared by every agent of the group. */
  index?: Index
}

/** A `*` pattern: after its literal start, `parts` in order, then `tail` at the very end of the path when the pattern ends in `$`; `low` and `high` hold the characters of both. */
interface Wild extends CharSet {
  length: number
  allow: boolean
  parts: string[]
  tail: string | null
}

/**
 * Which characters occur in a text, hashed to 60 bits in two small integers (30 bits each, so they
 * stay unboxed): a rule with a character the path lacks cannot match it.
 */
interface CharSet {
  low: number
  high: number
}

function charSet(texts: string[]): CharSet {
  const set = { low: 0, high: 0 }
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const bit = text.charCodeAt(i) % 60
      if (bit < 30) set.low |= 1 << bit
      else set.high |= 1 << (bit - 30)
    }
  }
  return set
}

/** Rules sharing a literal start (the pattern up to its first `*`, or the whole of a pattern without one). */
interface Start {
  text: string
  /** Index of the longest other start that is a prefix of this one, or -1. */
  parent: number
  /** Verdict of the patterns that are exactly this start (undefined: none). */
  prefix?: boolean
  /** Verdict of the patterns that are this start and `$` (undefined: none). */
  exact?: boolean
  /** `*` patterns with this start, longest first and Allow first among equals (the order they can win in). */
  wild: Wild[]
}

/** The rules of one group, indexed for decisions. */
interface Index {
  starts: Start[]
}

/** robots.txt as parsed for decisions. */
export interface RobotsRules {
  /** Protocol, host and port of the robots.txt URL; null when it does not parse (then every URL is allowed). */
  origin: { protocol: string; hostname: string; port: string } | null
  /** The named groups of each product token, in file order. */
  agents: Map<string, Group[]>
  sitemaps: string[]
}

/** What robots.txt says of one URL: `undecided` when the URL is longer than MAX_DECIDED_URL_LENGTH or the decision needs more than MAX_MATCH_STEPS. */
export interface RobotsDecision {
  verdict: 'allow' | 'disallow' | 'undecided'
  /** Matching work spent, in the unit of MAX_MATCH_STEPS. */
  steps: number
}

/** A product token as robots.txt groups compare it: lower case, without a "/version". */
function productToken(agent: string): string {
  const lower = agent.toLowerCase()
  const slash = lower.indexOf('/')
  return (slash < 0 ? lower : lower.slice(0, slash)).trim()
}

/** Upper-cases percent escapes, so "%2f" and "%2F" compare equal. */
function upperEscapes(text: string): string {
  return text.replace(/%[\da-f]{2}/gi, (escape) => escape.toUpperCase())
}

/** A pattern with non-ASCII characters percent-encoded as in URLs, escapes already there kept. */
function normalizePattern(pattern: string): string {
  const encoded = encodeUri(pattern)
  // A lone surrogate cannot be encoded; such a pattern is compared as written.
  if (encoded === null) return pattern
  return upperEscapes(encoded.replaceAll('%25', '%'))
}

/** The whole lines of a robots.txt within MAX_ROBOTS_CHARS: a line cut at the limit would say less than the site wrote. */
function linesWithinLimit(text: string): string[] {
  if (text.length <= MAX_ROBOTS_CHARS) return text.split(/\r\n|\r|\n/)
  // One character more: a line ending right at the limit is whole.
  const lines = text.slice(0, MAX_ROBOTS_CHARS + 1).split(/\r\n|\r|\n/)
  lines.pop()
  return lines
}

/** Parses robots.txt for decisions; an empty text allows everything. */
export function parseRobotsRules(url: string, text: string): RobotsRules {
  let origin: RobotsRules['origin']
  try {
    const u = new URL(url)
    origin = { protocol: u.protocol, hostname: u.hostname, port: u.port }
  } catch {
    origin = null
  }
  const agents = new Map<string, Group[]>()
  const sitemaps: string[] = []
  let group: Group | null = null
  let inAgentLines = false
  for (const raw of linesWithinLimit(text)) {
    const hash = raw.indexOf('#')
    const line = hash < 0 ? raw : raw.slice(0, hash)
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    if (!key) continue
    const value = line.slice(colon + 1).trim()
    if (key === 'user-agent') {
      if (!inAgentLines) group = { rules: [], named: false }
      if (value && group) {
        const token = productToken(value)
        const groups = agents.get(token)
        if (!groups) agents.set(token, [group])
        else if (groups[groups.length - 1] !== group) groups.push(group)
      }
    } else if ((key === 'allow' || key === 'disallow') && group) {
      group.named = true
      if (value) group.rules.push({ pattern: normalizePattern(value), allow: key === 'allow' })
    } else if (key === 'crawl-delay' && group) {
      group.named = true
      const delay = Number(value)
      if (!Number.isNaN(delay)) group.crawlDelay = delay
    } else if (key === 'sitemap' && value) {
      sitemaps.push(value)
    }
    inAgentLines = key === 'user-agent'
  }
  const named = new Map<string, Group[]>()
  for (const [token, groups] of agents) {
    const kept = groups.filter((g) => g.named)
    if (kept.length) named.set(token, kept)
  }
  return { origin, agents: named, sitemaps }
}

/** The groups that speak for `agent`: its own when one names it, else those of `*`. */
function groupsFor(rules: RobotsRules, agent: string): Group[] {
  return rules.agents.get(productToken(agent || '*')) ?? rules.agents.get('*') ?? []
}

/** The crawl delay robots.txt asks of `agent`, in seconds (the last valid Crawl-delay of its groups). */
export function robotsCrawlDelay(rules: RobotsRules, agent: string): number | undefined {
  let delay: number | undefined
  for (const g of groupsFor(rules, agent)) if (g.crawlDelay !== undefined) delay = g.crawlDelay
  return delay
}

/** The Sitemap lines of robots.txt, in order. */
export function robotsSitemaps(rules: RobotsRules): string[] {
  return rules.sitemaps.slice()
}

/** Indexes rules by literal start: sorted, so the starts that are prefixes of a path are found by one binary search and a walk up `parent`. */
function buildIndex(list: Rule[]): Index {
  const byText = new Map<string, Start>()
  const startOf = (text: string) => {
    let s = byText.get(text)
    if (!s) byText.set(text, (s = { text, parent: -1, wild: [] }))
    return s
  }
  for (const { pattern, allow } of list) {
    const anchored = pattern.endsWith('$')
    const body = anchored ? pattern.slice(0, -1) : pattern
    const star = body.indexOf('*')
    if (star < 0) {
      const s = startOf(body)
      if (anchored) s.exact = s.exact === true || allow
      else s.prefix = s.prefix === true || allow
      continue
    }
    const parts = body.slice(star + 1).split('*')
    const tail = anchored ? parts.pop()! : null
    const literal = parts.filter((p) => p.length > 0)
    const { low, high } = charSet(tail === null ? literal : [...literal, tail])
    startOf(body.slice(0, star)).wild.push({ length: pattern.length, allow, parts: literal, tail, low, high })
  }
  const starts = [...byText.values()].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
  // In sorted order a start follows its prefixes: a stack holds the chain of prefixes of the current one.
  const chain: number[] = []
  starts.forEach((s, i) => {
    while (chain.length && !s.text.startsWith(starts[chain[chain.length - 1]].text)) chain.pop()
    s.parent = chain.length ? chain[chain.length - 1] : -1
    chain.push(i)
    s.wild.sort((a, b) => b.length - a.length || Number(b.allow) - Number(a.allow))
  })
  return { starts }
}

/** The last start that is a prefix of `path`, or -1: its chain of parents holds every other. */
function longestStart(starts: Start[], path: string): number {
  let lo = 0
  let hi = starts.length - 1
  let at = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (starts[mid].text <= path) {
      at = mid
      lo = mid + 1
    } else {
      hi = mid - 1
    }
  }
  if (at < 0) return -1
  // Every start between a prefix of the path and the path itself in sorted order begins with that
  // prefix, so the longest prefix of the path is the longest prefix of `at` no longer than their common part.
  const near = starts[at].text
  let common = 0
  while (common < near.length && common < path.length && near.charCodeAt(common) === path.charCodeAt(common)) common++
  while (at >= 0 && starts[at].text.length > common) at = starts[at].parent
  return at
}

/**
 * Whether a `*` pattern whose start is a prefix of `path` matches it: each part is placed at its
 * leftmost occurrence after the previous one, which finds a match whenever there is one, as a part
 * placed later only leaves less path for the rest. Returns null when the budget runs out.
 */
function wildMatches(w: Wild, path: string, from: number, budget: { steps: number }): boolean | null {
  let pos = from
  for (const part of w.parts) {
    if (part.length > path.length - pos) return false
    const at = path.indexOf(part, pos)
    budget.steps += PART_STEPS + (at < 0 ? path.length : at + part.length) - pos + part.length
    if (budget.steps > MAX_MATCH_STEPS) return null
    if (at < 0) return false
    pos = at + part.length
  }
  if (w.tail === null) return true
  if (w.tail.length > path.length - pos) return false
  budget.steps += PART_STEPS + w.tail.length
  return path.endsWith(w.tail)
}

/**
 * The longest pattern matching `path` among the groups' rules decides, Allow on a tie; no match
 * allows. Rules without `*` cost one lookup per group; `*` rules are tried longest first, and only
 * while one could still win, within MAX_MATCH_STEPS.
 */
function decidePath(groups: Group[], path: string): RobotsDecision {
  let best = -1
  let allow = true
  const consider = (length: number, allows: boolean) => {
    if (length > best || (length === best && allows && !allow)) {
      best = length
      allow = allows
    }
  }
  const budget = { steps: 0 }
  const found: { starts: Start[]; top: number }[] = []
  for (const g of groups) {
    budget.steps += GROUP_STEPS
    if (budget.steps > MAX_MATCH_STEPS) return { verdict: 'undecided', steps: budget.steps }
    if (!g.rules.length) continue
    const { starts } = (g.index ??= buildIndex(g.rules))
    const top = longestStart(starts, path)
    found.push({ starts, top })
    for (let i = top; i >= 0; i = starts[i].parent) {
      const s = starts[i]
      if (s.prefix !== undefined) consider(s.text.length, s.prefix)
      if (s.exact !== undefined && s.text.length === path.length) consider(s.text.length + 1, s.exact)
    }
  }
  const present = charSet([path])
  for (const { starts, top } of found) {
    for (let i = top; i >= 0; i = starts[i].parent) {
      const { wild } = starts[i]
      // An indexed loop over locals: this is the loop a hostile file makes run 30,000 times.
      for (let j = 0; j < wild.length; j++) {
        const w = wild[j]
        // Sorted longest first, Allow first: once one cannot win, none after it can.
        if (!(w.length > best || (w.length === best && w.allow && !allow))) break
        if ((w.low & ~present.low) | (w.high & ~present.high)) {
          budget.steps += SKIP_STEPS
          if (budget.steps > MAX_MATCH_STEPS) return { verdict: 'undecided', steps: budget.steps }
          continue
        }
        budget.steps += RULE_STEPS
        if (budget.steps > MAX_MATCH_STEPS) return { verdict: 'undecided', steps: budget.steps }
        const hit = wildMatches(w, path, starts[i].text.length, budget)
        if (hit === null) return { verdict: 'undecided', steps: budget.steps }
        if (hit) {
          consider(w.length, w.allow)
          break
        }
      }
    }
  }
  return { verdict: allow ? 'allow' : 'disallow', steps: budget.steps }
}

/**
 * What robots.txt says `agent` may do with `url`. A URL of another protocol, host or port, or one
 * that does not parse, is allowed: robots.txt speaks for its own origin only.
 * @example robotsDecide(parseRobotsRules(robotsUrl, text), 'https://example.com/a', 'AgentActionAPI').verdict // 'allow'
 */
export function robotsDecide(rules: RobotsRules, url: string, agent: string): RobotsDecision {
  if (url.length > MAX_DECIDED_URL_LENGTH) return { verdict: 'undecided', steps: 0 }
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return { verdict: 'allow', steps: 0 }
  }
  const o = rules.origin
  if (!o || u.protocol !== o.protocol || u.hostname !== o.hostname || u.port !== o.port) return { verdict: 'allow', steps: 0 }
  const path = upperEscapes(u.pathname + u.search)
  // Parsing percent-encodes what the URL had raw, so the path can outgrow the URL.
  if (path.length > MAX_DECIDED_URL_LENGTH) return { verdict: 'undecided', steps: 0 }
  return decidePath(groupsFor(rules, agent), path)
}
