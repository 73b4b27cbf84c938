/** Public job-board APIs: board discovery from links, and each board's response shape. */
import { objectOf, record, objectsOf, text, type Fields } from '../shape'

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

/** A posting with the title and URL a listing needs, fields in their declared order; null (the posting skipped) without them. */
function posting(title: unknown, url: unknown, rest: Omit<JobPosting, 'title' | 'url'>): JobPosting | null {
  if (typeof title !== 'string' || typeof url !== 'string') return null
  return { title, location: rest.location, department: rest.department, employment_type: rest.employment_type, url, posted_at: rest.posted_at, board: rest.board }
}

const listed = (postings: (JobPosting | null)[]) => postings.filter((p): p is JobPosting => p !== null)

// The declared types are what the boards document; the reads below hold for any JSON a board sends.

export function fromGreenhouse(body: GreenhouseJobs): JobPosting[] {
  return listed(
    objectsOf(objectOf(body, 'Greenhouse').jobs, 'Greenhouse', 'jobs').map((j) =>
      posting(j.title, j.absolute_url, {
        location: text(record(j.location).name),
        department: text(record(Array.isArray(j.departments) ? j.departments[0] : null).name),
        employment_type: null,
        posted_at: text(j.first_published) ?? text(j.updated_at),
        board: 'greenhouse',
      }),
    ),
  )
}

/** Lever's millisecond timestamp as ISO text; null for one no Date can hold (past ±8.64e15 ms, e.g. nanoseconds). */
const leverTime = (ms: unknown) => (typeof ms === 'number' && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null)

export function fromLever(body: LeverPostings): JobPosting[] {
  return listed(
    objectsOf(body, 'Lever', 'the postings').map((j) => {
      const categories: Fields = record(j.categories)
      return posting(j.text, j.hostedUrl, {
        location: text(categories.location),
        department: text(categories.department) ?? text(categories.team),
        employment_type: text(categories.commitment),
        posted_at: leverTime(j.createdAt),
        board: 'lever',
      })
    }),
  )
}

export function fromAshby(body: AshbyBoard): JobPosting[] {
  return listed(
    objectsOf(objectOf(body, 'Ashby').jobs, 'Ashby', 'jobs')
      .filter((j) => j.isListed !== false)
      .map((j) =>
        posting(j.title, j.jobUrl, {
          location: text(j.location),
          department: text(j.department) ?? text(j.team),
          employment_type: text(j.employmentType),
          posted_at: text(j.publishedAt),
          board: 'ashby',
        }),
      ),
  )
}
