import { createGuardedFetch, type GuardedFetch } from '../../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from '../fake-dns'

/**
 * The crawler's guarded fetch against a site served by `answer` (given each request's path), its
 * host names answered by the fake resolver; `robotsTxt`, when given, is served as /robots.txt.
 */
export function fakeSite(answer: (path: string) => Response | Promise<Response>, robotsTxt?: string): GuardedFetch {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async (input) => {
      const path = new URL(String(input)).pathname
      if (robotsTxt !== undefined && path === '/robots.txt') return new Response(robotsTxt, { headers: { 'content-type': 'text/plain' } })
      return answer(path)
    }),
  })
}

/** An HTML answer. */
export const htmlPage = (html: string) => new Response(html, { headers: { 'content-type': 'text/html' } })
