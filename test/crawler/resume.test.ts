import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { crawlSome, seedFrontier, type CrawlLimits } from '../../src/crawler/crawl'
import { discoverSite } from '../../src/crawler/site'
import { donePages, frontierCounts } from '../../src/db/crawl'
import { insertRun } from '../../src/db/runs'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { newCaller, runningRun } from '../helpers'
import { HTML_PATHS, ORIGIN, trailgear } from '../fixtures/sites/trailgear'
import { TEST_DNS, withFakeDns } from '../fake-dns'
import { fakeSite, htmlPage } from './fake-site'

async function newRun(): Promise<string> {
  const { accountId } = await newCaller()
  const id = `run_${crypto.randomUUID().replace(/-/g, '')}`
  await insertRun(env.DB, runningRun(id, accountId, 'content_audit_generate_audit_action'))
  return id
}

/** A guarded fetch over the fixture site that records every page URL it is asked for. */
function recordingFetch(log: string[]) {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async (input, init) => {
      const req = new Request(input, init)
      log.push(req.url)
      return (await trailgear(req)) ?? new Response('unmocked', { status: 599 })
    }),
  })
}

const limits: CrawlLimits = { maxPages: 100, concurrency: 4, pagesPerMessage: 1000, messageBudgetMs: 60_000 }
const noProgress = async () => undefined

describe('crawl frontier in D1', () => {
  it('resumes after a consumer crash without refetching the pages it had finished', async () => {
    const runId = await newRun()
    const before: string[] = []
    const site = await discoverSite(recordingFetch(before), ORIGIN, 'full_site', undefined, 100)
    await seedFrontier(env.DB, runId, site)

    // The consumer dies while storing its second batch: that batch was fetched but never stored.
    let batches = 0
    const crashingDb = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === 'batch') {
          return async (stmts: D1PreparedStatement[]) => {
            if (++batches === 2) throw new Error('consumer crashed')
            return target.batch(stmts)
          }
        }
        const value = Reflect.get(target, prop)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const first: string[] = []
    await expect(crawlSome(crashingDb, recordingFetch(first), runId, site, limits, noProgress)).rejects.toThrow('consumer crashed')
    const finished = new Set<string>()
    for (const row of await donePages(env.DB, runId, '', 1000)) finished.add(row.url)
    expect(finished.size).toBeGreaterThan(0)

    const second: string[] = []
    expect(await crawlSome(env.DB, recordingFetch(second), runId, site, limits, noProgress)).toBe('done')
    expect(second.filter((u) => finished.has(u))).toEqual([])
    expect(second.length).toBeGreaterThan(0)

    const counts = await frontierCounts(env.DB, runId)
    expect(counts.pending).toBe(0)
    const html = (await donePages(env.DB, runId, '', 1000)).filter((r) => r.kind === 'html').map((r) => r.url.slice(ORIGIN.length))
    expect(html.sort()).toEqual([...HTML_PATHS].sort())
  })

  it('stops at the page cap and hands over when a message has fetched its share', async () => {
    const runId = await newRun()
    const log: string[] = []
    const site = await discoverSite(recordingFetch(log), ORIGIN, 'full_site', undefined, 30)
    await seedFrontier(env.DB, runId, site)
    const small = { ...limits, maxPages: 30, pagesPerMessage: 10 }
    const states: string[] = []
    for (let i = 0; i < 10; i++) {
      const state = await crawlSome(env.DB, recordingFetch(log), runId, site, small, noProgress)
      states.push(state)
      if (state === 'done') break
    }
    // 10 URLs per message (robots-blocked ones included) until 30 pages are fetched.
    expect(states.length).toBeGreaterThanOrEqual(3)
    expect(states.slice(0, -1).every((s) => s === 'more')).toBe(true)
    expect(states[states.length - 1]).toBe('done')
    expect((await frontierCounts(env.DB, runId)).fetched).toBe(30)
  })
})

describe('progress', () => {
  it('records progress at most once a second, and always when a message ends', async () => {
    const runId = await newRun()
    const log: string[] = []
    const site = await discoverSite(recordingFetch(log), ORIGIN, 'full_site', undefined, 100)
    await seedFrontier(env.DB, runId, site)
    const updates: { fetched: number; pending: number }[] = []
    const started = Date.now()
    expect(await crawlSome(env.DB, recordingFetch(log), runId, site, limits, async (p) => void updates.push(p))).toBe('done')
    const seconds = (Date.now() - started) / 1000
    expect(updates.length).toBeGreaterThanOrEqual(1)
    expect(updates.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1)
    expect(updates[updates.length - 1].fetched).toBe((await frontierCounts(env.DB, runId)).fetched)
  })
})

describe('politeness', () => {
  it('fetches one page at a time when robots.txt sets a Crawl-delay', async () => {
    const runId = await newRun()
    let inFlight = 0
    let maxInFlight = 0
    const starts: number[] = []
    const pages: Record<string, string> = {
      '/': '<a href="/a">A page</a> <a href="/b">B page</a>',
      '/a': '<a href="/b">B page</a>',
      '/b': '<a href="/">Home page</a>',
    }
    const fetcher = fakeSite(async (path) => {
      if (!(path in pages)) return new Response('missing', { status: 404 })
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      starts.push(Date.now())
      await new Promise((r) => setTimeout(r, 20))
      inFlight--
      return htmlPage(`<html lang="en"><title>${path}</title><body>${pages[path]}</body></html>`)
    }, 'User-agent: *\nCrawl-delay: 1\nAllow: /')
    const site = await discoverSite(fetcher, 'https://polite.example.org', 'full_site', undefined, 10)
    expect(site.robots.crawlDelaySeconds).toBe(1)
    await seedFrontier(env.DB, runId, site)
    expect(await crawlSome(env.DB, fetcher, runId, site, limits, noProgress)).toBe('done')
    expect(starts).toHaveLength(3)
    expect(maxInFlight).toBe(1)
  })
})
