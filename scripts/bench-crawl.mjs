#!/usr/bin/env node
/**
 * `npm run bench:crawl`: a generated local site of 1,000 pages, audited end to end by the real
 * Worker (wrangler dev, local D1 and Queues, ALLOW_PRIVATE_FETCH=true) with the shipped crawl
 * settings, and crawled by crawlee's CheerioCrawler at the same concurrency in the same run, doing
 * the same extraction work (title, meta description, links, headings). Prints pages per second and
 * peak memory (the workerd process's VmHWM/RSS from /proc for ours, process.memoryUsage().rss for
 * the peer). Last line: `pages/s ours=<x> peer=<y>`.
 *
 * Options (env): BENCH_PAGES (default 1000), BENCH_TIMEOUT_S (default 300). CRAWL_CONCURRENCY and
 * CRAWL_PAGES_PER_MESSAGE are the deployment's (wrangler.toml [vars], else the defaults in
 * src/crawler/crawl.ts) unless set in the environment, so the figures are what users get.
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PAGES = Number(process.env.BENCH_PAGES ?? 1000)
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 300) * 1000
const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** A crawl setting as a deployment gets it: the environment, wrangler.toml's [vars], else the code's default. */
function shippedSetting(name) {
  if (process.env[name]) return Number(process.env[name])
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8')
  const fromToml = new RegExp(`^\\s*${name}\\s*=\\s*"?(\\d+)"?`, 'm').exec(toml)
  if (fromToml) return Number(fromToml[1])
  const code = readFileSync(join(root, 'src/crawler/crawl.ts'), 'utf8')
  const fromCode = new RegExp(`intSetting\\(env\\.${name}, (\\d+)`).exec(code)
  if (!fromCode) throw new Error(`no default for ${name} in src/crawler/crawl.ts`)
  return Number(fromCode[1])
}
const CONCURRENCY = shippedSetting('CRAWL_CONCURRENCY')
const PAGES_PER_MESSAGE = shippedSetting('CRAWL_PAGES_PER_MESSAGE')

// ---------- the generated site ----------
const TOPICS = ['hiking', 'camping', 'climbing', 'kayaking', 'cycling', 'running', 'skiing', 'fishing', 'sailing', 'birding']
const WORDS = 'trail summit ridge valley river forest meadow canyon glacier lake shelter route compass layer weather season gear pack boots tent stove water map'.split(' ')

