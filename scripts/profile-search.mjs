#!/usr/bin/env node
/**
 * `npm run profile:search [-- --agents 100000 --embedder offline --seconds 20 --updates 1]`: where the Worker's
 * CPU goes under bench:search's load (MetaTool query text, 16 at a time, `--updates` agent updates
 * (1 by default) and ten invocations per 100 searches), on the catalog an earlier `npm run bench:search -- --agents N` left
 * in .bench/. The Worker's isolate is sampled through wrangler dev's inspector (the DevTools
 * protocol's Profiler domain); the profile is written to .bench/profile-<embedder>-<agents>.cpuprofile
 * (open it in Chrome DevTools) and the functions with the most self time are printed, named by the
 * dev bundle's source map (function, source file and line), after the share of samples under
 * workerd's D1 client. Local D1 runs its SQL on the Worker's own thread, and the sampler puts most
 * of that time under whatever D1 client frame is on the isolate's stack (the response's `text`,
 * `toJson`, `fetch`, span attributes) rather than under "(idle)": a probe Worker whose one
 * statement runs about 70 ms of SQL (87 ms a request) shows about 54 ms of each request under them.
 */
import { writeFileSync } from 'node:fs'
import { generator, metatoolQueries, writeMix } from './lib/bench-catalog.mjs'
import { createBenchToken, startDevServer } from './lib/devserver.mjs'
import { areaOf, frameNamer } from './lib/profile-names.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const AGENTS = Number(opt('agents', 100_000))
const EMBEDDER = opt('embedder', 'offline')
const SECONDS = Number(opt('seconds', 20))
const UPDATES = Number(opt('updates', 1))
const CONCURRENCY = 16

const { rand, phrase } = generator(42)
const server = await startDevServer({ name: `bench-search-${AGENTS}`, fresh: false, vars: { SEARCH_EMBEDDER: EMBEDDER } })
try {
  const { token } = await createBenchToken(server, 'profile')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const admin = { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' }
  const owner = await fetch(`${server.url}/v1/admin/accounts/acc_benchowner/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'owner' }) }).then((r) => r.json())
  if (!owner.response) throw new Error(`no bench catalog of ${AGENTS} agents in .bench/: run npm run bench:search -- --agents ${AGENTS} first`)
  const ownerHeaders = { authorization: `Bearer ${owner.response.token}`, 'content-type': 'application/json' }
  const queries = metatoolQueries().sort(() => rand() - 0.5)
  let q = 0
  const request = writeMix({ url: server.url, headers, ownerHeaders, agents: AGENTS, rand, phrase, updates: UPDATES })(() =>
    fetch(`${server.url}/v1/action/search`, { method: 'POST', headers, body: JSON.stringify({ query: queries[q++ % queries.length], limit: 10 }) }),
  )
  const load = async (seconds) => {
    const end = Date.now() + seconds * 1000
    let done = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          await (await request()).arrayBuffer()
          done++
        }
      }),
    )
    return done
  }
  console.log(`warm-up: ${await load(15)} requests in 15 s`)

  const [target] = await fetch(`http://127.0.0.1:${server.inspectorPort}/json`).then((r) => r.json())
  // The inspector proxy accepts DevTools' origins and localhost only (Node's WebSocket takes headers).
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: 'http://localhost' } })
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve)
    ws.addEventListener('error', () => reject(new Error(`the inspector at ${target.webSocketDebuggerUrl} refused the connection`)))
  })
  const pending = new Map()
  ws.addEventListener('message', (event) => {
    const m = JSON.parse(String(event.data))
    pending.get(m.id)?.(m)
    pending.delete(m.id)
  })
  let seq = 0
  const send = (method, params = {}) => new Promise((resolve) => (pending.set(++seq, resolve), ws.send(JSON.stringify({ id: seq, method, params }))))
  // The debugger reports every script with its source map; it is switched off again before sampling.
  const scripts = []
  ws.addEventListener('message', (event) => {
    const m = JSON.parse(String(event.data))
    if (m.method === 'Debugger.scriptParsed') scripts.push(m.params)
  })
  await send('Debugger.enable')
  await send('Debugger.disable')
  await send('Profiler.enable')
  await send('Profiler.setSamplingInterval', { interval: 200 })
  await send('Profiler.start')
  const done = await load(SECONDS)
  const { result } = await send('Profiler.stop')
  ws.close()
  const file = `.bench/profile-${EMBEDDER}-${AGENTS}.cpuprofile`
  writeFileSync(file, JSON.stringify(result.profile))
  console.log(`profiled: ${done} requests in ${SECONDS} s (${(done / SECONDS).toFixed(1)} a second, the profiler slowing it a little); ${file}`)

  // The bundle and its map live in wrangler's temporary folder only while the dev server runs.
  const nameOf = frameNamer(scripts)
  const { nodes, samples, timeDeltas } = result.profile
  const byId = new Map(nodes.map((node) => [node.id, node]))
  const parentOf = new Map(nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])))
  const underD1 = (id) => {
    for (let at = id; at !== undefined; at = parentOf.get(at)) if (byId.get(at).callFrame.url === 'cloudflare-internal:d1-api') return true
    return false
  }
  const self = new Map()
  const areas = new Map()
  let total = 0
  let d1 = 0
  samples.forEach((id, i) => {
    const key = nameOf(byId.get(id).callFrame)
    const us = timeDeltas[i] ?? 0
    self.set(key, (self.get(key) ?? 0) + us)
    total += us
    const inD1 = underD1(id)
    const area = inD1 ? "workerd's D1 client" : areaOf(key)
    areas.set(area, (areas.get(area) ?? 0) + us)
    if (inD1) d1 += us
  })
  const share = (us) => `${((100 * us) / total).toFixed(1)}% (${(us / 1000 / done).toFixed(2)} ms/request)`
  console.log(`under workerd's D1 client, local D1's SQL included: ${share(d1)}; idle: ${share(self.get('(idle)') ?? 0)}`)
  // Self time by where the code lives: the search's own code (src/agents, src/db) against the rest.
  console.log(
    `by area: ${[...areas]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => `${area} ${(us / 1000 / done).toFixed(2)}`)
      .join(', ')} (ms/request)`,
  )
  console.log(`self time, ${(total / 1000).toFixed(0)} ms sampled over ${done} requests:`)
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}% ${(us / 1000 / done).toFixed(3).padStart(7)} ms/request  ${key}`)
  }
} finally {
  await server.stop()
}
