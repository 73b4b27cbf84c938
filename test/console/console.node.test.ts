/**
 * The console and the report pages in headless Chromium against the Worker under `wrangler dev`
 * (test/node/global-setup.ts): no request leaves the origin, no console errors, axe-core finds no
 * serious or critical violation, and each page is screenshotted into test-output/screenshots/
 * (git-ignored) for a person to look at.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { timelineSvg } from '../../src/research/timeline'
import { launchChromium } from '../node/browser'

const { url, token } = inject('devServer')
// Where global-setup's `startDevServer({ name: 'node-tests' })` keeps the server's local D1 and KV.
const PERSIST = join('.bench', 'node-tests')
const SHOTS = join('test-output', 'screenshots')
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const audit = JSON.parse(readFileSync('test/fixtures/console/trailgear-audit.json', 'utf8')) as { scores: { seo: number; aeo: number; overall: number }; action_plan: { issue: string }[] }

let browser: Browser
let accountId: string
const ids = { audit: 'run_consoleAuditFixture01', research: 'run_consoleResearchFixt01', running: 'run_consoleRunningFixtu01', failed: 'run_consoleFailedFixtur01' }
const HOSTILE_NAME = '<img src=x onerror=alert(1)> Hostile "agent"'

function wrangler(args: string[]) {
  const r = spawnSync('wrangler', [...args, '--local', '--persist-to', PERSIST], { encoding: 'utf8', env: { ...process.env, CI: 'true' } })
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`)
}

const sql = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)

/** Fixture runs written into the dev server's D1 as the runtime writes them, and the timeline in its KV. */
function loadFixtures() {
  // A little ahead of the clock, so the fixtures are the newest runs whatever other node tests ran with this account.
  const now = Date.now() + 900_000
  const at = new Date(now - 3_600_000).toISOString()
  const svg = timelineSvg('Acme Corp', [
    { date: '2019-04-01', label: 'Founded', kind: 'founding', source: 'https://acme.example/about' },
    { date: '2022-06-15', label: 'Series A ($12.0M)', kind: 'funding', source: 'https://crunchbase.example/acme' },
    { date: '2026-02-10', label: 'Acme opens a Berlin office', kind: 'news', source: 'https://news.example/acme-berlin' },
  ])
  const artifact = 'art_consoleTimeline01'
  const dir = join(PERSIST, 'console-fixtures')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'timeline.svg'), svg)
  wrangler(['kv', 'key', 'put', `artifact:${accountId}:${artifact}`, '--binding', 'CACHE', '--path', join(dir, 'timeline.svg'), '--metadata', JSON.stringify({ contentType: 'image/svg+xml' })])
  const section = (status: string, data: unknown, sources: string[], note: string | null, ms: number) => ({ status, data, sources, fetched_at: at, duration_ms: ms, note, cached: false })
  const research = {
    domain: 'acme.example',
    generated_at: at,
    sections: {
      company_overview: section(
        'ok',
        { name: 'Acme Corp', description: 'Industrial anvils and rocket skates.', founded: { value: '2019', source: 'https://acme.example/about' }, headquarters: 'Springfield' },
        ['https://acme.example/about', 'https://www.wikidata.org/wiki/Q1'],
        null,
        412,
      ),
      visual_timeline: section(
        'ok',
        {
          url: `/v1/artifacts/${artifact}`,
          artifact_id: artifact,
          content_type: 'image/svg+xml',
          milestones: [{ date: '2019-04-01', label: 'Founded', kind: 'founding', source: 'https://acme.example/about' }],
        },
        ['https://acme.example/about'],
        'Fetch the SVG at url with the same bearer token.',
        4,
      ),
      homepage_screenshot: section('unavailable', null, [], 'Not configured: set CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN.', 0),
      financials: section('unavailable', null, ['https://efts.sec.gov/LATEST/search-index?q=acme'], 'No SEC filer matches this company.', 230),
      news: section(
        'ok',
        { articles: [{ title: 'Acme opens a Berlin office', url: 'https://news.example/acme-berlin', published_at: '2026-02-10T08:00:00Z', source: 'news.example' }], company_posts: [] },
        ['https://news.example/acme-berlin'],
        null,
        800,
      ),
      web_traffic: section('error', null, [], 'tranco-list.example timed out after 10 s', 10000),
    },
    summary: { ok: ['company_overview', 'visual_timeline', 'news'], unavailable: ['homepage_screenshot', 'financials'], error: ['web_traffic'] },
    cache: { hits: [], refreshed: false },
  }
  const row = (id: string, action: string, state: string, input: unknown, output: unknown, extra: { error?: [string, string, number]; progress?: unknown; created: number; attempts?: number }) =>
    `INSERT INTO runs (id, account_id, action, state, input, output, error, error_code, error_status, progress, attempts, created_at, started_at, finished_at) VALUES (${[
      sql(id),
      sql(accountId),
      sql(action),
      sql(state),
      sql(JSON.stringify(input)),
      output === null ? 'NULL' : sql(JSON.stringify(output)),
      sql(extra.error?.[0] ?? null),
      sql(extra.error?.[1] ?? null),
      sql(extra.error?.[2] ?? null),
      extra.progress ? sql(JSON.stringify(extra.progress)) : 'NULL',
      extra.attempts ?? 1,
      extra.created,
      extra.created + 50,
      state === 'succeeded' || state === 'failed' ? extra.created + 4200 : 'NULL',
    ].join(', ')});`
  const statements = [
    `DELETE FROM runs WHERE id IN (${Object.values(ids).map(sql).join(', ')});`,
    row(ids.audit, 'content_audit_generate_audit_action', 'succeeded', { website_url: 'https://trailgear.example/', audit_scope: 'full_site', optimization_focus: 'balanced', max_pages: 100 }, audit, {
      created: now - 600_000,
      attempts: 4,
    }),
    row(ids.research, 'company_research_v2_run_full_research', 'succeeded', { domain: 'acme.example' }, research, { created: now - 500_000, attempts: 1 }),
    row(ids.running, 'content_audit_generate_audit_action', 'running', { website_url: 'https://big.example/', max_pages: 500 }, null, {
      created: now - 20_000,
      progress: { phase: 'crawling', pages_fetched: 120, pages_queued: 310, max_pages: 500 },
    }),
    row(ids.failed, 'post_to_social', 'failed', { username: 'alice.bsky.social', password: '[redacted]', content: 'Hello <b>world</b>' }, null, {
      created: now - 400_000,
      error: ['Bluesky refused the login: invalid app password', 'UPSTREAM_FAILED', 502],
    }),
  ]
  writeFileSync(join(dir, 'runs.sql'), statements.join('\n'))
  wrangler(['d1', 'execute', 'DB', '--file', join(dir, 'runs.sql')])
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return (await res.json()) as { status: number; response: Record<string, unknown> }
}

