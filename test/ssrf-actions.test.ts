import { describe, expect, it } from 'vitest'
import { env } from 'cloudflare:test'
import { FAILING_NAMES } from './fake-dns'
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

  it.each(['http://169.254.169.254/latest/meta-data/', 'https://metadata.rebind.test/latest/meta-data/'])('refuses to follow a redirect of the audited site to %s', async (target) => {
    const { token } = await newCaller('ssrf-redirect')
    const seen = mockFetch((req) => {
      const url = new URL(req.url)
      if (url.hostname !== 'redirecting.example') return null
      if (url.pathname === '/robots.txt') return new Response('User-agent: *\nAllow: /\n')
      return new Response(null, { status: 302, headers: { location: target } })
    })
    const res = await action('aeo_seo_research_generate_research_action', { topic: 'shoes', website_url: 'https://redirecting.example/' }, token)
    expect(res.status).toBeLessThan(500)
    expect(seen.filter((r) => new URL(r.url).hostname === 'redirecting.example').length).toBeGreaterThan(0)
    expect(seen.some((r) => new URL(r.url).hostname === new URL(target).hostname)).toBe(false)
  })

  it.each(Object.keys(FAILING_NAMES))('refuses %s before queuing when its lookup fails, and says so', async (name) => {
    const { accountId, token } = await newCaller('ssrf-dns-failure')
    const seen = mockFetch(() => new Response('should not be reached', { status: 418 }))
    const res = await action('content_audit_generate_audit_action', { website_url: `https://${name}/` }, token)
    total++
    if (res.status === 400 || res.status === 502) refused++
    if (name === 'nxdomain.rebind.test' || name === 'noaddress.rebind.test') {
      expect(res.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', details: [{ path: '/website_url' }] })
      expect(res.body.error).toMatch(new RegExp(`website_url: the host ${name.replace(/\./g, '\\.')} cannot be reached`))
    } else {
      expect(res.body).toMatchObject({ status: 502, code: 'UPSTREAM_FAILED' })
      expect(res.body.error).toMatch(new RegExp(`^DNS lookup for ${name.replace(/\./g, '\\.')} failed: .*nothing was fetched`))
    }
    expect(seen).toEqual([])
    const runs = await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE account_id = ?').bind(accountId).first<{ n: number }>()
    expect(runs!.n).toBe(0)
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
    console.log(`ssrf: ${refused} of ${total} hostile requests refused (a 400 naming the field; 502 when the name's lookup failed), ${HOSTILE_URLS.length} hostile targets`)
    expect(refused).toBe(total)
    expect(total).toBeGreaterThanOrEqual(cases.length * 30)
  })
})
