import type { PageRecord } from '../crawler/fetch-page'
import type { SiteInfo } from '../crawler/site'
import { descriptionKey, titleKey } from '../providers/web/html'
import { AI_CRAWLERS } from '../providers/web/robots'
import { squash } from '../lib/text'
import type { Finding } from './checks'
import { canonicalCheck, indexBlockers } from './page-checks'

/** A crawled URL with what the crawler knows about it. */
export interface CrawledPage {
  url: string
  depth: number
  source: string
  rec: PageRecord
}

/** Whether a page is an indexable, self-canonical HTML page (the ones duplicates and keyphrases are judged on). */
export function isPrimary(p: CrawledPage, now: number): boolean {
  if (p.rec.kind !== 'html' || !p.rec.html) return false
  if (indexBlockers(p.rec, now).length) return false
  const c = canonicalCheck(p.rec)
  return !c.target || c.target === p.url
}

/** Follows redirect records from `url`; returns the hops and whether it loops. */
export function redirectPath(url: string, byUrl: Map<string, CrawledPage>): { hops: string[]; loop: boolean; final: CrawledPage | null } {
  const hops: string[] = []
  const seen = new Set<string>([url])
  let current = byUrl.get(url) ?? null
  while (current && current.rec.kind === 'redirect' && current.rec.location) {
    const next = current.rec.location
    hops.push(next)
    if (seen.has(next)) return { hops, loop: true, final: null }
    seen.add(next)
    current = byUrl.get(next) ?? null
    if (hops.length > 10) return { hops, loop: true, final: null }
  }
  return { hops, loop: false, final: current }
}

/**
 * Checks that need the whole crawl, added per page: duplicate titles and descriptions, broken and
 * redirected internal links, redirect chains and orphan pages.
 */
export function crossPageFindings(pages: CrawledPage[], site: SiteInfo, now: number, home: Set<string>): Map<string, Finding[]> {
  const out = new Map<string, Finding[]>()
  const add = (url: string, f: Finding) => {
    if (!out.has(url)) out.set(url, [])
    out.get(url)!.push(f)
  }
  const byUrl = new Map(pages.map((p) => [p.url, p]))
  const primary = pages.filter((p) => isPrimary(p, now))

  const groupBy = (key: (p: CrawledPage) => string | null) => {
    const groups = new Map<string, string[]>()
    for (const p of primary) {
      const k = key(p)
      if (!k) continue
      if (!groups.has(k)) groups.set(k, [])
      groups.get(k)!.push(p.url)
    }
    return [...groups.entries()].filter(([, urls]) => urls.length > 1)
  }
  // Grouped case- and space-insensitively, by the whole text (the facts may keep a prefix of a long
  // one); quoted as the first page writes it.
  const titleOf = (url: string) => squash(byUrl.get(url)!.rec.html!.titles[0] ?? '')
  const descriptionOf = (url: string) => squash(byUrl.get(url)!.rec.html!.metaDescriptions[0] ?? '')
  for (const [, urls] of groupBy((p) => titleKey(p.rec.html!) || null)) {
    const title = titleOf(urls[0])
    for (const url of urls) add(url, { check: 'duplicate-title', message: `Title "${title}" is shared by ${urls.length} pages: ${urls.join(', ')}`, details: { title, pages: urls } })
  }
  for (const [, urls] of groupBy((p) => descriptionKey(p.rec.html!) || null)) {
    const description = descriptionOf(urls[0])
    for (const url of urls)
      add(url, { check: 'duplicate-description', message: `Meta description "${description}" is shared by ${urls.length} pages: ${urls.join(', ')}`, details: { description, pages: urls } })
  }

  const linkedTo = new Set<string>()
  const linkedFrom = new Map<string, string[]>()
  for (const p of pages) {
    for (const l of p.rec.html?.links ?? []) {
      if (!linkedFrom.has(l.url)) linkedFrom.set(l.url, [])
      linkedFrom.get(l.url)!.push(p.url)
    }
  }
  for (const p of pages) {
    const links = p.rec.html?.links ?? []
    const broken: { url: string; text: string; status: number | null }[] = []
    const redirected: string[] = []
    for (const l of links) {
      linkedTo.add(l.url)
      const target = byUrl.get(l.url)
      if (!target) continue
      if (target.rec.kind === 'error') broken.push({ url: l.url, text: l.text, status: target.rec.status })
      else if (target.rec.kind === 'redirect') {
        const path = redirectPath(l.url, byUrl)
        linkedTo.add(path.final?.url ?? l.url)
        if (path.final?.rec.kind === 'error') broken.push({ url: l.url, text: l.text, status: path.final.rec.status })
        else redirected.push(l.url)
      }
    }
    if (broken.length)
      add(p.url, {
        check: 'broken-links',
        message: `${broken.length} link(s) to missing pages: ${broken
          .slice(0, 3)
          .map((b) => `${b.url} (${b.status ?? 'unreachable'})`)
          .join(', ')}`,
        details: broken,
      })
    if (redirected.length) {
      add(p.url, {
        check: 'redirected-links',
        message: `${redirected.length} link(s) to redirecting URLs: ${redirected
          .slice(0, 3)
          .map((u) => `${u} → ${redirectPath(u, byUrl).hops.at(-1)}`)
          .join(', ')}`,
        details: redirected,
      })
    }
  }

  for (const p of pages) {
    if (p.rec.kind !== 'redirect') continue
    const path = redirectPath(p.url, byUrl)
    if (!path.loop && path.hops.length < 2) continue
    const from = linkedFrom.get(p.url) ?? []
    const via = from.length
      ? `linked from ${from.slice(0, 3).join(', ')}${from.length > 3 ? ` and ${from.length - 3} more` : ''}`
      : `found through the ${p.source === 'sitemap' ? 'sitemap' : p.source}`
    const hops = [p.url, ...path.hops]
    const details = { linked_from: from, hops, target: path.loop ? null : (path.final?.url ?? path.hops.at(-1) ?? null), loop: path.loop }
    if (path.loop) add(p.url, { check: 'redirect-chain', message: `Redirect loop (${via}): ${hops.join(' → ')}`, details })
    else add(p.url, { check: 'redirect-chain', message: `${path.hops.length} redirect hops to ${details.target} (${via}): ${hops.join(' → ')}`, details })
  }

  for (const p of primary) {
    if (home.has(p.url) || p.url === site.startUrl) continue
    if (!linkedTo.has(p.url)) add(p.url, { check: 'orphan-page', message: 'No crawled page links here (found through the sitemap or a redirect)' })
  }
  return out
}