beforeAll(async () => {
  browser = await launchChromium()
  accountId = String((await api('GET', '/v1/me')).response.account_id)
  const created = await api('POST', '/v1/agents', {
    name: HOSTILE_NAME,
    description: 'Writes a subject line </script><script>alert(2)</script>',
    visibility: 'private',
    parameters: {
      type: 'object',
      properties: {
        meeting_title: { type: 'string', description: 'Title of the meeting' },
        attendees: { type: 'integer', description: 'How many people attend', default: 2 },
        tone: { type: 'string', enum: ['formal', 'friendly'], description: 'Tone of the line' },
        urgent: { type: 'boolean', description: 'Mark as urgent' },
      },
      required: ['meeting_title'],
    },
    workflow: { steps: [{ id: 'subject', action: 'meeting_prep_generate_subject_line', input: { meeting_title: '{{input.meeting_title}}' } }] },
  })
  expect(created.status, JSON.stringify(created)).toBe(201)
  loadFixtures()
  rmSync(SHOTS, { recursive: true, force: true })
  mkdirSync(SHOTS, { recursive: true })
})

afterAll(async () => {
  await browser?.close()
})

/** A page that records every request, console error, page error and dialog. */
async function watchedPage(): Promise<{ page: Page; requests: string[]; errors: string[]; dialogs: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  const page = await context.newPage()
  const requests: string[] = []
  const errors: string[] = []
  const dialogs: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.accept()
  })
  return { page, requests, errors, dialogs }
}

function expectSameOrigin(requests: string[]) {
  const outside = requests.filter((r) => !r.startsWith(`${url}/`) && !r.startsWith('data:'))
  expect(outside).toEqual([])
}

/** axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern). */
async function expectAccessible(page: Page) {
  await page.evaluate(axeSource)
  const result = (await page.evaluate(() => (globalThis as unknown as { axe: { run: (o: unknown) => Promise<unknown> } }).axe.run({ resultTypes: ['violations'] }))) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]
  }
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 5)
          .join(', ')})`,
    )
  expect(bad).toEqual([])
}

/** The page passes axe, made no request off the origin, and raised no script error or dialog. */
async function expectCleanPage(page: Page, seen: { requests: string[]; errors: string[]; dialogs: string[] }) {
  await expectAccessible(page)
  expectSameOrigin(seen.requests)
  expect(seen.errors).toEqual([])
  expect(seen.dialogs).toEqual([])
}

/** Waits until the run detail shows this run: an earlier detail stays on the page until the new one is read. */
async function openedRun(page: Page, id: string) {
  await page.waitForSelector(`#run-detail h2:has-text("${id}")`)
}

