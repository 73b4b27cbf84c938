import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { launchChromium } from '../node/browser'

const { url } = inject('devServer')
let browser: Browser

beforeAll(async () => {
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
})

describe('the /docs page in headless Chromium', () => {
  it('renders every action of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> }
    const expected = Object.keys(doc.paths)
      .filter((p) => p.startsWith('/v1/action/') && !p.includes('{'))
      .map((p) => p.slice('/v1/action/'.length))
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${url}/docs`)
    await page.waitForSelector('body[data-ready="true"]')
    const shown = await page.$$eval('#actions section[data-action]', (els) => els.map((e) => e.getAttribute('data-action')))
    expect(shown).toEqual(expected)
    expect(shown).toContain('search')
    expect(await page.textContent('#status')).toContain(`${expected.length} actions`)
    expect(errors).toEqual([])
  })

  /** The /docs page signed in with the dev server's token, with an action's "Try it" open. */
  async function openTryIt(action: string) {
    const { token } = inject('devServer')
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.waitForSelector('body[data-ready="true"]')
    await page.fill('#token', token)
    const section = page.locator(`section[data-action="${action}"]`)
    await section.locator('summary', { hasText: 'Try it' }).click()
    return section
  }

  it('sends a request with the token typed into the page', async () => {
    const section = await openTryIt('search')
    await section.locator('textarea').fill('{"query":"youtube","limit":1}')
    await section.locator('button').click()
    // A whole search round trip through the dev server: far more than the 1 s poll default on a busy machine.
    await expect.poll(() => section.locator('pre').textContent(), { timeout: 15_000 }).toMatch(/^200 /)
    expect(await section.locator('pre').textContent()).toContain('invoke_agent_')
  })

  it('says each default once, in its own column', async () => {
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.waitForSelector('body[data-ready="true"]')
    const rows = await page.$$eval('#actions section[data-action] table.fields tbody tr', (trs) =>
      trs.map((tr) => ({
        action: tr.closest('section')?.getAttribute('data-action'),
        field: tr.getAttribute('data-field'),
        def: tr.querySelector('td.default')?.textContent ?? '',
        meaning: tr.querySelector('td.meaning')?.textContent ?? '',
      })),
    )
    expect(rows.length).toBeGreaterThan(50)
    for (const r of rows) expect(r.meaning, `${r.action} ${r.field}`).not.toMatch(/(^|[.;,]\s+)default:?\s/i)
    const row = (action: string, field: string) => rows.find((r) => r.action === action && r.field === field)
    expect(row('search', 'limit')?.def).toBe('10')
    expect(row('search', 'status')?.def).toBe('"public"')
    expect(row('content_audit_generate_audit_action', 'max_pages')).toEqual(expect.objectContaining({ def: '100', meaning: 'Most URLs fetched (pages, redirects and errors alike), 1-1000.' }))
    expect(row('content_audit_generate_audit_action', 'custom_path')?.def).toBe('the path of website_url')
  })

  it('sends Workflow-Id, Idempotency-Key and Prefer from "Try it"', async () => {
    const section = await openTryIt('search')
    const page = section.page()
    const key = `docs-${Date.now()}`
    await section.locator('input[data-header="Workflow-Id"]').fill('docs-page')
    await section.locator('input[data-header="Idempotency-Key"]').fill(key)
    await section.locator('input[data-header="Prefer"]').fill('respond-async')
    await section.locator('textarea').fill('{"query":"youtube","limit":1}')
    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/action/search') && r.method() === 'POST')
    await section.locator('button').click()
    const headers = (await sent).headers()
    expect(headers['workflow-id']).toBe('docs-page')
    expect(headers['idempotency-key']).toBe(key)
    expect(headers.prefer).toBe('respond-async')
    // respond-async answers 202 with the queued run at once.
    await expect.poll(() => section.locator('pre').textContent(), { timeout: 15_000 }).toMatch(/^202 /)
    expect(await section.locator('pre').textContent()).toContain('run_id')
  })
})
