#!/usr/bin/env node
/**
 * `npm run eval:audit`: audits the BrightDesk fixture site (test/fixtures/sites/brightdesk.ts: planted
 * defects beside planted look-alikes, with the expected findings) with ours and with Lighthouse's SEO
 * category in the same run, and prints recall and false positives for both.
 *
 * Ours: the real site discovery, crawler and audit builder (scripts/eval-audit/ours.ts, bundled with
 * esbuild), fed by the fixture's fetch handler. Lighthouse (npm `lighthouse`) audits every page of the
 * same site, served by a local HTTP server, in the project's Chromium (test/node/browser.ts). A finding
 * counts when its check and page are planted (Lighthouse audits mapped to our check ids); any other
 * finding is a false positive (informational findings are not findings).
 *
 * Last line: `audit recall ours=<found>/<planted> fp=<n> lighthouse=<found>/<planted> fp=<n>`.
 */
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Lighthouse SEO audit id -> our check id. */
const LIGHTHOUSE_TO_OURS = {
  'document-title': 'document-title',
  'meta-description': 'meta-description',
  'http-status-code': 'http-status',
  'link-text': 'link-text',
  'crawlable-anchors': 'crawlable-anchors',
  'is-crawlable': 'noindex',
  'robots-txt': 'robots-txt',
  'image-alt': 'image-alt',
  hreflang: 'hreflang',
  canonical: 'canonical',
}

async function loadOurs() {
  // Inside node_modules, so the bundle resolves the packages it leaves external.
  const outdir = join(root, 'node_modules', '.cache', 'eval-audit')
  mkdirSync(outdir, { recursive: true })
  const outfile = join(outdir, 'ours.mjs')
  await build({
    entryPoints: [join(root, 'scripts/eval-audit/ours.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile,
    packages: 'external',
    logLevel: 'error',
  })
  return import(pathToFileURL(outfile).href)
}

/** Serves the fixture site over HTTP at `origin`, rewriting its absolute URLs to the local origin. */
function serve(m) {
  const server = createServer(async (req, res) => {
    const origin = `http://127.0.0.1:${server.address().port}`
    const answer = await m.brightdesk(new Request(m.BRIGHTDESK_ORIGIN + req.url))
    const headers = {}
    for (const [k, v] of answer.headers) headers[k] = v.replaceAll(m.BRIGHTDESK_ORIGIN, origin)
    const body = (await answer.text()).replaceAll(m.BRIGHTDESK_ORIGIN, origin)
    res.writeHead(answer.status, headers)
    res.end(body)
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

async function runLighthouse(m, origin, paths) {
  const { default: lighthouse } = await import('lighthouse')
  const { launch } = await import('chrome-launcher')
  const chrome = await launch({
    chromePath: m.chromiumExecutablePath(),
    chromeFlags: [...m.CHROMIUM_ARGS, '--headless=new'],
    envVars: { ...process.env, ...m.chromiumEnv() },
  })
  const found = new Set()
  try {
    for (const path of paths) {
      const result = await lighthouse(`${origin}${path}`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['seo'] })
      for (const [id, audit] of Object.entries(result.lhr.audits)) {
        if (audit.score !== 0 || audit.scoreDisplayMode === 'manual' || audit.scoreDisplayMode === 'notApplicable') continue
        const check = LIGHTHOUSE_TO_OURS[id] ?? `lighthouse:${id}`
        found.add(check === 'robots-txt' ? `${check} site` : `${check} ${path}`)
      }
    }
  } finally {
    await chrome.kill()
  }
  return found
}

function score(found, planted) {
  let hits = 0
  for (const f of found) if (planted.has(f)) hits++
  return { hits, fp: found.size - hits, missed: [...planted].filter((p) => !found.has(p)), extra: [...found].filter((f) => !planted.has(f)) }
}

async function main() {
  const m = await loadOurs()
  const planted = new Set(Object.entries(m.EXPECTED).flatMap(([check, pages]) => pages.map((p) => `${check} ${p}`)))

  const audit = await m.auditBrightdesk(join(root, 'migrations/0007_crawl.sql'))
  const ours = new Set()
  const path = (url) => url.slice(m.BRIGHTDESK_ORIGIN.length) || '/'
  for (const row of audit.inventory) for (const i of row.issues) if (i.severity !== 'info') ours.add(`${i.check} ${path(row.url)}`)
  for (const c of audit.site_checks) if (!c.passed) ours.add(`${c.check} site`)

  const server = await serve(m)
  const origin = `http://127.0.0.1:${server.address().port}`
  // Every URL that answers a page (HTML pages and the error pages), not redirects or robots-excluded URLs.
  const pages = [...m.BRIGHTDESK_HTML, '/blog/missing-post', '/customers/acme']
  let lh
  try {
    lh = await runLighthouse(m, origin, pages)
  } finally {
    server.close()
  }

  const a = score(ours, planted)
  const b = score(lh, planted)
  console.log(`fixture: BrightDesk, ${m.BRIGHTDESK_HTML.length} HTML pages, ${planted.size} planted defects; Lighthouse audited ${pages.length} URLs`)
  console.log(`ours: found ${a.hits}/${planted.size}, false positives ${a.fp}${a.missed.length ? `; missed ${a.missed.join(', ')}` : ''}${a.extra.length ? `; extra ${a.extra.join(', ')}` : ''}`)
  console.log(`lighthouse: found ${b.hits}/${planted.size}, false positives ${b.fp}${b.extra.length ? `; extra ${b.extra.join(', ')}` : ''}`)
  console.log(`lighthouse missed: ${b.missed.join(', ')}`)
  console.log(`audit recall ours=${a.hits}/${planted.size} fp=${a.fp} lighthouse=${b.hits}/${planted.size} fp=${b.fp}`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
