import { describe, expect, it } from 'vitest'
import { CHECKS, type CheckId, type Finding } from '../../src/audit/checks'
import { pageFindings } from '../../src/audit/page-checks'
import { fetchPage } from '../../src/crawler/fetch-page'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { describeRobots } from '../../src/providers/web/robots'
import expectations from '../fixtures/lighthouse-seo/expectations.json'
import failureCases from '../fixtures/lighthouse-seo/seo-failure-cases.html?raw'
import mixedLanguage from '../fixtures/lighthouse-seo/seo-mixed-language.html?raw'
import robotsTxt from '../fixtures/lighthouse-seo/robots.txt?raw'
import tester from '../fixtures/lighthouse-seo/seo-tester.html?raw'

/**
 * Replays Lighthouse's SEO smoke fixtures (test/fixtures/lighthouse-seo) as its static server
 * serves them, with the extra response headers its smoke definitions add, and maps each
 * Lighthouse audit to the check of ours that covers it.
 */
const ORIGIN = 'http://localhost:10200'
const LIGHTHOUSE_TO_OURS: Record<string, CheckId> = {
  'document-title': 'document-title',
  'meta-description': 'meta-description',
  'http-status-code': 'http-status',
  'crawlable-anchors': 'crawlable-anchors',
  'link-text': 'link-text',
  'is-crawlable': 'noindex',
  hreflang: 'hreflang',
  canonical: 'canonical',
}

function serve(path: string, status = 200): Response {
  const url = new URL(path, ORIGIN)
  const html = (body: string, headers: [string, string][] = []) => {
    const h = new Headers({ 'content-type': 'text/html; charset=utf-8' })
    for (const [k, v] of headers) h.append(k, v)
    return new Response(body, { status, headers: h })
  }
  switch (url.pathname) {
    case '/seo/seo-tester.html':
      return html(tester, [['link', expectations['seo-tester.html'].headers.Link]])
    case '/seo/seo-failure-cases.html': {
      const e = expectations['seo-failure-cases.html'].headers
      return html(failureCases, [['x-robots-tag', e['X-Robots-Tag']], ...e.Link.map((l): [string, string] => ['link', l])])
    }
    case '/seo/seo-mixed-language.html':
      return html(mixedLanguage)
    case '/robots.txt':
      return new Response(robotsTxt, { headers: { 'content-type': 'text/plain' } })
  }
  return new Response('not found', { status: 404 })
}

const fetcher = (status = 200) => createGuardedFetch({ userAgent: 'test', allowPrivate: true, fetcher: async (input) => serve(String(input), status) })

async function audit(path: string, status = 200): Promise<Finding[]> {
  const rec = await fetchPage(fetcher(status), `${ORIGIN}${path}`)
  return pageFindings(rec, { now: Date.parse('2026-11-01'), home: false })
}

const find = (findings: Finding[], check: CheckId) => findings.find((f) => f.check === check)

describe('Lighthouse SEO fixtures', () => {
  it('flags every audit Lighthouse fails on seo-failure-cases.html, with the same items', async () => {
    const findings = await audit('/seo/seo-failure-cases.html')
    const failing = Object.entries(expectations['seo-failure-cases.html'].audits).filter(([, v]) => v === 0 || (typeof v === 'object' && v.score === 0))
    for (const [audit] of failing) expect(find(findings, LIGHTHOUSE_TO_OURS[audit]), audit).toBeDefined()

    const linkText = find(findings, 'link-text')!.details as { text: string; lang: string | null }[]
    expect(linkText.map((l) => l.text)).toEqual(['click this', 'click this', 'CLICK THIS', 'klicke hier', 'click this'])
    expect(linkText[3].lang).toBe('de')

    expect(find(findings, 'hreflang')!.details).toHaveLength(5)
    expect(find(findings, 'noindex')!.details).toEqual(['<meta name="robots" content="nofollow, NOINDEX, all">', 'X-Robots-Tag: none'])
    expect(find(findings, 'canonical')!.message).toBe('Multiple conflicting canonical URLs (https://example.com/other, https://example.com/)')
    // Lighthouse finds 3; the third is an addEventListener('mousedown') link that only a browser can see.
    const anchors = find(findings, 'crawlable-anchors')!.details as { href: string | null; reason: string }[]
    expect(anchors.map((a) => a.href)).toEqual([null, 'javascript:void(0)'])
  })

  it('flags no error on seo-tester.html, which passes every Lighthouse SEO audit but crawlable-anchors', async () => {
    const findings = await audit('/seo/seo-tester.html')
    const passing = Object.entries(expectations['seo-tester.html'].audits).filter(([, v]) => v === 1)
    for (const [audit] of passing) if (LIGHTHOUSE_TO_OURS[audit]) expect(find(findings, LIGHTHOUSE_TO_OURS[audit]), audit).toBeUndefined()
    expect(findings.filter((f) => CHECKS[f.check].severity === 'error')).toEqual([])
    // Of the two failing anchors only the inline onclick one is visible without a browser.
    expect((find(findings, 'crawlable-anchors')!.details as { text: string }[]).map((a) => a.text)).toEqual(['Some link'])
  })

  it('finds the 15 non-descriptive links of seo-mixed-language.html with their languages', async () => {
    const findings = await audit('/seo/seo-mixed-language.html')
    const links = find(findings, 'link-text')!.details as { text: string; lang: string | null }[]
    const expected = expectations['seo-mixed-language.html'].audits['link-text'].items
    expect(links.map((l) => `${l.text}(${l.lang ?? '?'})`)).toEqual(expected)
  })

  it('reports only the status of a page served with 403, as Lighthouse errors the document', async () => {
    const findings = await audit('/seo/seo-failure-cases.html', 403)
    expect(findings.map((f) => f.check)).toEqual(['http-status'])
  })

  it('accepts the fixture robots.txt and flags malformed ones', () => {
    expect(describeRobots(`${ORIGIN}/robots.txt`, 200, robotsTxt, ORIGIN).errors).toEqual([])
    const bad = describeRobots(`${ORIGIN}/robots.txt`, 200, 'Disallow: /a\nUser-agent: *\nDisallow: nope\nSitemap: /relative.xml\nFoo: bar\njunk line', ORIGIN)
    expect(bad.errors.map((e) => e.message)).toEqual([
      'No user-agent specified',
      'Pattern should either be empty, start with "/" or "*"',
      'Invalid sitemap URL',
      'Unknown directive "Foo"',
      'Syntax not understood',
    ])
  })
})
