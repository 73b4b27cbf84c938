import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { insertFinishedRun } from '../../src/db/runs'
import { newId } from '../../src/lib/ids'
import { AuditReport } from '../../src/reports/audit'
import { ResearchReport } from '../../src/reports/research'
import { renderDocument } from '../../src/reports/routes'
import { ReportLayout } from '../../src/reports/view'
import { putArtifact } from '../../src/research/artifacts'
import { timelineSvg } from '../../src/research/timeline'
import { ORIGIN, trailgear } from '../fixtures/sites/trailgear'
import { action, BASE, mockFetch, newCaller, request, runningRun, type Json } from '../helpers'

const AUDIT = 'content_audit_generate_audit_action'
const RESEARCH = 'company_research_v2_run_full_research'

/** Starts the TrailGear audit and polls its run until it ends. */
async function runAudit(token: string): Promise<Json> {
  mockFetch(trailgear)
  const started = await action(AUDIT, { website_url: `${ORIGIN}/` }, token, { prefer: 'respond-async' })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  const runId = started.body.response.run_id
  for (let i = 0; i < 20; i++) {
    const res = await request('GET', `/v1/runs/${runId}?wait=20`, { token })
    if (res.body.response.state === 'succeeded' || res.body.response.state === 'failed') return res.body.response
  }
  throw new Error('the audit did not finish')
}

/** A finished run with the given output, written as the runtime writes one. */
async function finishedRun(accountId: string, actionName: string, output: unknown): Promise<string> {
  const id = newId('run')
  const now = Date.now()
  await insertFinishedRun(
    env.DB,
    { ...runningRun(id, accountId, actionName, now - 1000), started_at: now - 900 },
    { state: 'succeeded', output: { text: JSON.stringify(output), kind: 'inline' }, metadata: null, usage: null, error: null, finishedAt: now },
  )
  return id
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

async function html(path: string, token?: string): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await request('GET', path, { token })
  return { status: res.status, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body), headers: res.headers }
}

/** A research report with ok, unavailable and error sections and a stored timeline. */
async function researchReport(accountId: string) {
  const svg = timelineSvg('Acme Corp', [{ date: '2019-04-01', label: 'Founded', kind: 'founding', source: 'https://acme.example/about' }])
  const art = await putArtifact(env.CACHE, accountId, svg, 'image/svg+xml')
  const at = '2026-03-01T10:00:00.000Z'
  return {
    domain: 'acme.example',
    generated_at: at,
    sections: {
      company_overview: {
        status: 'ok',
        data: { name: 'Acme Corp', founded: { value: '2019', source: 'https://acme.example/about' } },
        sources: ['https://acme.example/about'],
        fetched_at: at,
        duration_ms: 120,
        note: null,
        cached: false,
      },
      visual_timeline: {
        status: 'ok',
        data: { url: art.url, artifact_id: art.id, content_type: 'image/svg+xml', milestones: [{ date: '2019-04-01', label: 'Founded', kind: 'founding', source: 'https://acme.example/about' }] },
        sources: ['https://acme.example/about'],
        fetched_at: at,
        duration_ms: 3,
        note: 'Fetch the SVG at url with the same bearer token.',
      },
      financials: { status: 'unavailable', data: null, sources: [], fetched_at: at, duration_ms: 40, note: 'No SEC filer matches this company.' },
      web_traffic: { status: 'error', data: null, sources: [], fetched_at: at, duration_ms: 5000, note: 'tranco.example timed out after 5 s' },
    },
    summary: { ok: ['company_overview', 'visual_timeline'], unavailable: ['financials'], error: ['web_traffic'] },
    cache: { hits: [], refreshed: false },
  }
}

