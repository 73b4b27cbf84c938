import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blogPrefixes, crawlable, underPrefix, type Scope } from '../../src/crawler/scope'
import { discoverSite, isPostSitemap } from '../../src/crawler/site'
import { MAX_DECIDED_URL_LENGTH } from '../../src/providers/web/robots-rules'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from '../fake-dns'
import { arrayWork } from '../array-work'

const ORIGIN = 'https://shop.example.org'

/** A tiny site: `files` maps paths to [status, content-type, body]. */
function siteFetch(files: Record<string, [number, string, string]>) {
  return createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async (input) => {
      const url = new URL(String(input))
      const f = files[url.pathname]
      return f ? new Response(f[2], { status: f[0], headers: { 'content-type': f[1] } }) : new Response('missing', { status: 404 })
    }),
  })
}

const HOME: [number, string, string] = [200, 'text/html', '<html><body><a href="/shop/a">A</a></body></html>']

describe('site discovery', () => {
  // Failed before: every sitemap URL searched the seeds so far, so a sitemap listing 2,000
  // distinct URLs and then one of them 3,000 times compared 6 million seeds (0.85 s in Node for
  // URLs of 2,000 characters).
  it('seeds the crawl from a sitemap of repeated URLs in linear work', async () => {
    const distinct = Array.from({ length: 1998 }, (_, i) => `${ORIGIN}/p${i}`)
    const listed = [...distinct, ...Array<string>(3002).fill(distinct[1997])]
    const sitemap = `<urlset>${listed.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`
    const fetch = siteFetch({ '/': HOME, '/sitemap.xml': [200, 'application/xml', sitemap] })
    const { result, work } = await arrayWork(() => discoverSite(fetch, ORIGIN, 'full_site', undefined, 1000))
    expect(result.seeds).toEqual([`${ORIGIN}/`, ...distinct])
    expect(work).toBeLessThanOrEqual(200 * listed.length)
  })
  it('reports a sitemap robots.txt declares but the site does not serve', async () => {
    const site = await discoverSite(siteFetch({ '/robots.txt': [200, 'text/plain', `User-agent: *\nAllow: /\nSitemap: ${ORIGIN}/sitemap-main.xml`], '/': HOME }), ORIGIN, 'full_site', undefined, 100)
    expect(site.sitemaps.errors).toEqual([{ url: `${ORIGIN}/sitemap-main.xml`, message: 'HTTP 404' }])
  })
  it('does not count a missing /sitemap.xml nobody declared as a failed file', async () => {
    const site = await discoverSite(siteFetch({ '/': HOME }), ORIGIN, 'full_site', undefined, 100)
    expect(site.sitemaps).toMatchObject({ fetched: [], errors: [] })
    expect(site.robots.status).toBe(404)
  })
  it('finds llms.txt served as text, and not an HTML catch-all page', async () => {
    const text = await discoverSite(siteFetch({ '/': HOME, '/llms.txt': [200, 'text/markdown', '# Shop\n> Outdoor gear'] }), ORIGIN, 'full_site', undefined, 100)
    expect(text.llmsTxt.present).toBe(true)
    const spa = await discoverSite(siteFetch({ '/': HOME, '/llms.txt': [200, 'text/html', '<!doctype html><div id=app></div>'] }), ORIGIN, 'full_site', undefined, 100)
    expect(spa.llmsTxt.present).toBe(false)
  })
  it('takes the custom_path scope from the path of website_url when custom_path is not given', async () => {
    const site = await discoverSite(siteFetch({ '/shop/': HOME }), `${ORIGIN}/shop/`, 'custom_path', undefined, 100)
    expect(site.scope).toMatchObject({ prefixes: ['/shop/'], reason: 'path of website_url (/shop/)' })
    expect(site.seeds).toEqual([`${ORIGIN}/shop/`])
  })
  it('fails clearly when blog_only finds no blog section', async () => {
    await expect(discoverSite(siteFetch({ '/': HOME }), ORIGIN, 'blog_only', undefined, 100)).rejects.toMatchObject({ name: 'ProviderError', kind: 'unprocessable', field: 'audit_scope' })
  })
  it('reads a blog_only scope from a feed of more items than a call can take as arguments', async () => {
    // 131,000 items (the most that fit the 5 MB a feed may take with this short host) pass the
    // ~125,000 arguments workerd's stack takes in one call.
    const origin = 'https://b.io'
    const items = `<item><link>${origin}/j</link></item>`.repeat(131_000)
    const home: [number, string, string] = [200, 'text/html', '<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body></body></html>']
    const files = { '/': home, '/feed.xml': [200, 'application/rss+xml', `<rss><channel>${items}</channel></rss>`] as [number, string, string] }
    const site = await discoverSite(siteFetch(files), origin, 'blog_only', undefined, 100)
    expect(site.scope.prefixes).toEqual(['/j'])
  })
  it('fails clearly when robots.txt disallows every start page for our crawler', async () => {
    const files = { '/robots.txt': [200, 'text/plain', 'User-agent: AgentActionAPI\nDisallow: /'] as [number, string, string], '/': HOME }
    await expect(discoverSite(siteFetch(files), ORIGIN, 'full_site', undefined, 100)).rejects.toThrow('robots.txt of https://shop.example.org disallows every starting page')
  })
})

