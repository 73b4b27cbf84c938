import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boardApiUrl } from '../../src/providers/jobs/client'
import { findBoards } from '../../src/providers/jobs/transform'

const TEMPLATES = {
  greenhouse: { origin: 'https://boards-api.greenhouse.io', path: (t: string) => ['v1', 'boards', t, 'jobs'] },
  lever: { origin: 'https://api.lever.co', path: (t: string) => ['v0', 'postings', t] },
  ashby: { origin: 'https://api.ashbyhq.com', path: (t: string) => ['posting-api', 'job-board', t] },
}

describe('job boards: a token read from a crawled page is one segment of its board API URL', () => {
  it('never lets a token reach another path of the board API', () => {
    const token = fc.oneof(fc.constantFrom('.', '..', '...', '%2e%2e', '.%2e', 'a/../b', 'a?b', 'a#b', 'ａｃｍｅ', 'acme\\..', 'acme'), fc.string({ unit: 'grapheme', maxLength: 20 }))
    const link = fc.tuple(
      fc.constantFrom(
        (t: string) => `https://boards.greenhouse.io/embed/job_board?for=${encodeURIComponent(t)}`,
        (t: string) => `https://boards.greenhouse.io/${t}`,
        (t: string) => `https://boards-api.greenhouse.io/v1/boards/${t}/jobs`,
        (t: string) => `https://jobs.lever.co/${t}`,
        (t: string) => `https://jobs.ashbyhq.com/${t}`,
      ),
      token,
    )
    fc.assert(
      fc.property(fc.array(link, { maxLength: 4 }), (links) => {
        for (const board of findBoards(links.map(([make, t]) => make(t)))) {
          const url = new URL(boardApiUrl(board))
          const template = TEMPLATES[board.kind]
          expect(url.origin).toBe(template.origin)
          expect(url.hash).toBe('')
          expect(url.pathname.split('/').slice(1).map(decodeURIComponent)).toEqual(template.path(board.token))
        }
      }),
      { numRuns: 500, examples: [[[[(t: string) => `https://boards.greenhouse.io/embed/job_board?for=${t}`, '..']]], [[[(t: string) => `https://boards-api.greenhouse.io/v1${t}`, '']]]] },
    )
  })
})
