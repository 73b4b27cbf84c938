/** Public job-board APIs: board discovery from links, and each board's response shape. */

export type Board = { kind: 'greenhouse' | 'lever' | 'ashby'; token: string }

/** The job board a careers link points to, if any. */
export function boardOf(href: string): Board | null {
  let u: URL
  try {
    u = new URL(href)
  } catch {
    return null
  }
  const host = u.hostname.toLowerCase()
  const first = u.pathname.split('/').filter(Boolean)[0]
  const forQuery = u.searchParams.get('for')
  if ((host === 'boards.greenhouse.io' || host === 'job-boards.greenhouse.io') && (first === 'embed' ? forQuery : first)) {
    return { kind: 'greenhouse', token: (first === 'embed' ? forQuery : first)! }
  }
  const apiToken = u.pathname.split('/')[3]
  if (host === 'boards-api.greenhouse.io' && first === 'v1' && apiToken) return { kind: 'greenhouse', token: apiToken }
  if (host === 'jobs.lever.co' && first) return { kind: 'lever', token: first }
  if (host === 'jobs.ashbyhq.com' && first) return { kind: 'ashby', token: first }
  return null
}

/** Boards found in a list of links and script sources (greenhouse embeds are scripts). */
export function findBoards(urls: string[]): Board[] {
  const out = new Map<string, Board>()
  for (const url of urls) {
    const b = boardOf(url)
    // An all-dots token (from a greenhouse embed's ?for=) would be a dot segment of the API path.
    if (b && /^[A-Za-z0-9._-]{1,100}$/.test(b.token) && !/^\.+$/.test(b.token)) out.set(`${b.kind}:${b.token.toLowerCase()}`, b)
  }
  return [...out.values()]
}

export interface JobPosting {
  title: string
  location: string | null
  department: string | null
  employment_type: string | null
  url: string
  posted_at: string | null
  board: Board['kind'] | 'site'
}

export interface GreenhouseJobs {
  jobs: { id: number; title: string; updated_at: string; first_published?: string; location?: { name: string }; absolute_url: string; departments?: { name: string }[] }[]
  meta?: { total: number }
}

export type LeverPostings = { id: string; text: string; hostedUrl: string; createdAt?: number; categories?: { commitment?: string; department?: string; location?: string; team?: string } }[]

export interface AshbyBoard {
  jobs: { title: string; location?: string; department?: string; team?: string; employmentType?: string; isListed?: boolean; publishedAt?: string; jobUrl: string }[]
}

export function fromGreenhouse(body: GreenhouseJobs): JobPosting[] {
  return (body.jobs ?? []).map((j) => ({
    title: j.title,
    location: j.location?.name ?? null,
    department: j.departments?.[0]?.name ?? null,
    employment_type: null,
    url: j.absolute_url,
    posted_at: j.first_published ?? j.updated_at ?? null,
    board: 'greenhouse',
  }))
}

/** Lever's millisecond timestamp as ISO text; null for one no Date can hold (past ±8.64e15 ms, e.g. nanoseconds). */
const leverTime = (ms: unknown) => (typeof ms === 'number' && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null)

export function fromLever(body: LeverPostings): JobPosting[] {
  return (Array.isArray(body) ? body : []).map((j) => ({
    title: j.text,
    location: j.categories?.location ?? null,
    department: j.categories?.department ?? j.categories?.team ?? null,
    employment_type: j.categories?.commitment ?? null,
    url: j.hostedUrl,
    posted_at: leverTime(j.createdAt),
    board: 'lever',
  }))
}

export function fromAshby(body: AshbyBoard): JobPosting[] {
  return (body.jobs ?? [])
    .filter((j) => j.isListed !== false)
    .map((j) => ({
      title: j.title,
      location: j.location ?? null,
      department: j.department ?? j.team ?? null,
      employment_type: j.employmentType ?? null,
      url: j.jobUrl,
      posted_at: j.publishedAt ?? null,
      board: 'ashby',
    }))
}
