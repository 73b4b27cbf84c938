import { describe, expect, it } from 'vitest'
import { parsePage } from '../../src/research/html'

describe('company research page reading (the shared HTML reader)', () => {
  it('reads title, meta, JSON-LD, links, scripts, headings and text, entity-decoded', async () => {
    const html = `<!doctype html><html><head><title>Acme &amp; Co</title>
      <meta name="description" content="Tools &amp; parts"><meta property="og:title" content="Acme">
      <script type="application/ld+json">{"@graph":[{"@type":"Organization","name":"Acme"},{"@type":"WebSite"}]}</script>
      <script src="/app.js"></script><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
      <body><svg><title>logo</title></svg><h1>About &lt;Acme&gt;</h1><h4>skipped</h4>
      <p>We make <a href="/tools" title="Tools">tools</a> since 1990.</p><ul><li>One</li><li>Two <b>bold</b></li></ul>
      <a href="https://x.test/" aria-label="X profile"></a></body></html>`
    const facts = await parsePage(html, 'https://acme.test/about')
    expect(facts.title).toBe('Acme & Co')
    expect(facts.meta).toMatchObject({ description: 'Tools & parts', 'og:title': 'Acme' })
    expect(facts.jsonLd.map((o) => o['@type'])).toEqual(['Organization', 'WebSite'])
    expect(facts.scripts).toEqual(['https://acme.test/app.js'])
    expect(facts.headings).toEqual(['About <Acme>'])
    expect(facts.links).toEqual([
      { href: 'https://acme.test/feed.xml', text: '', rel: 'alternate', type: 'application/rss+xml' },
      { href: 'https://acme.test/tools', text: 'tools', rel: null, type: null },
      { href: 'https://x.test/', text: 'X profile', rel: null, type: null },
    ])
    expect(facts.text).toBe('We make tools since 1990.\nOne\nTwo bold')
  })

  it('skips broken JSON-LD and keeps reading', async () => {
    const facts = await parsePage('<script type="application/ld+json">{"@type": }</script><p>Still here.</p>', 'https://acme.test/')
    expect(facts.jsonLd).toEqual([])
    expect(facts.text).toBe('Still here.')
  })
})
