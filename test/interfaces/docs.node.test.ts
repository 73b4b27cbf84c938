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

  it('sends a request with the token typed into the page', async () => {
    const { token } = inject('devServer')
    const page = await browser.newPage()
    await page.goto(`${url}/docs`)
    await page.waitForSelector('body[data-ready="true"]')
    await page.fill('#token', token)
    const section = page.locator('section[data-action="search"]')
    await section.locator('summary', { hasText: 'Try it' }).click()
    await section.locator('textarea').fill('{"query":"youtube","limit":1}')
    await section.locator('button').click()
    // A whole search round trip through the dev server: far more than the 1 s poll default on a busy machine.
    await expect.poll(() => section.locator('pre').textContent(), { timeout: 15_000 }).toMatch(/^200 /)
    expect(await section.locator('pre').textContent()).toContain('invoke_agent_')
  })
})