describe('GET /v1/runs/:id/report', () => {
  it('renders a content audit with its scores, plan sorted by priority and inventory', async () => {
    const { token } = await newCaller()
    const run = await runAudit(token)
    expect(run.state, JSON.stringify(run.error)).toBe('succeeded')
    const audit = run.output
    const page = await html(`/v1/runs/${run.id}/report`, token)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    for (const [label, key] of [
      ['SEO', 'seo'],
      ['AEO', 'aeo'],
      ['Overall', 'overall'],
    ] as const) {
      expect(page.text).toContain(`data-score="${label}">${audit.scores[key]}</text>`)
    }
    // Plan rows appear in priority-score order, each issue once.
    const planHtml = page.text.slice(page.text.indexOf('id="action-plan"'), page.text.indexOf('</table>', page.text.indexOf('id="action-plan"')))
    const positions = audit.action_plan.map((item: Json) => planHtml.indexOf(`<strong>${escapeHtml(item.issue)}</strong>`))
    expect(positions.every((p: number) => p >= 0)).toBe(true)
    const byScore = [...audit.action_plan].sort((a: Json, b: Json) => b.priority_score - a.priority_score)
    expect(byScore.map((i: Json) => i.priority_score)).toEqual(audit.action_plan.map((i: Json) => i.priority_score))
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    // Every inventory row, and the cannibalization key phrases.
    expect(page.text.match(/<tr data-kind=/g)?.length).toBe(audit.inventory.length)
    for (const g of audit.keyword_cannibalization) expect(page.text).toContain(`“${g.keyphrase}”`)
  })

  it("answers 404 for another account's run, a run of another action and an unknown run", async () => {
    const owner = await newCaller('Owner')
    const other = await newCaller('Other')
    const id = await finishedRun(owner.accountId, AUDIT, { website_url: 'https://a.example/', scores: { seo: 50, aeo: 60, overall: 55 } })
    const search = await finishedRun(owner.accountId, 'search', [])
    expect((await html(`/v1/runs/${id}/report`, owner.token)).status).toBe(200)
    const foreign = await request('GET', `/v1/runs/${id}/report`, { token: other.token })
    expect(foreign.status).toBe(404)
    expect(foreign.body.code).toBe('NOT_FOUND')
    expect((await request('GET', `/v1/runs/${search}/report`, { token: owner.token })).status).toBe(404)
    expect((await request('GET', '/v1/runs/run_nope/report', { token: owner.token })).status).toBe(404)
    expect((await request('POST', `/v1/runs/${id}/report-link`, { token: other.token })).status).toBe(404)
    const anonymous = await request('GET', `/v1/runs/${id}/report`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer\b/)
  })

  it('opens from a signed link without a header; tampered, foreign, expired or revoked links are 401', async () => {
    const owner = await newCaller('Owner')
    const id = await finishedRun(owner.accountId, AUDIT, { website_url: 'https://a.example/', scores: { seo: 50, aeo: 60, overall: 55 } })
    const other = await finishedRun(owner.accountId, AUDIT, { website_url: 'https://b.example/' })
    const link = await request('POST', `/v1/runs/${id}/report-link`, { token: owner.token })
    expect(link.status).toBe(200)
    const url: string = link.body.response.url
    expect(url).not.toContain(owner.token)
    expect(Date.parse(link.body.response.expires_at) - Date.now()).toBeLessThanOrEqual(300_000)
    const opened = await html(url)
    expect(opened.status).toBe(200)
    expect(opened.text).toContain('data-score="SEO">50</text>')

    const sig = new URL(url, BASE).searchParams.get('signature')!
    const flipped = url.replace(sig, (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1))
    expect((await request('GET', flipped)).status).toBe(401)
    expect((await request('GET', url.replace(id, other))).status).toBe(401)
    const later = new URL(url, BASE)
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 10))
    expect((await request('GET', later.pathname + later.search)).status).toBe(401)
    const past = new URL(url, BASE)
    past.searchParams.set('expires', '1000')
    expect((await request('GET', past.pathname + past.search)).status).toBe(401)

    // A link dies with the token that asked for it.
    const tokens = await request('GET', '/v1/tokens', { token: owner.token })
    await request('DELETE', `/v1/tokens/${tokens.body.response[0].id}`, { token: owner.token })
    const revoked = await request('GET', url)
    expect(revoked.status).toBe(401)
  })

  it('renders company research: sections with sources and fetch time, the timeline, and why sections are missing', async () => {
    const { accountId, token } = await newCaller()
    const id = await finishedRun(accountId, RESEARCH, await researchReport(accountId))
    const page = await html(`/v1/runs/${id}/report`, token)
    expect(page.status).toBe(200)
    expect(page.text).toContain('Company research: acme.example')
    expect(page.text).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="Timeline of the company milestones"/)
    expect(page.text).toContain('No SEC filer matches this company.')
    expect(page.text).toContain('tranco.example timed out after 5 s')
    expect(page.text).toContain('Fetched 2026-03-01 10:00 UTC in 120 ms')
    expect(page.text).toContain('<a href="https://acme.example/about" rel="noopener noreferrer nofollow" target="_blank" class="url">')
  })
})

// ---------------------------------------------------------------------------------------------------
// XSS: caller-controlled strings anywhere in a report never become markup.

const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  'javascript:alert(1)',
  'JaVaScRiPt:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  '</title><script>alert(1)</script>',
  '</textarea></style></script><script>x</script>',
  '<!--',
  ']]><![CDATA[<script>',
  '{{constructor.constructor("alert(1)")()}}',
  '&lt;script&gt;',
  '\u2028\u2029<iframe src=//evil.example>',
]
const hostile = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: fc.constantFrom('<', '>', '"', "'", '&', '/', '=', ' ', 'a', 's', 'c', 'r', 'i', 'p', 't', ':') }), fc.string())
const hostileUrl = fc.oneof(
  hostile,
  hostile.map((s) => `https://site.example/${s}`),
)

