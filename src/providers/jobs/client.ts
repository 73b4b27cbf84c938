import type { ActionContext } from '../../runtime/context'
import { UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { fromAshby, fromGreenhouse, fromLever, type AshbyBoard, type Board, type GreenhouseJobs, type JobPosting, type LeverPostings } from './transform'
import { encodeUriText } from '../../lib/text'

/** The public API URL of a board. */
export function boardApiUrl(board: Board): string {
  const t = encodeUriText(board.token)
  switch (board.kind) {
    case 'greenhouse':
      return `https://boards-api.greenhouse.io/v1/boards/${t}/jobs`
    case 'lever':
      return `https://api.lever.co/v0/postings/${t}?mode=json`
    case 'ashby':
      return `https://api.ashbyhq.com/posting-api/job-board/${t}`
  }
}

const SERVICE = { greenhouse: 'Greenhouse', lever: 'Lever', ashby: 'Ashby' } as const

/** Open postings of a board; a board that no longer exists (404) has none. */
export async function listJobs(ctx: ActionContext, board: Board): Promise<{ jobs: JobPosting[]; url: string }> {
  const url = boardApiUrl(board)
  const service = SERVICE[board.kind]
  const res = await ctx.fetch(url, { service, headers: { accept: 'application/json' }, timeoutMs: 15_000 })
  if (res.status === 404) {
    await res.body?.cancel()
    return { jobs: [], url }
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(service, 'status', `${service} answered ${res.status}`, res.status)
  }
  const body = await readJson<unknown>(res, service)
  const jobs = board.kind === 'greenhouse' ? fromGreenhouse(body as GreenhouseJobs) : board.kind === 'lever' ? fromLever(body as LeverPostings) : fromAshby(body as AshbyBoard)
  return { jobs, url }
}