/** The HTML of page `i`: ~600 words, 12 links to other pages, headings, a list, JSON-LD. */
function page(i) {
  const topic = TOPICS[i % TOPICS.length]
  const links = Array.from({ length: 12 }, (_, k) => (i * 7 + k * 13 + 1) % PAGES)
  const para = (seed) =>
    Array.from({ length: 12 }, (_, k) => `The ${WORDS[(seed + k) % WORDS.length]} and the ${WORDS[(seed * 3 + k) % WORDS.length]} shape every ${topic} day.`).join(' ')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${topic} guide ${i} | Bench Outdoors</title>
<meta name="description" content="Guide number ${i} about ${topic}: routes, gear and seasons explained for beginners and experts.">
<link rel="canonical" href="/p/${i}"><meta property="og:title" content="${topic} ${i}">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"${topic} ${i}","datePublished":"2026-01-01","author":{"@type":"Person","name":"Sam"}}</script>
</head><body><header><nav><a href="/">Home</a> <a href="/p/0">Start here</a></nav></header><main>
<h1>${topic} guide ${i}</h1><p>${para(i)}</p><h2>What gear do you need for ${topic}?</h2><p>${para(i + 1)}</p>
<ul>${links.map((l) => `<li><a href="/p/${l}">${TOPICS[l % TOPICS.length]} guide ${l}</a></li>`).join('')}</ul>
<h2>When is the best season?</h2><p>${para(i + 2)}</p><img src="/img/${i}.jpg" alt="${topic}"></main><footer>Bench Outdoors</footer></body></html>`
}

function startSite() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x')
    if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n')
    if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page(0).replace('/p/0"', '/p/1"'))
    const m = /^\/p\/(\d+)$/.exec(url.pathname)
    if (m && Number(m[1]) < PAGES) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(Number(m[1])))
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Highest RSS (kB) seen among workerd processes started under `rootPid`. */
function descendants(rootPid) {
  const parents = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // the process ended
    }
  }
  const out = []
  for (const pid of parents.keys()) {
    for (let p = pid, hops = 0; p && hops < 20; p = parents.get(p), hops++) {
      if (p === rootPid) {
        out.push(pid)
        break
      }
    }
  }
  return out
}

function workerdMemoryKb(rootPid) {
  let rss = 0
  let hwm = 0
  for (const pid of descendants(rootPid)) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('workerd')) continue
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0))
    } catch {
      // the process ended
    }
  }
  return { rss, hwm }
}

// ---------- ours: the real Worker ----------
async function runOurs(siteUrl) {
  const port = await freePort()
  const persist = mkdtempSync(join(tmpdir(), 'bench-crawl-'))
  const admin = randomBytes(16).toString('hex')
  const vars = [
    `ADMIN_TOKEN:${admin}`,
    `ENCRYPTION_KEY:${randomBytes(32).toString('base64')}`,
    'ALLOW_PRIVATE_FETCH:true',
    `CRAWL_CONCURRENCY:${CONCURRENCY}`,
    `CRAWL_PAGES_PER_MESSAGE:${PAGES_PER_MESSAGE}`,
    'RATE_LIMIT_PER_MINUTE:1000',
  ]
  const env = { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' }
  const migrate = spawnSync('wrangler', ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist], { cwd: root, env, encoding: 'utf8' })
  if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`)
  const child = spawn('wrangler', ['dev', '--port', String(port), '--ip', '127.0.0.1', '--persist-to', persist, ...vars.flatMap((v) => ['--var', v])], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  const base = `http://127.0.0.1:${port}`
  const call = async (method, path, body, token) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), prefer: 'respond-async' },
      body: body ? JSON.stringify(body) : undefined,
    })
    return { status: res.status, body: await res.json().catch(() => null) }
  }
  try {
    const ready = Date.now() + 60_000
    for (;;) {
      try {
        if ((await fetch(`${base}/v1/nope`)).status === 404) break
      } catch {
        // not listening yet
      }
      if (Date.now() > ready) throw new Error(`wrangler dev did not start:\n${log.slice(-2000)}`)
      await sleep(250)
    }
    const account = await call('POST', '/v1/admin/accounts', { name: 'bench', rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 }, admin)
    const token = (await call('POST', `/v1/admin/accounts/${account.body.response.id}/tokens`, {}, admin)).body.response.token
    const idle = workerdMemoryKb(child.pid)
    let peakRss = idle.rss
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, workerdMemoryKb(child.pid).rss)), 100)
    const started = performance.now()
    const run = await call('POST', '/v1/action/content_audit_generate_audit_action', { website_url: `${siteUrl}/`, max_pages: PAGES }, token)
    if (run.status !== 202) throw new Error(`audit not accepted: ${JSON.stringify(run.body)}`)
    const deadline = Date.now() + TIMEOUT_MS
    let result
    for (;;) {
      result = (await call('GET', `/v1/runs/${run.body.response.run_id}?wait=30`, null, token)).body.response
      if (result.state === 'succeeded' || result.state === 'failed' || Date.now() > deadline) break
    }
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    if (result.state !== 'succeeded') throw new Error(`audit ended ${result.state}: ${JSON.stringify(result.error ?? result.progress)}`)
    const pages = result.output.summary.urls_crawled
    const analyzingAt = Date.parse(result.progress?.updated_at ?? result.finished_at)
    const phases = { crawl_s: (analyzingAt - Date.parse(result.started_at)) / 1000, analysis_s: (Date.parse(result.finished_at) - analyzingAt) / 1000 }
    phases.avg_response_ms = result.output.summary.average_response_ms
    return { pages, seconds, phases, pps: pages / seconds, peakMb: peakRss / 1024, idleMb: idle.rss / 1024, hwmMb: workerdMemoryKb(child.pid).hwm / 1024, attempts: result.attempts, scores: result.output.scores }
  } finally {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      // already gone
    }
    await sleep(500)
    rmSync(persist, { recursive: true, force: true })
  }
}