/** Tags and attributes our report templates emit; anything else in the output came from data. */
const TAGS = new Set(
  'html head meta title link script body header a main div section h1 h2 h3 p code span details summary dl dt dd ul li table caption thead tbody tr th td strong form label input select option output article figure figcaption svg circle text g line rect img'.split(
    ' ',
  ),
)
const ATTRS = new Set(
  'lang charset name content rel href src defer class id aria-labelledby aria-controls aria-live aria-hidden role type placeholder min max value data-kind data-seo data-issues data-text data-priority data-status data-score target width height viewBox cx cy r fill stroke stroke-width stroke-linecap stroke-dasharray transform x y x1 x2 y1 y2 text-anchor font-size font-weight alt open scope'.split(
    ' ',
  ),
)

/** Every real tag of the page: allowed name, allowed attributes, only safe link targets, one script (ours). */
function assertNoInjectedMarkup(page: string) {
  const scripts = page.match(/<script\b/gi) ?? []
  expect(scripts.length).toBe(1)
  expect(page).toContain('<script src="/console/assets/report.js" defer="">')
  for (const m of page.matchAll(/<([a-zA-Z][\w-]*)([^<>]*)>/g)) {
    const tag = m[1].toLowerCase()
    expect(TAGS.has(tag) || tag === 'viewbox', `tag <${tag}>`).toBe(true)
    // Attributes must tokenize cleanly as name="value" pairs (a broken-out quote would not).
    const rest = m[2].replace(/\s*\/$/, '')
    const attrs = [...rest.matchAll(/\s+([a-zA-Z][\w-]*)(?:="([^"]*)")?/g)]
    expect(attrs.map((a) => a[0]).join(''), `attributes of <${tag}>`).toBe(rest)
    for (const a of attrs) {
      expect(ATTRS.has(a[1]) || a[1] === 'viewBox', `attribute ${a[1]} on <${tag}>`).toBe(true)
      if (a[1] === 'href') expect(a[2]).toMatch(/^(https?:\/\/|\/console|#)/)
      if (a[1] === 'src' && tag === 'img') expect(a[2]).toMatch(/^data:image\/(png|svg\+xml);base64,/)
    }
  }
}

describe('report pages escape caller data', () => {
  it('hostile strings in an audit output never produce markup, script or unsafe links', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostileUrl, hostile, hostile, async (text, url, key, other) => {
        const audit = {
          website_url: url,
          audit_scope: text,
          optimization_focus: other,
          generated_at: text,
          scores: { seo: 40, aeo: 70, overall: 55, formula: text },
          summary: { urls_crawled: 2, issues: { error: 1, warning: 0, notice: 0 }, average_response_ms: text },
          action_plan: [
            {
              rank: 1,
              priority: text,
              priority_score: 80,
              check: text,
              category: text,
              severity: text,
              issue: text,
              why_it_matters: other,
              fix: text,
              pages_affected: 1,
              pages: [url, text],
              examples: [other],
            },
          ],
          priority_formula: other,
          site_checks: [{ check: text, passed: false, title: text, message: other }],
          keyword_cannibalization: [{ keyphrase: text, recommendation: other, pages: [{ url, title: text, score: 3, evidence: { in_title: true, [key]: other } }] }],
          content_gaps: { [key]: [{ [key]: url, topic: text }], missing_pages: [{ url, anchor_texts: [text] }] },
          inventory: [{ url, kind: text, status: 200, title: text, word_count: 10, seo_score: 40, aeo_score: 70, issues: [{ check: text, severity: text, message: other }] }],
          [key]: { [other]: url, nested: [text, { [text]: url }] },
        }
        assertNoInjectedMarkup(await renderDocument(ReportLayout({ title: text, children: AuditReport({ audit, runId: text }) })))
      }),
      { numRuns: 150 },
    )
  })

  it('hostile strings in a research output never produce markup, script or unsafe links', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostileUrl, hostile, async (text, url, key) => {
        const section = (status: string) => ({
          status,
          data: status === 'ok' ? { [key]: text, link: url, list: [{ [text]: url }] } : null,
          sources: [url, text],
          fetched_at: text,
          duration_ms: 3,
          note: text,
          cached: true,
        })
        const report = {
          domain: text,
          generated_at: text,
          sections: { [key]: section('ok'), news: section('unavailable'), people: section(text), visual_timeline: { ...section('ok'), data: { artifact_id: text, url: text } } },
          [key]: text,
        }
        const images = new Map([[text, `data:image/png;base64,AAAA`]])
        assertNoInjectedMarkup(await renderDocument(ReportLayout({ title: text, children: ResearchReport({ report, runId: text, images }) })))
      }),
      { numRuns: 150 },
    )
  })
})
