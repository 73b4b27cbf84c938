import { describe, expect, it } from 'vitest'
import { CHECKS, type CheckId } from '../../src/audit/checks'
import { decodeEntities, words } from '../../src/lib/text'
import { BRIGHTDESK_ORIGIN as ORIGIN, EXPECTED, EXPECTED_CANNIBALIZATION, brightdesk } from '../fixtures/sites/brightdesk'
import { action, mockFetch, newCaller, request, type Json } from '../helpers'

const NAME = 'content_audit_generate_audit_action'
const path = (url: string) => url.slice(ORIGIN.length) || '/'

async function auditBrightdesk(): Promise<Json> {
  mockFetch(brightdesk)
  const { token } = await newCaller()
  const started = await action(NAME, { website_url: `${ORIGIN}/` }, token, { prefer: 'respond-async' })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  for (let i = 0; i < 20; i++) {
    const res = await request('GET', `/v1/runs/${started.body.response.run_id}?wait=20`, { token })
    const run = res.body.response
    if (run.state === 'failed') throw new Error(JSON.stringify(run.error))
    if (run.state === 'succeeded') return run.output
  }
  throw new Error('the audit did not finish')
}

/** check -> flagged paths ("site" for site-level checks), leaving out informational findings. */
function flagged(audit: Json): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const add = (check: string, where: string) => (out[check] ??= []).push(where)
  for (const row of audit.inventory) for (const issue of row.issues) if (issue.severity !== 'info') add(issue.check, path(row.url))
  for (const c of audit.site_checks) if (!c.passed) add(c.check, 'site')
  for (const list of Object.values(out)) list.sort()
  return out
}

/** Lower-cased words joined by single spaces: text as findings are compared with it. */
const norm = (text: string) => words(decodeEntities(text)).join(' ')

describe('content audit precision on the BrightDesk fixture site', () => {
  it('finds every planted defect and flags none of the look-alikes', async () => {
    const audit = await auditBrightdesk()
    const expected = Object.fromEntries(Object.entries(EXPECTED).map(([check, pages]) => [check, [...pages].sort()]))
    expect(flagged(audit)).toEqual(expected)
    expect(audit.keyword_cannibalization.map((g: Json) => ({ keyphrase: g.keyphrase, pages: g.pages.map((p: Json) => path(p.url)).sort() }))).toEqual(EXPECTED_CANNIBALIZATION)
    // The robots-excluded area is reported as a fact, not a defect, and no advice exposes it.
    const excluded = audit.inventory.find((r: Json) => path(r.url) === '/internal/dashboard')
    expect(excluded.issues).toEqual([expect.objectContaining({ check: 'robots-excluded', severity: 'info' })])
    expect(audit.action_plan.map((p: Json) => p.check)).not.toContain('robots-excluded')
  })

  it('puts every failed check in the action plan', async () => {
    const audit = await auditBrightdesk()
    const failed = Object.keys(flagged(audit)).sort()
    expect(audit.action_plan.map((p: Json) => p.check).sort()).toEqual(failed)
  })

  it('quotes only what the pages say: every quoted text, keyphrase and count comes from the page', async () => {
    const audit = await auditBrightdesk()
    const sources = new Map<string, string>()
    for (const row of audit.inventory) {
      const res = await brightdesk(new Request(row.url))
      sources.set(row.url, res && res.status < 300 ? norm(await res.text()) : '')
    }
    let quotes = 0
    for (const row of audit.inventory) {
      for (const issue of row.issues) {
        for (const [, quoted] of issue.message.matchAll(/"([^"]+)"/g)) {
          // Duplicate titles quote the text of every page that shares it.
          const pages = issue.check === 'duplicate-title' || issue.check === 'duplicate-description' ? (issue.message.match(/https?:\/\/\S+?(?=,|$)/g) ?? [row.url]) : [row.url]
          for (const p of pages) expect(sources.get(p), `${issue.check} on ${path(row.url)} quotes "${quoted}"`).toContain(norm(quoted))
          quotes++
        }
      }
    }
    expect(quotes).toBeGreaterThan(10)
    for (const group of audit.keyword_cannibalization) {
      for (const p of group.pages) {
        expect(sources.get(p.url)).toContain(norm(p.phrase_on_page))
        expect(norm(`${p.title} ${p.h1}`)).toContain(norm(p.phrase_on_page))
        // Real counts: the main text says the phrase at least this often.
        expect(p.evidence.body_mentions).toBeGreaterThanOrEqual(2)
        expect(sources.get(p.url)!.split(norm(p.phrase_on_page)).length - 1).toBeGreaterThanOrEqual(p.evidence.body_mentions)
      }
    }
  })

  it('carries its evidence: links, images, redirect hops, sitemap statuses, click depth', async () => {
    const audit = await auditBrightdesk()
    const issue = (p: string, check: CheckId) => audit.inventory.find((r: Json) => path(r.url) === p)?.issues.find((i: Json) => i.check === check)
    expect(issue('/blog/', 'link-text').message).toContain(`"Read more" → ${ORIGIN}/blog/release-notes`)
    expect(issue('/blog/customer-story', 'image-alt').message).toContain('/img/acme-team.jpg')
    expect(issue('/blog/customer-story', 'image-alt').message).not.toContain('divider')
    const chain = issue('/old-pricing', 'redirect-chain')
    expect(chain.message).toContain(`linked from ${ORIGIN}/blog/customer-story`)
    expect(chain.message).toContain(`${ORIGIN}/old-pricing → ${ORIGIN}/pricing-2023 → ${ORIGIN}/pricing`)
    const dup = issue('/integrations/slack', 'duplicate-title')
    expect(dup.message).toContain(`${ORIGIN}/integrations/slack`)
    expect(dup.message).toContain(`${ORIGIN}/integrations/teams`)
    const sitemap = audit.site_checks.find((c: Json) => c.check === 'sitemap')
    expect(sitemap.message).toContain(`${ORIGIN}/customers/acme (HTTP 410)`)
    const depth = Object.fromEntries(audit.inventory.map((r: Json) => [path(r.url), r.depth]))
    expect(depth['/']).toBe(0)
    expect(depth['/pricing']).toBe(1)
    expect(depth['/blog/customer-story']).toBe(2)
    expect(depth['/pricing-2023']).toBe(3)
    expect(depth['/customers/beta']).toBeNull()
    for (const row of audit.inventory) for (const i of row.issues) expect(CHECKS[i.check as CheckId], i.check).toBeDefined()
  })
})
