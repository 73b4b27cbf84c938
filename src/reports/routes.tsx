import { z } from 'zod'
import type { Child } from 'hono/jsx'
import { contentAuditAction } from '../actions/content_audit'
import { companyResearchAction } from '../actions/company_research'
import { getOwnRun, type RunRow } from '../db/runs'
import { ApiError } from '../http/errors'
import { Router } from '../http/route-table'
import { getArtifact } from '../research/artifacts'
import { readRunOutput } from '../runtime/run-values'
import { AuditReport } from './audit'
import { signReportLink } from './link'
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

const runParam = { id: { description: 'Run id (run_...)' } }
const noReport = (id: string) => new ApiError('NOT_FOUND', `Run "${id.slice(0, 64)}" not found, or it has no report page (content audit and company research runs have one)`)

/**
 * `GET /v1/runs/:id/report`: the run's JSON output as an HTML page. Opened with the bearer header, or
 * in a browser with the signed link of reportLinkRoutes (reportAuth accepts either).
 */
export function reportPageRoutes() {
  return new Router('Runs').get(
    '/:id/report',
    {
      operationId: 'getRunReport',
      summary: 'A content audit or company research run as an HTML page (gauges, charts, plan, sections with sources)',
      description:
        "The same data as the run's JSON output. Send the bearer header, or open the signed URL from POST /v1/runs/{id}/report-link (token_id, expires, signature) in a browser. Another account's run, or a run of another action, is a 404.",
      params: runParam,
      query: z.object({
        token_id: z.string().optional().describe('Signed link: the token that asked for it'),
        expires: z.string().regex(/^\d+$/).optional().describe('Signed link: Unix seconds it ends at'),
        signature: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .optional()
          .describe('Signed link: hex HMAC-SHA256'),
      }),
      response: { description: 'The report page', content: { 'text/html': { schema: { type: 'string' } } } },
      errors: [404],
    },
    async (c) => {
      const accountId = c.get('principal').accountId
      const id = c.req.param('id')
      const run = await getOwnRun(c.env.DB, accountId, id)
      if (!run || !REPORT_ACTIONS.includes(run.action)) throw noReport(id)
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
    },
  )
}

/** `POST /v1/runs/:id/report-link`: a short-lived signed URL of the report page, for a browser. */
export function reportLinkRoutes() {
  return new Router('Runs').post(
    '/:id/report-link',
    {
      operationId: 'createRunReportLink',
      summary: 'A signed URL that opens the run report page for 5 minutes without a bearer header (ends when the token is revoked)',
      params: runParam,
      response: {
        description: 'The link',
        schema: { type: 'object', required: ['url', 'expires_at'], properties: { url: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } } },
      },
      errors: [404, 503],
    },
    async (c) => {
      const p = c.get('principal')
      const run = await getOwnRun(c.env.DB, p.accountId, c.req.param('id'))
      if (!run || !REPORT_ACTIONS.includes(run.action)) throw noReport(c.req.param('id'))
      return c.json({ status: 200, response: await signReportLink(c.env, run.id, p.tokenId) })
    },
  )
}