/**
 * Site-level checks: robots.txt validity, sitemaps (the files, and the URLs they list that answer
 * 4xx/5xx), llms.txt and AI crawler access.
 */
export function siteFindings(site: SiteInfo, pages: CrawledPage[] = []): Finding[] {
  const f: Finding[] = []
  const r = site.robots
  if (r.status !== null && r.status >= 500) f.push({ check: 'robots-txt', message: `robots.txt answered HTTP ${r.status}` })
  else if (r.errors.length)
    f.push({
      check: 'robots-txt',
      message: `${r.errors.length} invalid line(s) in robots.txt: ${r.errors
        .slice(0, 3)
        .map((e) => `line ${e.line}: ${e.message}`)
        .join('; ')}`,
      details: r.errors,
    })
  const listed = new Set(site.sitemaps.listed ?? [])
  const failing = pages
    .filter((p) => listed.has(p.url) && p.rec.kind === 'error' && p.rec.status !== null && p.rec.status >= 400)
    .map((p) => ({ url: p.url, status: p.rec.status! }))
    .sort((a, b) => a.url.localeCompare(b.url))
  if (site.sitemaps.fetched.length === 0) f.push({ check: 'sitemap', message: 'No XML sitemap found (robots.txt Sitemap: lines or /sitemap.xml)', details: { files: site.sitemaps.errors } })
  else if (site.sitemaps.errors.length || failing.length) {
    const parts: string[] = []
    if (site.sitemaps.errors.length)
      parts.push(
        `${site.sitemaps.errors.length} sitemap file(s) failed: ${site.sitemaps.errors
          .slice(0, 3)
          .map((e) => `${e.url} (${e.message})`)
          .join(', ')}`,
      )
    if (failing.length)
      parts.push(
        `${failing.length} listed URL(s) answer an error: ${failing
          .slice(0, 5)
          .map((u) => `${u.url} (HTTP ${u.status})`)
          .join(', ')}`,
      )
    f.push({ check: 'sitemap', message: parts.join('; '), details: { files: site.sitemaps.errors, urls: failing } })
  }
  if (!site.llmsTxt.present) f.push({ check: 'llms-txt', message: `${site.llmsTxt.url} is missing` })
  const blocked = new Set(r.blockedAiCrawlers)
  const answers = AI_CRAWLERS.filter((c) => c.purpose === 'answers' && blocked.has(c.agent))
  const training = AI_CRAWLERS.filter((c) => c.purpose === 'training' && blocked.has(c.agent))
  if (answers.length) f.push({ check: 'ai-crawlers', message: `robots.txt blocks ${answers.map((c) => c.agent).join(', ')}`, details: answers })
  if (training.length) f.push({ check: 'ai-training-crawlers', message: `robots.txt blocks ${training.map((c) => c.agent).join(', ')}`, details: training })
  return f
}