async function signIn(page: Page) {
  await page.goto(`${url}/console`)
  await page.fill('#token', token)
  await page.click('#signin-form button[type=submit]')
  await page.waitForSelector('#runs-body tr')
}

describe('the console in headless Chromium', () => {
  it('signs in with a token kept in sessionStorage and lists runs with live progress, redacted input and errors', async () => {
    const { page, requests, errors, dialogs } = await watchedPage()
    await page.goto(`${url}/console`)
    await expectAccessible(page)
    await page.screenshot({ path: join(SHOTS, 'console-signin.png') })
    await signIn(page)
    expect(await page.evaluate(() => sessionStorage.length)).toBe(1)
    expect(await page.evaluate(() => localStorage.length)).toBe(0)
    expect(page.url()).not.toContain(token)
    expect(await page.textContent('#who')).toContain(accountId)
    const rows = await page.$$eval('#runs-body tr', (trs) => trs.map((tr) => tr.getAttribute('data-run')))
    for (const id of Object.values(ids)) expect(rows).toContain(id)
    expect(await page.textContent(`tr[data-run="${ids.running}"]`)).toContain('120 pages fetched, 310 queued')

    // The state filter asks the API again.
    await page.selectOption('#filter-state', 'failed')
    await page.click('#runs-filter button[type=submit]')
    await expect.poll(() => page.$$eval('#runs-body tr', (trs) => trs.map((tr) => tr.querySelector('.badge')?.textContent))).not.toContain('succeeded')
    await page.click(`button[aria-label="Open run ${ids.failed}"]`)
    await openedRun(page, ids.failed)
    const failed = (await page.textContent('#run-detail')) ?? ''
    expect(failed).toContain('"password": "[redacted]"')
    expect(failed).toContain('UPSTREAM_FAILED')
    expect(failed).toContain('Hello <b>world</b>')
    expect(await page.$('#run-detail b')).toBeNull()

    await page.selectOption('#filter-state', '')
    await page.click('#runs-filter button[type=submit]')
    await page.waitForSelector(`button[aria-label="Open run ${ids.running}"]`)
    await page.click(`button[aria-label="Open run ${ids.running}"]`)
    await openedRun(page, ids.running)
    await expect.poll(async () => (await page.textContent('#run-detail')) ?? '').toContain('refreshing every 2 seconds')
    const before = requests.filter((r) => r.includes(`/v1/runs/${ids.running}`)).length
    await expect.poll(() => requests.filter((r) => r.includes(`/v1/runs/${ids.running}`)).length, { timeout: 10_000 }).toBeGreaterThan(before)

    await page.click(`button[aria-label="Open run ${ids.audit}"]`)
    await page.waitForSelector('#open-report')
    await page.screenshot({ path: join(SHOTS, 'console-runs.png') })
    await expectCleanPage(page, { requests, errors, dialogs })
  })

  it('opens the audit report from a run: gauges, plan and inventory, without the token in the URL', async () => {
    const { page, requests, errors, dialogs } = await watchedPage()
    await signIn(page)
    await page.click(`button[aria-label="Open run ${ids.audit}"]`)
    await page.click('#open-report')
    await page.waitForURL(/\/report\?/)
    expect(page.url()).not.toContain(token)
    expect(page.url()).toContain('signature=')
    for (const [label, key] of [
      ['SEO', 'seo'],
      ['AEO', 'aeo'],
      ['Overall', 'overall'],
    ] as const) {
      expect(await page.textContent(`text[data-score="${label}"]`)).toBe(String(audit.scores[key]))
    }
    const plan = await page.$$eval('#action-plan tbody tr td:nth-child(3) strong', (els) => els.map((e) => e.textContent))
    expect(plan).toEqual(audit.action_plan.map((i) => i.issue))
    const total = await page.$$eval('#inventory tbody tr', (trs) => trs.length)
    await page.selectOption('#inventory-filters select[name=kind]', 'redirect')
    const visible = await page.$$eval('#inventory tbody tr', (trs) => trs.filter((tr) => !(tr as unknown as { hidden: boolean }).hidden).length)
    expect(visible).toBeGreaterThan(0)
    expect(visible).toBeLessThan(total)
    expect(await page.textContent('#inventory-count')).toBe(`${visible} of ${total} URLs`)
    await page.selectOption('#inventory-filters select[name=kind]', '')
    await page.screenshot({ path: join(SHOTS, 'report-audit.png') })
    await page.screenshot({ path: join(SHOTS, 'report-audit-full.png'), fullPage: true })
    await expectCleanPage(page, { requests, errors, dialogs })
  })

  it('opens the company research report: sections, sources, timeline and why sections are missing', async () => {
    const { page, requests, errors, dialogs } = await watchedPage()
    await signIn(page)
    await page.click(`button[aria-label="Open run ${ids.research}"]`)
    await page.click('#open-report')
    await page.waitForSelector('#section-company_overview')
    expect(await page.textContent('h1')).toContain('acme.example')
    const timeline = await page.$eval('img.artifact-visual_timeline', (img) => ({
      w: (img as unknown as { naturalWidth: number }).naturalWidth,
      src: (img as unknown as { src: string }).src.slice(0, 26),
    }))
    expect(timeline.src).toBe('data:image/svg+xml;base64,')
    expect(timeline.w).toBeGreaterThan(0)
    expect(await page.textContent('#unavailable')).toContain('Not configured: set CLOUDFLARE_ACCOUNT_ID')
    expect(await page.textContent('#section-web_traffic')).toContain('timed out')
    expect(await page.getAttribute('#section-news a.url', 'rel')).toBe('noopener noreferrer nofollow')
    await page.screenshot({ path: join(SHOTS, 'report-research.png') })
    await page.screenshot({ path: join(SHOTS, 'report-research-full.png'), fullPage: true })
    await expectCleanPage(page, { requests, errors, dialogs })
  })

  it('shows agents with a run form from their parameters, hostile names as text', async () => {
    const { page, requests, errors, dialogs } = await watchedPage()
    await signIn(page)
    await page.click('#nav a[href="#agents"]')
    const open = page.locator('#agents-own').getByRole('button', { name: `Open agent ${HOSTILE_NAME}`, exact: true })
    await open.waitFor()
    await page.waitForSelector('#agents-visible li button')
    await open.click()
    await page.waitForSelector('#agent-form')
    expect(await page.textContent('#agent-detail h2')).toBe(HOSTILE_NAME)
    expect(await page.$('#agent-detail img')).toBeNull()
    expect(await page.getAttribute('#agent-form input[name=meeting_title]', 'required')).not.toBeNull()
    expect(await page.getAttribute('#agent-form input[name=attendees]', 'type')).toBe('number')
    expect(await page.$$eval('#agent-form select[name=tone] option', (os) => os.map((o) => o.textContent))).toEqual(['(none)', 'formal', 'friendly'])
    expect(await page.getAttribute('#agent-form input[name=urgent]', 'type')).toBe('checkbox')
    await page.fill('#agent-form input[name=meeting_title]', 'Acme <> Globex quarterly review')
    await page.fill('#agent-form input[name=attendees]', '12')
    await page.click('#agent-form button[type=submit]')
    await expect.poll(() => page.textContent('#agent-result'), { timeout: 15_000 }).toContain('subject_line')
    await page.screenshot({ path: join(SHOTS, 'console-agents.png') })
    await expectCleanPage(page, { requests, errors, dialogs })
  })

  it('creates and revokes a token, and shows integrations without secrets', async () => {
    const { page, requests, errors, dialogs } = await watchedPage()
    await signIn(page)
    await page.click('#nav a[href="#tokens"]')
    await page.waitForSelector('#tokens-body tr')
    await page.fill('#new-token-name', 'console-test')
    await page.click('#token-create button[type=submit]')
    await page.waitForSelector('#new-token:not([hidden])')
    const shown = await page.inputValue('#new-token-value')
    expect(shown).toMatch(/^aak_/)
    await page.locator('#tokens-body tr', { hasText: 'console-test' }).locator('button').click()
    await expect.poll(() => page.locator('#tokens-body tr', { hasText: 'console-test' }).textContent()).toContain('revoked')
    expect(dialogs).toHaveLength(1)
    expect((await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${shown}` } })).status).toBe(401)
    // The (revoked) token stays out of the screenshot.
    await page.$eval('#new-token-value', (el) => ((el as unknown as { value: string }).value = 'aak_…'))
    await page.screenshot({ path: join(SHOTS, 'console-tokens.png') })
    await expectAccessible(page)

    await page.click('#nav a[href="#integrations"]')
    await page.waitForSelector('#integrations-list li')
    const text = (await page.textContent('#integrations-list')) ?? ''
    expect(text).toContain('Model key: openai')
    expect(text).toContain('CRM: builtin')
    await page.screenshot({ path: join(SHOTS, 'console-integrations.png') })
    // The revoke's confirm was the one dialog; nothing after it.
    await expectCleanPage(page, { requests, errors, dialogs: dialogs.slice(1) })
  })
})
