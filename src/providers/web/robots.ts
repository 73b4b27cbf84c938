import { parseRobotsRules, robotsCrawlDelay, robotsDecide, robotsSitemaps, type RobotsDecision, type RobotsRules } from './robots-rules'

/** The product token our crawler answers to in robots.txt groups. */
export const CRAWLER_TOKEN = 'AgentActionAPI'

/** Crawlers of AI answer engines and model trainers, with what blocking each one costs. */
export const AI_CRAWLERS: { agent: string; owner: string; purpose: 'answers' | 'training' }[] = [
  { agent: 'GPTBot', owner: 'OpenAI', purpose: 'training' },
  { agent: 'OAI-SearchBot', owner: 'OpenAI (ChatGPT search)', purpose: 'answers' },
  { agent: 'ChatGPT-User', owner: 'OpenAI (ChatGPT browsing)', purpose: 'answers' },
  { agent: 'ClaudeBot', owner: 'Anthropic', purpose: 'training' },
  { agent: 'Claude-SearchBot', owner: 'Anthropic (Claude search)', purpose: 'answers' },
  { agent: 'Claude-User', owner: 'Anthropic (Claude browsing)', purpose: 'answers' },
  { agent: 'PerplexityBot', owner: 'Perplexity', purpose: 'answers' },
  { agent: 'Perplexity-User', owner: 'Perplexity (browsing)', purpose: 'answers' },
  { agent: 'Google-Extended', owner: 'Google (Gemini training)', purpose: 'training' },
  { agent: 'Applebot-Extended', owner: 'Apple (model training)', purpose: 'training' },
  { agent: 'CCBot', owner: 'Common Crawl', purpose: 'training' },
  { agent: 'Bytespider', owner: 'ByteDance', purpose: 'training' },
  { agent: 'Amazonbot', owner: 'Amazon (Alexa answers)', purpose: 'answers' },
  { agent: 'meta-externalagent', owner: 'Meta', purpose: 'training' },
  { agent: 'cohere-ai', owner: 'Cohere', purpose: 'training' },
]

const KNOWN_DIRECTIVES = new Set(['user-agent', 'disallow', 'allow', 'sitemap', 'crawl-delay', 'clean-param', 'host', 'request-rate', 'visit-time', 'noindex', 'content-signal'])

/** What the site's robots.txt says, as the audit and the crawler need it. */
export interface RobotsInfo {
  url: string
  /** HTTP status of robots.txt, or null when it could not be fetched. */
  status: number | null
  /** The body when it was a 2xx text answer, else ''. */
  text: string
  /** Lighthouse-style validity errors, with line numbers. */
  errors: { line: number; message: string }[]
  sitemaps: string[]
  crawlDelaySeconds: number | null
  /** AI crawlers the robots.txt keeps away from the site root. */
  blockedAiCrawlers: string[]
}

/** Why a crawl did not fetch a URL robots.txt disallows. */
export const ROBOTS_DISALLOWED = 'disallowed by robots.txt'

/** Why a crawl did not fetch a URL robots.txt could not decide within its bound (only a robots.txt built for it gets there). */
export const ROBOTS_UNDECIDED = 'robots.txt could not be decided for this URL within its matching bound'

/** Parses robots.txt text for decisions; an empty text allows everything (see robots-rules.ts for the bounds). */
export function parseRobots(url: string, text: string): RobotsRules {
  return parseRobotsRules(url, text)
}

/** What robots.txt says `agent` may do with `url` (unparsable URLs and other hosts read as allowed). */
export function robotsDecision(parsed: RobotsRules, url: string, agent = CRAWLER_TOKEN): RobotsDecision['verdict'] {
  return robotsDecide(parsed, url, agent).verdict
}

/** Whether `agent` may fetch `url`: a URL robots.txt could not decide within its bound is not fetched. */
export function robotsAllows(parsed: RobotsRules, url: string, agent = CRAWLER_TOKEN): boolean {
  return robotsDecision(parsed, url, agent) === 'allow'
}

/** Whether robots.txt disallows `url` for `agent`: what a report may claim (an undecided URL is not claimed). */
export function robotsDisallows(parsed: RobotsRules, url: string, agent = CRAWLER_TOKEN): boolean {
  return robotsDecision(parsed, url, agent) === 'disallow'
}

/** Validity errors of a robots.txt body, with Lighthouse's rules (robots-txt audit). */
export function validateRobots(text: string): { line: number; message: string }[] {
  const errors: { line: number; message: string }[] = []
  let seenAgent = false
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    // A comment runs from the first "#" to the end of the line; `#.*$` restarted at every "#" of a
    // "####..." line that holds a U+2028 (where `.` stops) and scanned on from each.
    const line = raw.replace(/#[\s\S]*/, '').trim()
    if (!line) return
    const colon = line.indexOf(':')
    if (colon < 0) {
      errors.push({ line: i + 1, message: 'Syntax not understood' })
      return
    }
    const directive = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (!KNOWN_DIRECTIVES.has(directive)) {
      errors.push({ line: i + 1, message: `Unknown directive "${line.slice(0, colon).trim()}"` })
      return
    }
    if (directive === 'user-agent') {
      seenAgent = true
      if (!value) errors.push({ line: i + 1, message: 'No user-agent specified' })
    } else if (directive === 'allow' || directive === 'disallow') {
      if (!seenAgent) errors.push({ line: i + 1, message: 'No user-agent specified' })
      if (value && !value.startsWith('/') && !value.startsWith('*')) errors.push({ line: i + 1, message: 'Pattern should either be empty, start with "/" or "*"' })
      if (value.includes('$') && value.indexOf('$') !== value.length - 1) errors.push({ line: i + 1, message: '"$" should only be used at the end of the pattern' })
    } else if (directive === 'sitemap') {
      let ok: boolean
      try {
        const u = new URL(value)
        ok = u.protocol === 'http:' || u.protocol === 'https:'
      } catch {
        ok = false
      }
      if (!ok) errors.push({ line: i + 1, message: 'Invalid sitemap URL' })
    }
  })
  return errors
}

/** Robots facts of a site from its robots.txt answer (status null: unreachable). */
export function describeRobots(url: string, status: number | null, text: string, origin: string): RobotsInfo {
  const body = status !== null && status >= 200 && status < 300 ? text : ''
  const parsed = parseRobots(url, body)
  const root = `${origin}/`
  const delay = robotsCrawlDelay(parsed, CRAWLER_TOKEN)
  return {
    url,
    status,
    // Whole, so the crawl decides from the lines these facts were read from (robots-rules.ts caps what is read).
    text: body,
    errors: body ? validateRobots(body) : [],
    sitemaps: robotsSitemaps(parsed),
    crawlDelaySeconds: typeof delay === 'number' && Number.isFinite(delay) ? delay : null,
    blockedAiCrawlers: AI_CRAWLERS.filter((c) => robotsDisallows(parsed, root, c.agent)).map((c) => c.agent),
  }
}
