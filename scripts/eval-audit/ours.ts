/**
 * The audit side of `npm run eval:audit`, bundled by esbuild and run in Node: the real site
 * discovery, crawler (its D1 frontier on node:sqlite) and audit builder over the BrightDesk fixture
 * site, served by its fetch handler through the guarded client, exactly as the Worker runs them.
 */
import { DatabaseSync } from 'node:sqlite'
import { readFileSync } from 'node:fs'
import { buildAudit, type Audit } from '../../src/audit/build'
import type { CrawledPage } from '../../src/audit/site-checks'
import { crawlLimits, crawlSome, seedFrontier } from '../../src/crawler/crawl'
import type { PageRecord } from '../../src/crawler/fetch-page'
import { assertStartPageReachable, discoverSite } from '../../src/crawler/site'
import { donePages, frontierCounts } from '../../src/db/crawl'
import type { Env } from '../../src/env'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { BRIGHTDESK_HTML, BRIGHTDESK_ORIGIN, EXPECTED, brightdesk } from '../../test/fixtures/sites/brightdesk'

export { BRIGHTDESK_HTML, BRIGHTDESK_ORIGIN, EXPECTED, brightdesk }
export { CHROMIUM_ARGS, chromiumEnv, chromiumExecutablePath } from '../../test/node/browser'

/** The part of D1's API the crawl frontier uses, over node:sqlite. */
function d1(db: DatabaseSync): D1Database {
  const statement = (sql: string, params: unknown[] = []) => ({
    bind: (...p: unknown[]) => statement(sql, p),
    all: async () => ({ results: db.prepare(sql).all(...(params as never[])), success: true }),
    first: async () => db.prepare(sql).get(...(params as never[])) ?? null,
    run: async () => {
      db.prepare(sql).run(...(params as never[]))
      return { success: true }
    },
  })
  return {
    prepare: (sql: string) => statement(sql),
    batch: async (list: { run: () => Promise<unknown> }[]) => {
      db.exec('BEGIN')
      try {
        for (const s of list) await s.run()
        db.exec('COMMIT')
      } catch (err) {
        db.exec('ROLLBACK')
        throw err
      }
      return []
    },
  } as unknown as D1Database
}

/** Audits the BrightDesk fixture site with the shipped crawl settings; `migration` is 0007_crawl.sql's path. */
export async function auditBrightdesk(migration: string): Promise<Audit> {
  const sqlite = new DatabaseSync(':memory:', { enableForeignKeyConstraints: false })
  sqlite.exec(readFileSync(migration, 'utf8'))
  const db = d1(sqlite)
  const fetcher = createGuardedFetch({
    userAgent: 'AgentActionAPI (eval)',
    allowPrivate: true,
    dns: { mode: 'platform' },
    fetcher: (async (input: RequestInfo | URL, init?: RequestInit) => (await brightdesk(new Request(input, init))) ?? new Response('not found', { status: 404 })) as typeof fetch,
  })
  const start = `${BRIGHTDESK_ORIGIN}/`
  const runId = 'run_eval'
  await assertStartPageReachable(fetcher, start)
  const site = await discoverSite(fetcher, start, 'full_site', undefined, 100)
  await seedFrontier(db, runId, site)
  const limits = crawlLimits({} as Env, 100)
  while ((await crawlSome(db, fetcher, runId, site, limits, async () => undefined)) === 'more');
  const counts = await frontierCounts(db, runId)
  const pages: CrawledPage[] = (await donePages(db, runId, '', 1000)).map((r) => ({ url: r.url, depth: r.depth, source: r.source, rec: JSON.parse(r.facts) as PageRecord }))
  return buildAudit({ site, pages, focus: 'balanced', auditScope: 'full_site', maxPages: 100, notCrawled: counts.pending, now: Date.now() })
}