// ---------- the peer: crawlee's CheerioCrawler in its own process ----------
async function peerMain(siteUrl, concurrency) {
  const storage = mkdtempSync(join(tmpdir(), 'bench-crawlee-'))
  process.env.CRAWLEE_STORAGE_DIR = storage
  const { CheerioCrawler, Configuration, log, LogLevel } = await import('@crawlee/cheerio')
  log.setLevel(LogLevel.OFF)
  let peak = process.memoryUsage().rss
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100)
  let pages = 0
  let extracted = 0
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: PAGES,
      maxRequestRetries: 1,
      async requestHandler({ $, enqueueLinks }) {
        pages++
        // The same facts our extraction reads for these checks: title, meta description, links, headings.
        const facts = {
          title: $('title').first().text().trim(),
          description: $('meta[name="description"]').attr('content') ?? null,
          links: $('a[href]').map((_, a) => ({ href: $(a).attr('href'), text: $(a).text().trim() })).get(),
          headings: $('h1, h2, h3, h4, h5, h6').map((_, h) => ({ level: Number(h.tagName[1]), text: $(h).text().trim() })).get(),
        }
        extracted += facts.links.length + facts.headings.length
        await enqueueLinks({ strategy: 'same-hostname' })
      },
    },
    new Configuration({ persistStorage: false, storageClientOptions: { localDataDirectory: storage } }),
  )
  const started = performance.now()
  await crawler.run([`${siteUrl}/`])
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  rmSync(storage, { recursive: true, force: true })
  process.stdout.write(JSON.stringify({ pages, extracted, seconds, pps: pages / seconds, peakMb: peak / 1024 / 1024 }) + '\n')
  process.exit(0)
}

function runPeer(siteUrl) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--peer', siteUrl, String(CONCURRENCY)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS)
    child.on('exit', (code) => {
      clearTimeout(timer)
      const line = out.trim().split('\n').pop()
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`peer failed (${code}): ${err.slice(-2000)}`))
      }
    })
  })
}

async function main() {
  if (process.argv[2] === '--peer') return peerMain(process.argv[3], Number(process.argv[4]))
  const server = await startSite()
  const siteUrl = `http://127.0.0.1:${server.address().port}`
  console.log(`site: ${PAGES} generated pages at ${siteUrl}; shipped settings CRAWL_CONCURRENCY=${CONCURRENCY} CRAWL_PAGES_PER_MESSAGE=${PAGES_PER_MESSAGE}; node ${process.version}`)
  try {
    const peer = await runPeer(siteUrl)
    console.log(`peer (crawlee CheerioCrawler, title/description/links/headings read): ${peer.pages} pages in ${peer.seconds.toFixed(2)} s = ${peer.pps.toFixed(1)} pages/s; peak RSS ${peer.peakMb.toFixed(0)} MB`)
    const ours = await runOurs(siteUrl)
    console.log(
      `ours (full audit via wrangler dev, CRAWL_CONCURRENCY=${CONCURRENCY} CRAWL_PAGES_PER_MESSAGE=${PAGES_PER_MESSAGE}, ${ours.attempts} queue deliveries): ${ours.pages} pages in ${ours.seconds.toFixed(2)} s = ${ours.pps.toFixed(1)} pages/s; ` +
        `workerd peak RSS ${ours.peakMb.toFixed(0)} MB (idle ${ours.idleMb.toFixed(0)} MB, VmHWM ${ours.hwmMb.toFixed(0)} MB); crawl ${ours.phases.crawl_s.toFixed(2)} s (mean response ${ours.phases.avg_response_ms} ms) + analysis ${ours.phases.analysis_s.toFixed(2)} s; scores ${JSON.stringify({ seo: ours.scores.seo, aeo: ours.scores.aeo })}`,
    )
    console.log(`pages/s ours=${ours.pps.toFixed(1)} peer=${peer.pps.toFixed(1)}`)
  } finally {
    server.close()
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