describe('post sitemaps', () => {
  it('names the same sitemaps as the pattern it replaces, for any URL', () => {
    const before = /(post|blog|article|news)[^/]*\.xml(\.gz)?$/i
    const url = fc
      .array(fc.constantFrom('https://a.test', '/', 'post', 'Blog', 'article', 'NEWS', 'news', '-', 'sitemap', '.xml', '.XML', '.gz', '.', 'x', '?', 'ml'), { maxLength: 10 })
      .map((p) => p.join(''))
    fc.assert(
      fc.property(fc.oneof(url, fc.string({ maxLength: 30 })), (u) => {
        expect(isPostSitemap(u)).toBe(before.test(u))
      }),
      { numRuns: 3000 },
    )
  })

  it('returns on a long hostile sitemap URL', () => {
    expect(isPostSitemap(`https://a.test/${'post'.repeat(25_000)}`)).toBe(false)
  })
})

describe('crawl scope in linear work', () => {
  /** `crawlable` as it was before its prefixes were looked up by length: every prefix tested in turn. */
  function crawlableBefore(scope: Scope, url: string): boolean {
    if (url.length > MAX_DECIDED_URL_LENGTH) return false
    let u: URL
    try {
      u = new URL(url)
    } catch {
      return false
    }
    if (u.hostname.toLowerCase().replace(/^www\./, '') !== scope.site) return false
    if (scope.prefixes.length && !scope.prefixes.some((p) => underPrefix(u.pathname, p))) return false
    return !/\.(pdf|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp4|m4v|mov|webm|avi|mp3|wav|ogg|flac|zip|gz|tgz|rar|7z|tar|exe|dmg|msi|apk|css|js|mjs|json|xml|rss|atom|txt|csv|xlsx?|docx?|pptx?|woff2?|ttf|otf|eot)$/i.test(
      u.pathname,
    )
  }
  const part = fc.constantFrom('', '/', '//', 'blog', 'Blog', 'blog/', 'docs', 'docs/a', 'a', '.', '%20', 'é', 'x.pdf', '?q=1', '#f')
  const path = fc.array(part, { maxLength: 5 }).map((p) => p.join(''))

  it('takes the same URLs as before, whatever the prefixes', () => {
    fc.assert(
      fc.property(fc.array(path, { maxLength: 6 }), fc.array(path, { maxLength: 10 }), fc.constantFrom('shop.example.org', 'other.test'), (prefixes, paths, host) => {
        const scope: Scope = { kind: 'custom_path', site: 'shop.example.org', prefixes, reason: '' }
        for (const p of paths) {
          const url = `https://${host}/${p}`
          expect(crawlable(scope, url), url).toBe(crawlableBefore(scope, url))
        }
      }),
      { numRuns: 2000 },
    )
  })

  // Failed before: each link was tested against every prefix, and a site listing its blog section
  // in every letter case ("/Blog", "/bLoG" ...) gives blog_only about 2,800 of them: 840,000
  // prefixes tested for one page's 300 links (20 ms of CPU a crawled page in Node).
  it('tests a page of 300 links against 2,800 blog prefixes in linear work', async () => {
    const words = ['blog', 'blogs', 'news', 'article', 'articles', 'post', 'posts', 'insights', 'stories', 'journal', 'magazine', 'updates', 'press', 'weblog', 'actualites', 'noticias']
    const cases = (w: string) => Array.from({ length: 2 ** w.length }, (_, m) => [...w].map((c, i) => ((m >> i) & 1 ? c.toUpperCase() : c)).join(''))
    const found = blogPrefixes(
      words.flatMap(cases).map((w) => `${ORIGIN}/${w}/post`),
      [],
      [],
      'shop.example.org',
    )
    expect(found.prefixes.length).toBeGreaterThan(2700)
    const scope: Scope = { kind: 'blog_only', site: 'shop.example.org', prefixes: found.prefixes, reason: found.reason }
    const links = Array.from({ length: 300 }, (_, i) => `${ORIGIN}/${i % 2 ? 'shop' : 'BLOG'}/${i}`)
    const { result, work } = await arrayWork(() => links.filter((l) => crawlable(scope, l)))
    expect(result).toHaveLength(150)
    expect(work).toBeLessThanOrEqual(3 * found.prefixes.length + 30 * links.length)
  })
})
