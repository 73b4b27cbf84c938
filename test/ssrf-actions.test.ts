import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, type Json } from './helpers'
import { HOSTILE_URLS } from './ssrf-targets'

/**
 * Every action that fetches a caller-given URL, with every hostile target: each is refused with a 400
 * naming the field, and no request leaves for it.
 */
const httpTargets = HOSTILE_URLS
/** The host part alone, as a caller would type a domain. */
const hostOf = (u: string) => new URL(u).hostname

const httpHosts = HOSTILE_URLS.filter((u) => /^https?:\/\//.test(u) && !u.includes('@'))
const cases: [string, (url: string) => Record<string, unknown>, string, string[]?][] = [
  ['content_audit_generate_audit_action', (url) => ({ website_url: url }), '/website_url'],
  ['aeo_seo_research_generate_research_action', (url) => ({ topic: 'trail shoes', website_url: url }), '/website_url'],
  // A domain field gets the URL as written: the scheme is stripped, and what remains must be a public name.
  ['company_research_v2_run_full_research', (url) => ({ domain: url }), '/domain'],
  ['company_research_v2_start_research', (url) => ({ domain: url }), '/domain'],
  ['company_research_v2_run_full_research', (url) => ({ domain: hostOf(url) }), '/domain', httpHosts],
  ['get_video_transcript', (url) => ({ url }), '/url'],
  ['content_audit_generate_audit_action', (url) => ({ website_url: 'https://www.example.com/', callback_url: url }), '/callback_url'],
]

let refused = 0
let total = 0

describe('SSRF through actions', () => {
  it.each(cases)('%s refuses every hostile target with a 400', async (name, body, field, targets = httpTargets) => {
    const { token } = await newCaller('ssrf')
    const seen = mockFetch(() => new Response('should not be reached', { status: 418 }))
    for (const url of targets) {
      const res = await action(name, body(url), token)
      total++
      if (res.status === 400 && (res.body.details as Json[]).some((d) => d.path === field)) refused++
      expect(res.status, `${name} ${url}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body.error.length).toBeGreaterThan(10)
    }
    expect(seen.map((r) => r.url)).toEqual([])
  })

  it('refuses to follow a redirect of the audited site to a private address', async () => {
    const { token } = await newCaller('ssrf-redirect')
    const seen = mockFetch((req) => {
      const url = new URL(req.url)
      if (url.hostname !== 'redirecting.example') return null
      if (url.pathname === '/robots.txt') return new Response('User-agent: *\nAllow: /\n')
      return new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
    })
    const res = await action('aeo_seo_research_generate_research_action', { topic: 'shoes', website_url: 'https://redirecting.example/' }, token)
    expect(res.status).toBeLessThan(500)
    expect(seen.some((r) => new URL(r.url).hostname === '169.254.169.254')).toBe(false)
  })

  it('posts without a link card, never fetching a hostile link in the content', async () => {
    const { alice, FakeAtproto } = await import('./social/fake-pds')
    const pds = new FakeAtproto()
    const seen = mockFetch(pds.handle)
    const { token } = await newCaller('ssrf-post')
    const res = await action('post_to_social', { username: alice.handle, password: alice.password, content: 'see http://169.254.169.254/latest/meta-data/ and http://localhost:8080/' }, token)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(seen.some((r) => ['169.254.169.254', 'localhost'].includes(new URL(r.url).hostname))).toBe(false)
  })

  it('refused every hostile target', () => {
    console.log(`ssrf: ${refused} of ${total} hostile requests refused with a 400 naming the field`)
    expect(refused).toBe(total)
    expect(total).toBeGreaterThanOrEqual(cases.length * 30)
  })
})
