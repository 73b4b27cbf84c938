import { Hono } from 'hono'
import type { Child } from 'hono/jsx'
import { contentAuditAction } from '../actions/content_audit'
import { companyResearchAction } from '../actions/company_research'
import { requireAuth } from '../auth/principal'
import { getOwnRun, type RunRow } from '../db/runs'
import { ApiError } from '../http/errors'
import { rateLimit } from '../http/rate-limit'
import type { AppEnv } from '../http/types'
import { getArtifact } from '../research/artifacts'
import { readRunOutput } from '../runtime/run-values'
import { AuditReport } from './audit'
import { reportAuth, signReportLink } from './link'
import { artifactIds, ResearchReport } from './research'
import { isObject, ReportLayout, Value, when } from './view'

/** Actions whose runs have a report page. */
export const REPORT_ACTIONS: readonly string[] = [contentAuditAction.name, companyResearchAction.name]

/** Images larger than this are left out of the page (it says so) rather than inlined. */
const MAX_INLINE_IMAGE_BYTES = 3 * 1024 * 1024

/** Same-origin assets only; images may be data: URLs (the page inlines the run's stored artifacts). */
export const REPORT_CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** A rendered page as a complete HTML document. */
export async function renderDocument(page: Child): Promise<string> {
  return `<!doctype html>${await Promise.resolve(String(page))}`
}

function base64(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes)
  let s = ''
  for (let i = 0; i < view.length; i += 0x8000) s += String.fromCharCode(...view.subarray(i, i + 0x8000))
  return btoa(s)
}

/** The report's images (timeline SVG, screenshot PNG) of the run's account, as data: URLs. */
async function loadImages(cache: KVNamespace, accountId: string, ids: string[]): Promise<Map<string, string>> {
  const images = new Map<string, string>()
  for (const id of ids) {
    const a = await getArtifact(cache, accountId, id)
    // Only the image types research stores; anything else is not shown as an image.
    if (!a || a.body.byteLength > MAX_INLINE_IMAGE_BYTES || !/^image\/(png|svg\+xml|jpeg|webp)$/.test(a.contentType)) continue
    images.set(id, `data:${a.contentType};base64,${base64(a.body)}`)
  }
  return images
}

function NotFinished({ run }: { run: RunRow }) {
  return (
    <section aria-labelledby="title">
      <h1 id="title">This run has no report yet</h1>
      <p>
        Run <code>{run.id}</code> ({run.action}) is <strong>{run.state}</strong>
        {run.state === 'failed' ? `: ${run.error ?? 'no error recorded'}` : '. Reload this page when it has finished.'}
      </p>
      {run.progress ? <Value value={JSON.parse(run.progress) as unknown} /> : null}
      <p class="muted">Created {when(new Date(run.created_at).toISOString())}</p>
    </section>
  )
}

/**
 * `GET /v1/runs/:id/report` (HTML, the same data as the run's JSON output) and
 * `POST /v1/runs/:id/report-link` (a short-lived signed URL of that page, for a browser).
 */
export function reportRoutes() {
  const app = new Hono<AppEnv>()
  app.post('/:id/report-link', requireAuth, rateLimit, async (c) => {
    const p = c.get('principal')
    const run = await getOwnRun(c.env.DB, p.accountId, c.req.param('id'))
    if (!run || !REPORT_ACTIONS.includes(run.action)) throw new ApiError('NOT_FOUND', `Run "${c.req.param('id').slice(0, 64)}" not found, or it has no report page (content audit and company research runs have one)`)
    return c.json({ status: 200, response: await signReportLink(c.env, run.id, p.tokenId) })
  })
  app.get('/:id/report', reportAuth, rateLimit, async (c) => {
    const accountId = c.get('principal').accountId
    const id = c.req.param('id')
    const run = await getOwnRun(c.env.DB, accountId, id)
    if (!run || !REPORT_ACTIONS.includes(run.action)) throw new ApiError('NOT_FOUND', `Run "${id.slice(0, 64)}" not found, or it has no report page (content audit and company research runs have one)`)
    let title: string
    let body: Child
    if (run.state !== 'succeeded') {
      title = `Run ${run.id}`
      body = <NotFinished run={run} />
    } else {
      const output = await readRunOutput(c.env.CACHE, run)
      const report = isObject(output) ? output : {}
      if (run.action === contentAuditAction.name) {
        title = `Content audit: ${typeof report.website_url === 'string' ? report.website_url : run.id}`
        body = <AuditReport audit={report} runId={run.id} />
      } else {
        title = `Company research: ${typeof report.domain === 'string' ? report.domain : run.id}`
        body = <ResearchReport report={report} runId={run.id} images={await loadImages(c.env.CACHE, accountId, artifactIds(report))} />
      }
    }
    const html = await renderDocument(<ReportLayout title={title}>{body}</ReportLayout>)
    return c.html(html, 200, {
      'content-security-policy': REPORT_CSP,
      // The URL may carry a signed link: never sent on to the sites the report links to.
      'referrer-policy': 'no-referrer',
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    })
  })
  return app
}
