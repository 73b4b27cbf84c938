/**
 * Peers that answer with the wrong shape, end to end. test/peer-shapes.test.ts reads each provider's
 * mutated answers through its client and transform alone; here the same kind of answers reach every
 * action that calls a peer, over HTTP, with everything the action does after its providers (sections
 * combining several peers, merging, sorting, cutting, presenting, the run record, the stored
 * variable, the queue). Each action is first called with its faithful fakes and every answer is
 * recorded by peer (method, host and path); a property then calls it again with the answers of one
 * peer changed:
 * - a JSON answer by the mutations of test/peer-shapes.ts, now and then with a list, object or
 *   string grown to thousands of items, or a field holding a credential the call sent (an echo);
 * - JSON inside a page (JSON-LD, YouTube's player response and initial data) the same way;
 * - a page, sitemap, robots.txt, caption file or image by text mutations: cut, emptied, a hostile
 *   snippet inserted, repeated, another content type, bytes that are not UTF-8;
 * - the fake model's structured output by the JSON mutations;
 * - or a refusal (400-422, statuses no client retries) whose error text echoes a credential.
 *
 * Property: the answer is a 200 success envelope whose result has the action's documented shape, or
 * a 4xx/502/503/504 error envelope whose message names the service or the field; never a 500, never
 * an error logged as unexpected, never a JavaScript error's text (a TypeError caught and shown as a
 * note), never a peer's success reported as a failed status ("answered 200: ..."), never a secret
 * of the request, the account or the deployment; the run record agrees with the answer, and a
 * stored variable can be read back. meeting_prep_generate_subject_line calls no peer (it parses its
 * input), so it has no property here.
 */
import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { getAction } from '../src/actions/registry'
import { action, json, mockFetch, newCaller, request, withSettings, type FetchHandler } from './helpers'
import { FakeHubSpot } from './crm/fake-hubspot'
import { alice, carol, dave, FakeAtproto } from './social/fake-pds'
import { VIDEO_ID, yt } from './youtube/fixtures'
import { DOMAIN, KEYS, keyedUpstreams, openUpstreams } from './research/fakes'
import { sitePages } from './social/card-site'
import { ORIGIN as TRAILGEAR, trailgear } from './fixtures/sites/trailgear'
import anthropicAnswer from './fixtures/anthropic-search/messages-web-search.json'
import dfsIdeas from './fixtures/dataforseo-keywords/keyword_ideas.json'
import dfsRanked from './fixtures/dataforseo-keywords/ranked_keywords.json'
import dfsSerp from './fixtures/dataforseo-keywords/serp.json'
import openAiAnswer from './fixtures/openai-search/responses-web-search.json'
import perplexityAnswer from './fixtures/perplexity/sonar-answer.json'
import { createFakeLlm, sampleFromSchema, type FakeCall } from './llm/fake-llm'
import { jsonPaths, mutate, mutations, type Json, type Mutation, type Path } from './peer-shapes'

// ---------------------------------------------------------------------------------------------
// Mutations of a peer's answer

/** Text that breaks a reader of HTML, XML, robots.txt or a caption file when it lands in the middle. */
const HOSTILE_SNIPPETS = [
  '<',
  '>',
  '&',
  '&#0;',
  '&#xD800;',
  '&#99999999999;',
  '&amp',
  '<!--',
  '-->',
  '<![CDATA[',
  ']]>',
  '<script>',
  '</script>',
  '<?xml version="1.0"?>',
  '\u0000',
  '\uD800',
  '"',
  "'",
  '<div>'.repeat(3000),
  '</div>'.repeat(50),
  '<a href="javascript:alert(1)">x</a>',
  '<a href="http://[::1]/">x</a><a href="http://127.0.0.1/">y</a>',
  '<a href="%ZZ">x</a><a href="/%E0%A4%A">y</a>',
  '<a href="https://example.test:99999/">x</a>',
  '<meta http-equiv="refresh" content="0;url=http://127.0.0.1/">',
  '<link rel="canonical" href="::"><base href="javascript:">',
  '<meta property="og:image" content="http://169.254.169.254/latest">',
  '<script type="application/ld+json">{"@type":"Organization","name":null,"founder":[null,1,{}],"address":[[]]}</script>',
  '<script type="application/ld+json">[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]</script>',
  '<loc>not a url</loc><loc>http://127.0.0.1/</loc><loc></loc>',
  '<url><loc>',
  '</urlset></sitemapindex>',
  '\nSitemap: http://[\nSitemap: https://\nUser-agent: *\nDisallow: /\nCrawl-delay: 99999999999\nAllow: \u0000\n',
  '<text start="NaN" dur="-1">x</text><text start="1e308" dur="Infinity">y</text><text>',
  '<h1></h1>'.repeat(500),
  '<img src="data:,"><img>',
  '{{evil.path}}',
  '\r\n\r\n',
  'x'.repeat(20_000),
]

/** How a text answer (a page, a sitemap, robots.txt, a caption file, an image) is changed. */
type TextMutation =
  { op: 'empty' } | { op: 'truncate'; at: number } | { op: 'insert'; at: number; text: string } | { op: 'repeat'; times: number } | { op: 'content-type'; value: string | null } | { op: 'not-utf8' }

/** A place in a body, uniform over it (doubles cluster near 0). */
const fraction = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000)

const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ op: 'empty' as const }) },
  { weight: 2, arbitrary: fraction.map((at) => ({ op: 'truncate' as const, at })) },
  { weight: 5, arbitrary: fc.record({ at: fraction, text: fc.constantFrom(...HOSTILE_SNIPPETS) }).map(({ at, text }) => ({ op: 'insert' as const, at, text })) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 40 }).map((times) => ({ op: 'repeat' as const, times })) },
  { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/plain', 'image/png', 'application/octet-stream', null).map((value) => ({ op: 'content-type' as const, value })) },
  { weight: 1, arbitrary: fc.constant({ op: 'not-utf8' as const }) },
)

/** One to three text mutations. */
const textMutations = fc.array(textMutation, { minLength: 1, maxLength: 3 })

/** A body and its content type, after `ms`. */
function mutateText(body: Uint8Array, contentType: string | null, ms: TextMutation[]): { body: Uint8Array; contentType: string | null } {
  let bytes = body
  let type = contentType
  const at = (f: number) => Math.floor(f * bytes.length)
  for (const m of ms) {
    if (m.op === 'empty') bytes = new Uint8Array(0)
    else if (m.op === 'truncate') bytes = bytes.slice(0, at(m.at))
    else if (m.op === 'insert') {
      const i = at(m.at)
      const add = new TextEncoder().encode(m.text)
      const out = new Uint8Array(bytes.length + add.length)
      out.set(bytes.subarray(0, i))
      out.set(add, i)
      out.set(bytes.subarray(i), i + add.length)
      bytes = out
    } else if (m.op === 'repeat') {
      // Bounded: the point is a body larger than the reader expects, not one the test cannot afford.
      const times = Math.max(1, Math.min(m.times, Math.floor(2_000_000 / Math.max(1, bytes.length))))
      const out = new Uint8Array(bytes.length * times)
      for (let k = 0; k < times; k++) out.set(bytes, k * bytes.length)
      bytes = out
    } else if (m.op === 'content-type') type = m.value
    else {
      const out = new Uint8Array(bytes.length + 6)
      out.set(bytes)
      out.set([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82], bytes.length)
      bytes = out
    }
  }
  return { body: bytes, contentType: type }
}

/**
 * A list, object or string of a JSON answer grown to `n` items, keys or hundreds of characters:
 * more of what the reader expects than it has ever seen (the mutations of peer-shapes.ts change
 * shapes, not sizes).
 */
type Bulk = { path: Path; op: 'bulk'; n: number }
type AnyMutation = Mutation | Bulk

const isBulk = (m: AnyMutation): m is Bulk => m.op === 'bulk'

/** `value` after the shape mutations of `ms`, then its bulk ones. */
function mutateAll(value: Json, ms: AnyMutation[]): Json {
  const out = mutate(
    value,
    ms.filter((m): m is Mutation => !isBulk(m)),
  )
  const box = { root: out }
  for (const b of ms.filter(isBulk)) {
    let parent: Json = box
    let key: string | number = 'root'
    for (const k of b.path) {
      parent = parent?.[key]
      key = k
    }
    const v = parent && typeof parent === 'object' ? parent[key] : undefined
    if (Array.isArray(v)) parent[key] = Array.from({ length: b.n }, (_, i) => structuredClone(v.length ? v[i % v.length] : null))
    else if (v && typeof v === 'object') {
      const first = Object.values(v)[0] ?? null
      for (let i = 0; i < b.n; i++) v[`k${i}`] = structuredClone(first)
    } else if (typeof v === 'string') parent[key] = (v || 'x').repeat(Math.ceil((b.n * 100) / Math.max(1, v.length)))
  }
  return box.root
}

/** A peer echoing what it was sent: a credential of the call, alone or inside its words. */
const echoes = (secrets: string[]) => secrets.flatMap((secret) => [secret, `The key ${secret} was rejected`])

/**
 * Shape mutations mostly; now and then one container or string grown large, or a field holding
 * a credential the call sent (a peer echoing it).
 */
function anyMutations(sample: Json, secrets: string[]): fc.Arbitrary<AnyMutation[]> {
  const paths = jsonPaths(sample, MAX_PATHS)
  const grown = paths.filter((p) => {
    let v = sample
    for (const k of p) v = v?.[k]
    return typeof v === 'string' || (v !== null && typeof v === 'object')
  })
  const shapes: fc.Arbitrary<AnyMutation[]> = mutations(sample, MAX_PATHS)
  const inner = paths.filter((p) => p.length > 0)
  const bulk = () => fc.record({ path: fc.constantFrom(...grown), n: fc.constantFrom(300, 5000) }).map(({ path, n }): AnyMutation[] => [{ path, op: 'bulk', n }])
  const echo = () => fc.record({ path: fc.constantFrom(...inner), value: fc.constantFrom(...echoes(secrets)) }).map(({ path, value }): AnyMutation[] => [{ path, op: 'set', value }])
  return fc.oneof({ weight: 8, arbitrary: shapes }, ...(grown.length ? [{ weight: 2, arbitrary: bulk() }] : []), ...(secrets.length && inner.length ? [{ weight: 1, arbitrary: echo() }] : []))
}

/** A JSON value inside a text answer: where it starts and ends. */
interface Embedded {
  start: number
  end: number
}

/** Where the balanced JSON object or array starting at `start` ends (exclusive), or -1. */
function jsonEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

/** JSON-LD scripts and YouTube's `var ytInitial... = {...};` assignments in a page, in order. */
function embeddedJson(text: string): Embedded[] {
  const found: Embedded[] = []
  const ld = /<script[^>]*type=["']?application\/ld\+json["']?[^>]*>/gi
  for (let m = ld.exec(text); m; m = ld.exec(text)) {
    const start = m.index + m[0].length
    const close = text.indexOf('</script>', start)
    if (close > start) found.push({ start, end: close })
  }
  const yt = /var ytInitial\w+ = (?=[{[])/g
  for (let m = yt.exec(text); m; m = yt.exec(text)) {
    const start = m.index + m[0].length
    const end = jsonEnd(text, start)
    if (end > start) found.push({ start, end })
  }
  return found.sort((a, b) => a.start - b.start)
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** The page with its `index`th embedded JSON value mutated (written back as a page would hold it). */
function mutateEmbedded(text: string, index: number, ms: AnyMutation[]): string {
  const blocks = embeddedJson(text).filter((b) => parsesAsJson(text.slice(b.start, b.end)))
  const b = blocks[index]
  if (!b) return text
  const changed = mutateAll(JSON.parse(text.slice(b.start, b.end)), ms)
  const written = changed === undefined ? '' : JSON.stringify(changed).replace(/</g, '\\u003c')
  return text.slice(0, b.start) + written + text.slice(b.end)
}

// ---------------------------------------------------------------------------------------------
// Recording peers, and answering with one of them changed

/** What one peer (method, host and path) answered on a clean call: its text, and its JSON when it is JSON. */
interface Sample {
  text: string
  json: Json | undefined
}

/** One thing a property may change: a peer's JSON, its text, JSON inside its text, or a model's structured output. */
type Target =
  { kind: 'json'; key: string; sample: Json } | { kind: 'text'; key: string } | { kind: 'embedded'; key: string; index: number; sample: Json } | { kind: 'object'; schemaName: string; sample: Json }

/** A change to one target, as the property draws it. */
type Change =
  | { kind: 'json'; key: string; ms: AnyMutation[] }
  | { kind: 'text'; key: string; ms: TextMutation[] }
  | { kind: 'embedded'; key: string; index: number; ms: AnyMutation[] }
  | { kind: 'object'; schemaName: string; ms: AnyMutation[] }
  | { kind: 'refusal'; key: string; status: number; message: string }

/** The peer a request goes to. */
function peerKey(req: Request): string {
  const u = new URL(req.url)
  // DNS over HTTPS answers MX, TXT and A questions at one path: each is its own peer answer.
  const type = u.pathname === '/dns-query' ? `?type=${u.searchParams.get('type')}` : ''
  return `${req.method} ${u.host}${u.pathname}${type}`
}

const isJsonType = (type: string | null) => /json/i.test(type ?? '')

/** Answers with the fakes, recording each peer's first answer into `record` and changing the answers `change` targets. */
function tapped(handlers: FetchHandler[], change: Change | null, record?: Map<string, Sample>): FetchHandler {
  return async (req) => {
    let res: Response | null | undefined = null
    for (const h of handlers) {
      res = await h(req.clone())
      if (res) break
    }
    if (!res) return res
    const key = peerKey(req)
    if (record && !record.has(key)) {
      const copy = res.clone()
      const text = await copy.text()
      const contentType = copy.headers.get('content-type')
      let parsed: Json = undefined
      if (isJsonType(contentType) && text !== '') {
        try {
          parsed = JSON.parse(text)
        } catch {
          parsed = undefined
        }
      }
      record.set(key, { text, json: parsed })
    }
    if (!change || change.kind === 'object' || change.key !== key) return res
    if (change.kind === 'refusal') {
      await res.body?.cancel()
      const m = change.message
      // The error fields vendors use (HubSpot, OpenAI, Anthropic, AT Protocol, DataForSEO, Crunchbase ...), all at once.
      return json({ status: 'error', message: m, error: { type: 'invalid_request_error', message: m }, errors: [{ message: m }], status_message: m, detail: m }, change.status)
    }
    const headers = new Headers(res.headers)
    if (change.kind === 'json') {
      const body = (await res.json()) as Json
      const changed = mutateAll(body, change.ms)
      return new Response(changed === undefined ? '' : JSON.stringify(changed), { status: res.status, headers })
    }
    if (change.kind === 'embedded') return new Response(mutateEmbedded(await res.text(), change.index, change.ms), { status: res.status, headers })
    const out = mutateText(new Uint8Array(await res.arrayBuffer()), headers.get('content-type'), change.ms)
    if (out.contentType === null) headers.delete('content-type')
    else headers.set('content-type', out.contentType)
    headers.delete('content-length')
    // A body is not allowed on these statuses; the mutation of such an answer is its headers only.
    const bodyless = res.status === 204 || res.status === 304 || (res.status >= 100 && res.status < 200)
    return new Response(bodyless ? null : out.body, { status: res.status, headers })
  }
}

/** What a clean call's peers offer to change. */
function targetsOf(record: Map<string, Sample>, llmCalls: FakeCall[], focus: (key: string, sample: Json) => Json): Target[] {
  const out: Target[] = []
  for (const [key, s] of record) {
    if (s.json !== undefined) out.push({ kind: 'json', key, sample: focus(key, s.json) })
    else {
      out.push({ kind: 'text', key })
      embeddedJson(s.text)
        .filter((b) => parsesAsJson(s.text.slice(b.start, b.end)))
        .forEach((b, index) => out.push({ kind: 'embedded', key, index, sample: focus(`${key}#${index}`, JSON.parse(s.text.slice(b.start, b.end))) }))
    }
  }
  const schemas = new Map<string, Json>()
  for (const c of llmCalls) if (c.schemaName && c.schema && !schemas.has(c.schemaName)) schemas.set(c.schemaName, c.schema)
  for (const [schemaName, schema] of schemas) out.push({ kind: 'object', schemaName, sample: sampleFromSchema(schema) })
  return out
}

/** Paths a mutation is drawn from, breadth first (a big answer's top levels; `focus` reaches deeper where a reader does). */
const MAX_PATHS = 1500

/** Which peer a target belongs to: a host, or the model's structured output. */
const peerOf = (t: Target) => (t.kind === 'object' ? 'model output' : t.key.split(' ')[1].split('/')[0])

/** Statuses a peer refuses with that no client retries (a retried one costs the property seconds of backoff). */
const REFUSALS = [400, 401, 403, 404, 409, 422]

/**
 * A change to one of `targets`: a peer first, all equally likely (a site of 60 pages is one peer),
 * then one of its answers; now and then, instead, a refusal whose error text echoes a credential.
 */
function changes(targets: Target[], secrets: string[]): fc.Arbitrary<Change> {
  const peers = [...new Set(targets.map(peerOf))]
  return fc
    .constantFrom(...peers)
    .chain((peer) => fc.constantFrom(...targets.filter((t) => peerOf(t) === peer)))
    .chain((t): fc.Arbitrary<Change> => {
      const ms = t.kind === 'text' ? null : anyMutations(t.sample, secrets)
      const changed: fc.Arbitrary<Change> =
        t.kind === 'text'
          ? textMutations.map((m) => ({ kind: 'text', key: t.key, ms: m }))
          : t.kind === 'json'
            ? ms!.map((m) => ({ kind: 'json', key: t.key, ms: m }))
            : t.kind === 'embedded'
              ? ms!.map((m) => ({ kind: 'embedded', key: t.key, index: t.index, ms: m }))
              : ms!.map((m) => ({ kind: 'object', schemaName: t.schemaName, ms: m }))
      if (t.kind === 'object' || !secrets.length) return changed
      const refusal = fc
        .record({ status: fc.constantFrom(...REFUSALS), message: fc.constantFrom(...echoes(secrets)) })
        .map(({ status, message }): Change => ({ kind: 'refusal', key: t.key, status, message }))
      return fc.oneof({ weight: 6, arbitrary: changed }, { weight: 1, arbitrary: refusal })
    })
}

/**
 * The part of a big answer under keys matching `keys`, with the paths to it: other object keys are
 * dropped and other list items become null, so every path is also a path of the whole answer.
 */
function pruneTo(value: Json, keys: RegExp): Json {
  const visit = (v: Json): Json => {
    if (Array.isArray(v)) {
      const items = v.map(visit)
      return items.every((x) => x === undefined) ? undefined : items.map((x) => x ?? null)
    }
    if (!v || typeof v !== 'object') return undefined
    const out: Json = {}
    for (const [k, x] of Object.entries(v)) {
      if (keys.test(k)) out[k] = x
      else {
        const kept = visit(x)
        if (kept !== undefined) out[k] = kept
      }
    }
    return Object.keys(out).length ? out : undefined
  }
  return visit(value) ?? value
}

// ---------------------------------------------------------------------------------------------
// The property's checks

/** What JavaScript says when a reader trusted a shape: shown to a caller, it is a crash in disguise. */
const ENGINE_TEXT =
  /Cannot read propert|Cannot set propert|Cannot destructure|is not a function|is not iterable|is not an object|undefined is not|null is not|Cannot convert|Invalid time value|Invalid array length|Maximum call stack|Unexpected token|Unexpected end of JSON|" is not valid JSON|is not defined|Cannot access '|Reduce of empty array|Invalid regular expression|Invalid string length|Invalid code point|URI malformed/

/**
 * Where JavaScript's words in an answer are a crash: not where the audit quotes the parser on a
 * page's own broken JSON-LD ("JSON-LD block is not valid JSON: Unexpected end of JSON input"), which
 * is the finding it reports.
 */
function engineText(text: string): RegExpExecArray | null {
  const re = new RegExp(ENGINE_TEXT.source, 'g')
  for (let m = re.exec(text); m; m = re.exec(text)) if (!/is not valid JSON: $/.test(text.slice(Math.max(0, m.index - 40), m.index))) return m
  return null
}

const ALLOWED_ERRORS = new Set([400, 401, 403, 404, 409, 412, 413, 422, 429, 502, 503, 504])

/** Lines the Worker logged at error level during a call (unexpected failures are logged with their stack). */
function errorLogs(): { lines: string[]; stop: () => void } {
  const lines: string[] = []
  const original = console.error
  const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
    original(...args)
  })
  return { lines, stop: () => spy.mockRestore() }
}

/** One action driven end to end. */
interface Scenario {
  /** The action's registered name. */
  action: string
  runs: number
  /** Once per scenario: the caller, what it connects, and the credentials its calls send to peers. */
  prepare(): Promise<{ token: string; secrets: string[] }>
  /** Request bodies to call with (each recorded on its own). */
  bodies: Record<string, unknown>[]
  /** Fresh fakes for one call; `llm` is the fake model, its structured output changed by `object` changes. */
  peers(llm: FetchHandler): FetchHandler[]
  /** Settings the call runs with. */
  settings?: Record<string, string>
  /** Headers of the call (Prefer ...). */
  headers?: Record<string, string>
  /** An error message must name one of these: the services and fields of the action. */
  names: RegExp
  /** Paths of a big answer to draw mutations from: the part its reader reads. */
  focus?: (key: string, sample: Json) => Json
  /** The documented shape of a success, for an action whose registry entry has none. */
  shape?: z.ZodType
  /** Calls that follow a success (polling a started run, reading its status), each checked like the first. */
  follow?: (response: Json, token: string) => Promise<{ action: string; answer: Answer }[]>
}

type Answer = { status: number; body: Json; headers: Headers }

const WORKFLOW = 'wf_peer_shapes_e2e'

/** Scales every scenario's runs (raise it to hunt, keep it at 1 in the suite). */
const RUN_SCALE = 1

/** Set to a seed a failure printed, to replay its runs. */
const SEED: number | undefined = undefined

/** The deployment's own secrets: never in an answer. */
const DEPLOYMENT_SECRETS = [env.ADMIN_TOKEN, env.ENCRYPTION_KEY, env.WEBHOOK_SIGNING_SECRET]

interface Outcome {
  status: number
  body: Json
  /** The problems found, each a short sentence. */
  problems: string[]
}

/** A queued run still going after the wait, followed to its end as a client would; its end as an answer. */
async function followQueued(first: Answer, token: string): Promise<Answer> {
  let r = first
  for (let i = 0; r.status === 202 && i < 10; i++) {
    const polled = await request('GET', `/v1/runs/${r.body.response.run_id}?wait=20`, { token })
    const run = polled.body.response
    if (run.state === 'succeeded') r = { ...polled, body: { status: 200, response: run.output } }
    else if (run.state === 'failed')
      r = { ...polled, status: run.error.status, body: { status: run.error.status, response: null, error: run.error.message, code: run.error.code, request_id: 'polled' } }
  }
  return r
}

/** What is wrong with one answer of `actionName` (and its run record, and its stored variable). */
async function problemsOf(s: Scenario, actionName: string, who: { token: string; secrets: string[] }, res: Answer): Promise<string[]> {
  const problems: string[] = []
  const { status, body: answer } = res
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer)
  const secrets = [who.token, ...who.secrets, ...DEPLOYMENT_SECRETS].filter((x): x is string => Boolean(x))
  if (typeof answer !== 'object' || answer === null) problems.push(`${status}: the body is not a JSON object: ${text.slice(0, 120)}`)
  else if (status === 200) {
    if (answer.status !== 200 || !('response' in answer) || 'error' in answer) problems.push(`200 without the success envelope: ${text.slice(0, 200)}`)
    const def = getAction(actionName)!
    const schema = def.output ?? (actionName === s.action ? s.shape : undefined)
    if (schema) {
      const shown = def.present ? { response: answer.response, metadata: answer.metadata } : answer.response
      const parsed = schema.safeParse(shown)
      if (!parsed.success)
        problems.push(
          `200 with a result not of the documented shape: ${parsed.error.issues
            .slice(0, 2)
            .map((i) => `${i.path.join('.')} ${i.message}`)
            .join('; ')}`,
        )
    }
  } else if (!ALLOWED_ERRORS.has(status)) problems.push(`${status} ${answer.code}: ${String(answer.error).slice(0, 200)}`)
  else if (answer.status !== status || answer.response !== null || typeof answer.error !== 'string' || typeof answer.code !== 'string')
    problems.push(`${status} without the error envelope: ${text.slice(0, 200)}`)
  else if (!s.names.test(answer.error)) problems.push(`${status} ${answer.code} naming neither the service nor a field: ${answer.error.slice(0, 200)}`)
  const engine = engineText(text)
  if (engine) problems.push(`${status}: JavaScript error text in the answer: ...${text.slice(Math.max(0, engine.index - 100), engine.index + 60)}...`)
  for (const secret of secrets) if (text.includes(secret)) problems.push(`${status}: a secret in the answer (${secret.slice(0, 6)}...)`)
  const success = /answered 2\d\d\b/.exec(text)
  if (success) problems.push(`${status}: a peer's success reported as a failed status: ...${text.slice(Math.max(0, success.index - 60), success.index + 60)}...`)

  const runId = res.headers.get('x-run-id')
  if (runId) {
    const run = await request('GET', `/v1/runs/${runId}`, { token: who.token })
    const shown = JSON.stringify(run.body)
    const r = run.body?.response
    if (run.status !== 200 || !r) problems.push(`the run record answers ${run.status}: ${shown.slice(0, 200)}`)
    else if (status === 200 && r.state !== 'succeeded' && r.action === actionName) problems.push(`answered 200 but the run is ${r.state}`)
    else if (status !== 200 && (r.state !== 'failed' || r.error?.code !== answer?.code)) problems.push(`answered ${status} ${answer?.code} but the run is ${r.state} ${r.error?.code}`)
    for (const secret of secrets) if (shown.includes(secret)) problems.push(`a secret in the run record (${secret.slice(0, 6)}...)`)
    const inRun = engineText(shown)
    if (inRun) problems.push(`JavaScript error text in the run record: ...${shown.slice(Math.max(0, inRun.index - 100), inRun.index + 60)}...`)
  }
  if (status === 200 && stores(actionName)) {
    const variable = await action('get_variable', { name: VARIABLE }, who.token, { 'workflow-id': WORKFLOW })
    if (variable.status !== 200) problems.push(`the stored variable answers ${variable.status}: ${JSON.stringify(variable.body).slice(0, 200)}`)
  }
  return problems
}

const VARIABLE = 'peer_result'

/** Does the action take `output_variable_name` (every one but the transcript, whose spec has none)? */
function stores(actionName: string): boolean {
  const input = getAction(actionName)!.input as unknown as { shape?: Record<string, unknown> }
  return Boolean(input.shape && 'output_variable_name' in input.shape)
}

/** Calls the action once with `change` applied (and what follows a success), and checks everything the property promises. */
async function callOnce(
  s: Scenario,
  who: { token: string; secrets: string[] },
  body: Record<string, unknown>,
  change: Change | null,
  record?: Map<string, Sample>,
  llmCalls?: FakeCall[],
): Promise<Outcome> {
  const llm = createFakeLlm({
    respond: (call) => (change?.kind === 'object' && call.schemaName === change.schemaName ? { object: mutateAll(sampleFromSchema(call.schema), change.ms) } : undefined),
  })
  mockFetch(
    tapped(
      s.peers((req) => llm.handle(req)),
      change,
      record,
    ),
  )
  const logs = errorLogs()
  const answers: [string, Answer][] = []
  try {
    await withSettings(s.settings ?? {}, async () => {
      const sent = stores(s.action) ? { ...body, output_variable_name: VARIABLE } : body
      const first = await followQueued(await action(s.action, sent, who.token, { 'workflow-id': WORKFLOW, ...s.headers }), who.token)
      answers.push([s.action, first])
      if (first.status === 200 && s.follow) for (const next of await s.follow(first.body.response, who.token)) answers.push([next.action, next.answer])
    })
  } finally {
    logs.stop()
    // A spy keeps every call and result it saw (pages of a megabyte): hundreds of calls would fill the isolate.
    vi.restoreAllMocks()
  }
  llmCalls?.push(...llm.calls)
  const problems: string[] = []
  for (const [name, answer] of answers) problems.push(...(await problemsOf(s, name, who, answer)))
  for (const line of logs.lines) if (/"level":"error"/.test(line)) problems.push(`logged as unexpected: ${line.replace(/"stack":"(?:[^"\\]|\\.)*"/, '').slice(0, 300)}`)
  const [, first] = answers[0]
  return { status: first.status, body: first.body, problems }
}

/** Records a clean call per body: the peers it reached and the model schemas it asked for. */
async function recordClean(s: Scenario, who: { token: string; secrets: string[] }): Promise<Target[][]> {
  const out: Target[][] = []
  for (const body of s.bodies) {
    const record = new Map<string, Sample>()
    const calls: FakeCall[] = []
    const clean = await callOnce(s, who, body, null, record, calls)
    expect(clean.problems, `${s.action} with its faithful fakes`).toEqual([])
    expect(clean.status, `${s.action} with its faithful fakes: ${JSON.stringify(clean.body).slice(0, 400)}`).toBe(200)
    out.push(targetsOf(record, calls, s.focus ?? ((_k, v) => v)))
  }
  return out
}

/** The credentials call `b` sends to peers: the scenario's keys, and the secrets of its own body (not another body's password). */
function sentBy(s: Scenario, secrets: string[], b: number): string[] {
  const inBodies = (x: string) => s.bodies.some((body) => JSON.stringify(body).includes(x))
  return secrets.filter((x) => !inBodies(x) || JSON.stringify(s.bodies[b]).includes(x))
}

/** Runs the property for a scenario; returns each distinct problem with the smallest change that showed it. */
async function findProblems(s: Scenario): Promise<string[]> {
  const who = await s.prepare()
  const targets = await recordClean(s, who)
  const found = new Map<string, string>()
  const statuses = new Map<string, number>()
  const started = Date.now()
  // Printed with every problem, so the runs that found it can be replayed (SEED).
  const seed = SEED ?? (Date.now() ^ (Math.random() * 2 ** 31)) | 0
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: s.bodies.length - 1 }).chain((b) => changes(targets[b], sentBy(s, who.secrets, b)).map((change) => ({ b, change }))),
      async ({ b, change }) => {
        const out = await callOnce(s, who, s.bodies[b], change)
        const seen = `${out.status}${out.body?.code ? ` ${out.body.code}` : ''}`
        statuses.set(seen, (statuses.get(seen) ?? 0) + 1)
        for (const p of out.problems) {
          const shown = `body ${b}: ${JSON.stringify(change).slice(0, 600)}`
          const before = found.get(p)
          if (!before || shown.length < before.length) found.set(p, shown)
        }
      },
    ),
    { numRuns: Math.round(s.runs * RUN_SCALE), seed },
  )
  console.info(`peer-shapes-e2e: ${s.action}: ${Math.round(s.runs * RUN_SCALE)} runs in ${Date.now() - started} ms: ${[...statuses].map(([k, n]) => `${k} x${n}`).join(', ')}`)
  return [...found].map(([p, c]) => `${p}\n    <- ${c} (seed ${seed})`)
}

// ---------------------------------------------------------------------------------------------
// The actions

const HUBSPOT_TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555'

/** A fresh fake HubSpot portal with a contact, a company and a deal linked together. */
function hubspot(): FakeHubSpot {
  const fake = new FakeHubSpot({ token: HUBSPOT_TOKEN })
  const ada = fake.seed('contacts', { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace' })
  const acme = fake.seed('companies', { name: 'Acme', domain: 'acme.example' })
  const deal = fake.seed('deals', { dealname: 'Big', amount: '10' })
  fake.link('contacts', ada, 'companies', acme)
  fake.link('contacts', ada, 'deals', deal)
  return fake
}

async function hubspotCaller() {
  const caller = await newCaller('Peer shapes CRM')
  const res = await request('PUT', '/v1/integrations/crm', { token: caller.token, body: { provider: 'hubspot', access_token: HUBSPOT_TOKEN, verify: false } })
  expect(res.status).toBe(200)
  return { token: caller.token, secrets: [HUBSPOT_TOKEN] }
}

const CRM_NAMES = /HubSpot|CRM|object_id|identifier_value|properties|associations|object_type|identification_method|[Cc]ontact|[Cc]ompan|[Dd]eal|[Oo]bject/

const SCENARIOS: Scenario[] = [
  {
    action: 'crm.v2.lookup_object',
    runs: 40,
    prepare: hubspotCaller,
    bodies: [
      { object_type: 'contacts', object_id: '1000', properties: 'email,firstname,lastname,phone', associations: 'companies,deals' },
      { object_type: 'contacts', object_id: 'ada@example.com', properties: 'email,firstname' },
      { object_type: 'companies', object_id: 'acme.example', properties: 'name,domain' },
    ],
    peers: () => [hubspot().handler],
    names: CRM_NAMES,
  },
  {
    action: 'crm.v2.update_object',
    runs: 40,
    prepare: hubspotCaller,
    bodies: [
      {
        object_type: 'contacts',
        identification_method: 'CRM ID',
        identifier_value: '1000',
        properties: '{"firstname":"Ada","phone":"+44 20 7946 0000"}',
        associations: '[{"to_object_type":"companies","to_object_id":"1001"},{"to_object_type":"deals","to_object_id":"1002","association_type":"4"}]',
      },
      { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'grace@example.com', properties: 'firstname=Grace' },
      { object_type: 'companies', identification_method: 'Company Domain (Companies only)', identifier_value: 'acme.example', properties: 'city=London' },
    ],
    peers: () => [hubspot().handler],
    names: CRM_NAMES,
  },
]

const POST = 'Shipped 2.0 notes: https://example.com/notes. Thanks @bob.bsky.social! #release'

SCENARIOS.push({
  action: 'post_to_social',
  runs: 50,
  prepare: async () => {
    const caller = await newCaller('Peer shapes social')
    return { token: caller.token, secrets: [alice.password, carol.password, dave.password] }
  },
  bodies: [
    { username: alice.handle, password: alice.password, content: POST },
    { username: carol.handle, password: carol.password, content: 'self-hosted hello https://example.com/notes' },
    { username: dave.handle, password: dave.password, content: 'did:web hello @bob.bsky.social' },
  ],
  peers: () => [new FakeAtproto().handle, sitePages],
  names: /Bluesky|AT Protocol|PDS|username|password|content|handle|DID|did:/,
})

/** A fake www.youtube.com: the watch page, the InnerTube player and the caption track. */
const youtube: FetchHandler = (req) => {
  const url = new URL(req.url)
  if (url.hostname !== 'www.youtube.com') return null
  if (url.pathname === '/watch') return new Response(yt.watchHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  if (url.pathname === '/youtubei/v1/player') return new Response(yt.innertube.ok, { headers: { 'content-type': 'application/json' } })
  if (url.pathname === '/api/timedtext') return new Response(yt.transcriptXml, { headers: { 'content-type': 'text/xml' } })
  return new Response('not found', { status: 404 })
}

SCENARIOS.push({
  action: 'get_video_transcript',
  runs: 40,
  prepare: async () => {
    const caller = await newCaller('Peer shapes YouTube')
    return { token: caller.token, secrets: [] }
  },
  bodies: [{ url: `https://www.youtube.com/watch?v=${VIDEO_ID}` }, { url: `https://youtu.be/${VIDEO_ID}`, language: 'de' }],
  peers: () => [youtube],
  names: /YouTube|url|language|video/,
  focus: (key, sample) => {
    if (key === 'POST www.youtube.com/youtubei/v1/player') return pruneTo(sample, /^(playabilityStatus|captions|videoDetails|microformat)$/)
    if (key === 'GET www.youtube.com/watch#0') return pruneTo(sample, /^(videoDetails|microformat)$/)
    if (key === 'GET www.youtube.com/watch#1') return pruneTo(sample, /^macroMarkersListItemRenderer$/)
    return sample
  },
})

const MEETING_CONTEXT = {
  processed_research: '{"contacts":[{"name":"Jane Roe","title":"VP Operations","company":"Globex"}]}',
  target_company_identity: '{"name":"Globex","domain":"globex.com","industry":"Logistics"}',
  meeting_classification: '{"type":"discovery"}',
  processed_calendar_event: '{"title":"Acme <> Globex discovery","start":"2026-03-05T14:00:00Z"}',
  topic_signals: '["warehouse automation","peak season staffing"]',
  user_context: 'I am an account executive at Acme Robotics.',
}

const OPENAI_KEY = 'sk-test-openai'
const ANTHROPIC_KEY = 'sk-ant-test'

SCENARIOS.push({
  action: 'meeting_prep_v3_generate_meeting_sections',
  runs: 40,
  prepare: async () => {
    const caller = await newCaller('Peer shapes meeting')
    for (const [vendor, api_key] of [
      ['openai', OPENAI_KEY],
      ['anthropic', ANTHROPIC_KEY],
    ]) {
      expect((await request('PUT', `/v1/integrations/llm/${vendor}`, { token: caller.token, body: { api_key } })).status).toBe(200)
    }
    return { token: caller.token, secrets: [OPENAI_KEY, ANTHROPIC_KEY] }
  },
  bodies: [
    { ...MEETING_CONTEXT, fast_model: 'gpt-5.4-mini', quality_model: 'claude-sonnet-4-6' },
    { ...MEETING_CONTEXT, use_v4_sections: false, sections_to_generate: '["strategy","goals"]', fast_model: 'claude-haiku-4-5', quality_model: 'gpt-5.4' },
  ],
  peers: (llm) => [llm],
  names: /OpenAI|Anthropic|model|section/,
})

const RESEARCH_KEYS = { ...KEYS, OPENAI_API_KEY: OPENAI_KEY }

const researchCaller = async () => {
  const caller = await newCaller('Peer shapes research')
  return { token: caller.token, secrets: [OPENAI_KEY, 'dfs-pass', 'tp-key', 'cb-key', 'cf-token'] }
}

const RESEARCH_NAMES = /domain|research|section/i

SCENARIOS.push({
  action: 'company_research_v2_run_full_research',
  runs: 20,
  prepare: researchCaller,
  bodies: [{ domain: DOMAIN, force_refresh: true }],
  peers: (llm) => [llm, openUpstreams(), keyedUpstreams()],
  settings: RESEARCH_KEYS,
  headers: { prefer: 'wait=20' },
  names: RESEARCH_NAMES,
})

/** A run started by the research trio, followed to its end, then its status, report and one section read. */
async function followResearch(response: Json, token: string): Promise<{ action: string; answer: Answer }[]> {
  const runId = response.run_id
  const ended = await followQueued({ status: 202, body: { response: { run_id: runId } }, headers: new Headers({ 'x-run-id': runId }) }, token)
  const out = [{ action: 'company_research_v2_run_full_research', answer: { ...ended, headers: new Headers({ 'x-run-id': runId }) } }]
  for (const [name, body] of [
    ['company_research_v2_get_status', { run_id: runId }],
    ['company_research_v2_get_report', { run_id: runId }],
    ['company_research_v2_get_report', { run_id: runId, section: 'company_overview' }],
  ] as const) {
    out.push({ action: name, answer: await action(name, body, token) })
  }
  return out
}

SCENARIOS.push({
  action: 'company_research_v2_start_research',
  runs: 10,
  prepare: researchCaller,
  bodies: [{ domain: DOMAIN, force_refresh: true, section_news: false, section_job_openings: false, section_financials: false, section_homepage_screenshot: false, section_search_keywords: false }],
  peers: (llm) => [llm, openUpstreams(), keyedUpstreams()],
  settings: RESEARCH_KEYS,
  names: RESEARCH_NAMES,
  follow: followResearch,
})

const SEO_KEYS = { PERPLEXITY_API_KEY: 'pplx-test', OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY, DATAFORSEO_LOGIN: 'login@test', DATAFORSEO_PASSWORD: 'dfs-pw-secret' }

/** The answer engines and DataForSEO, answering their recorded shapes. */
const seoPeers: FetchHandler = async (req) => {
  const url = new URL(req.url)
  if (url.host === 'api.perplexity.ai') return json(perplexityAnswer)
  if (url.host === 'api.openai.com' && url.pathname === '/v1/responses') {
    const b = (await req.clone().json()) as { tools?: { type?: string }[] }
    if (b.tools?.[0]?.type === 'web_search') return json(openAiAnswer)
    return null
  }
  if (url.host === 'api.anthropic.com' && url.pathname === '/v1/messages') {
    const b = (await req.clone().json()) as { tools?: { type?: string }[] }
    if (b.tools?.[0]?.type === 'web_search_20250305') return json(anthropicAnswer)
    return null
  }
  if (url.host !== 'api.dataforseo.com') return null
  if (url.pathname === '/v3/dataforseo_labs/google/keyword_ideas/live') return json(dfsIdeas)
  if (url.pathname === '/v3/dataforseo_labs/google/ranked_keywords/live') return json(dfsRanked)
  if (url.pathname === '/v3/serp/google/organic/live/advanced') return json(dfsSerp)
  return json({ status_code: 40400, status_message: 'Not Found.' }, 404)
}

const str = z.string()
const nstr = str.nullable()
const num = z.number()
const nnum = num.nullable()
const strs = z.array(str)
const status = z.enum(['ok', 'unavailable', 'error'])
const provenance = { status, source: str, measured_at: nstr, note: str }
const sortedBy =
  <T>(key: (x: T) => number) =>
  (items: T[]) =>
    items.every((x, i) => i === 0 || key(items[i - 1]) >= key(x))

/** The SEO research result as src/seo/research.ts declares it: every number a number, lists sorted as documented. */
const SeoReport = z.object({
  topic: str,
  website_url: str,
  site_domain: str,
  research_depth: z.enum(['standard', 'deep']),
  optimization_focus: z.enum(['seo_focused', 'aeo_focused', 'balanced']),
  generated_at: str,
  measurements: z.array(z.object({ part: str, ...provenance })),
  site_pages: z.object({ ...provenance, pages_fetched: num, pages: z.array(z.object({ url: str, title: nstr })) }),
  questions: z.object({ ...provenance, items: z.array(z.object({ question: str, kind: str })) }),
  keyword_opportunities: z.object({
    ...provenance,
    measured: z.boolean(),
    keywords: z.array(
      z.object({
        keyword: str,
        measured: z.boolean(),
        source: str,
        search_volume: nnum,
        keyword_difficulty: nnum,
        cpc_usd: nnum,
        intent: nstr,
        intent_source: z.enum(['provider', 'wording']).nullable(),
        site_ranks: z.boolean().nullable(),
        site_position: nnum,
        site_url: nstr,
        site_pages: strs,
        opportunity_score: num.min(0).max(100).nullable(),
      }),
    ),
    serps: z.array(z.object({ keyword: str, results: z.array(z.object({ position: num, url: str, title: nstr })) })),
  }),
  ai_citations: z.object({
    ...provenance,
    engines: z.array(z.object({ ...provenance, engine: str, label: str, model: nstr, questions_asked: num, questions_answered: num })),
    questions: z.array(
      z.object({
        question: str,
        kind: str,
        results: z.array(
          z.object({
            engine: str,
            status: z.enum(['ok', 'error']),
            measured_at: str,
            model: nstr,
            cited_domains: strs,
            cited_urls: strs,
            site_cited: z.boolean(),
            site_urls: strs,
            competitors_cited: strs,
            answer_excerpt: nstr,
            note: str,
          }),
        ),
        site_cited_by: strs,
        competitors_cited: strs,
      }),
    ),
    gaps: z.array(z.object({ question: str, kind: str, engines: strs, competitors: strs, evidence: z.array(z.object({ engine: str, urls: strs })) })),
    site_citation_rate: num.min(0).max(1).nullable(),
  }),
  competitor_landscape: z.object({
    ...provenance,
    competitors: z
      .array(z.object({ domain: str, citations: num, serp_appearances: num, score: num, engines: strs, questions: strs, keywords: strs, examples: z.array(z.object({ url: str, via: str })) }))
      .refine(
        sortedBy<{ score: number }>((c) => c.score),
        'competitors are not sorted by score',
      ),
  }),
  content_recommendations: z.object({
    ...provenance,
    items: z.array(
      z.object({
        title: str,
        category: z.enum(['aeo', 'seo']),
        content_type: str,
        target_keyword: nstr,
        target_question: nstr,
        outline: strs,
        closes_gap: str,
        evidence: z.array(z.object({ id: str, kind: z.enum(['citation_gap', 'keyword', 'question', 'competitor']), text: str, measured_by: str, urls: strs })),
        priority: z.enum(['high', 'medium', 'low']),
        priority_score: num,
      }),
    ),
  }),
})

const score = num.min(0).max(100)

/** The content audit as src/audit/build.ts declares it: scores from 0 to 100, the plan ranked by priority. */
const AuditReport = z.object({
  website_url: str,
  audit_scope: str,
  optimization_focus: str,
  scope: z.object({ prefixes: strs, how: str }),
  summary: z.object({
    urls_crawled: num,
    html_pages: num,
    error_pages: num,
    redirects: num,
    non_html_skipped: num,
    blocked_by_robots: num,
    not_crawled_page_cap: num,
    max_pages: num,
    thin_content_words: num,
    average_response_ms: nnum,
    issues: z.object({ error: num, warning: num, notice: num, info: num }),
  }),
  scores: z.object({ seo: score, aeo: score, overall: score, formula: str }),
  site_checks: z.array(z.object({ check: str, category: str, severity: str, passed: z.boolean(), title: str, message: nstr })),
  action_plan: z
    .array(
      z.object({
        rank: num,
        priority: z.enum(['high', 'medium', 'low']),
        priority_score: num,
        check: str,
        category: z.enum(['seo', 'aeo']),
        severity: z.enum(['error', 'warning', 'notice']),
        issue: str,
        why_it_matters: str,
        fix: str,
        pages_affected: num,
        pages: strs,
        examples: strs,
      }),
    )
    .refine(
      sortedBy<{ priority_score: number }>((p) => p.priority_score),
      'the plan is not ranked by priority_score',
    )
    .refine((items) => items.every((p, i) => p.rank === i + 1), 'the plan ranks are not 1, 2, 3 ...'),
  priority_formula: str,
  keyword_cannibalization: z.array(
    z.object({
      keyphrase: str,
      pages: z.array(
        z.object({ url: str, title: str, h1: str, phrase_on_page: str, score: num, evidence: z.object({ in_title: z.boolean(), in_h1: z.boolean(), in_url: z.boolean(), body_mentions: num }) }),
      ),
      recommendation: str,
    }),
  ),
  content_gaps: z.object({
    method: str,
    uncovered_topics: z.array(z.object({ topic: str, mentioned_on: num, example_pages: strs })),
    thin_sections: z.array(z.object({ section: str, pages: num, average_words: num, reason: str })),
    missing_pages: z.array(z.object({ url: str, status: nnum, anchor_texts: strs, linked_from: num })),
    unanswered_questions: z.array(z.object({ question: str, url: str })),
    model_analysis: z
      .object({
        written_by_model: z.literal(true),
        status: z.enum(['ok', 'error']),
        model: nstr,
        summary: nstr,
        gaps: z.array(z.object({ topic: str, why: str, suggested_page: str, evidence: strs })),
        note: nstr,
      })
      .nullable(),
  }),
  inventory: z.array(
    z.object({
      url: str,
      kind: str,
      status: nnum,
      title: nstr,
      word_count: nnum,
      response_ms: nnum,
      depth: nnum,
      seo_score: score.nullable(),
      aeo_score: score.nullable(),
      redirects_to: nstr,
      issues: z.array(z.object({ check: str, severity: str, category: str, message: str })),
    }),
  ),
  robots_txt: z.object({ url: str, status: nnum, errors: z.array(z.object({ line: num, message: str })), blocked_ai_crawlers: strs, crawl_delay_seconds: nnum }),
  sitemaps: z.object({ fetched: strs, errors: z.array(z.object({ url: str, message: str })), url_count: num }),
  llms_txt: z.object({ url: str, present: z.boolean() }),
  generated_at: str,
})

SCENARIOS.push({
  action: 'aeo_seo_research_generate_research_action',
  runs: 30,
  prepare: async () => {
    const caller = await newCaller('Peer shapes SEO')
    return { token: caller.token, secrets: [OPENAI_KEY, ANTHROPIC_KEY, 'pplx-test', 'dfs-pw-secret'] }
  },
  bodies: [{ topic: 'trail running shoes', website_url: `${TRAILGEAR}/`, research_depth: 'standard', optimization_focus: 'balanced' }],
  peers: (llm) => [seoPeers, llm, trailgear],
  settings: SEO_KEYS,
  names: /topic|website_url|research|site/i,
  shape: SeoReport,
})

SCENARIOS.push({
  action: 'content_audit_generate_audit_action',
  runs: 20,
  prepare: async () => {
    const caller = await newCaller('Peer shapes audit')
    return { token: caller.token, secrets: [OPENAI_KEY] }
  },
  bodies: [{ website_url: `${TRAILGEAR}/`, max_pages: 12 }],
  peers: (llm) => [llm, trailgear],
  settings: { OPENAI_API_KEY: OPENAI_KEY },
  headers: { prefer: 'wait=30' },
  names: /website_url|site|page|audit|robots|sitemap/i,
  shape: AuditReport,
})

const set = (path: Path, value: Json): Mutation => ({ path, op: 'set', value })

/**
 * Counterexamples the property found, each failing on the code before its fix, kept as examples so
 * they are checked on every run: a model's answer of the wrong shape ended the competitors section
 * as an unexpected failure (logged, "failed unexpectedly"); a model's or the screenshot service's
 * success it could not read was reported as "answered 200: <the body>"; a peer echoing the
 * credential it was sent put the connected HubSpot token, an account's or the server's key into the
 * answer and the run record.
 */
const FOUND: [action: string, body: number, change: Change][] = [
  ['company_research_v2_run_full_research', 0, { kind: 'object', schemaName: 'competitors', ms: [set(['competitors', 0], null)] }],
  ['company_research_v2_run_full_research', 0, { kind: 'json', key: 'POST api.openai.com/v1/responses', ms: [{ path: ['output'], op: 'to-string' }] }],
  ['crm.v2.lookup_object', 0, { kind: 'refusal', key: 'GET api.hubapi.com/crm/v3/objects/contacts/1000', status: 400, message: HUBSPOT_TOKEN }],
  ['crm.v2.update_object', 0, { kind: 'json', key: 'PATCH api.hubapi.com/crm/v3/objects/contacts/1000', ms: [set(['properties', 'firstname'], HUBSPOT_TOKEN)] }],
  ['meeting_prep_v3_generate_meeting_sections', 0, { kind: 'refusal', key: 'POST api.openai.com/v1/responses', status: 401, message: `The key ${OPENAI_KEY} was rejected` }],
  ['aeo_seo_research_generate_research_action', 0, { kind: 'refusal', key: 'POST api.anthropic.com/v1/messages', status: 409, message: OPENAI_KEY }],
  [
    'company_research_v2_run_full_research',
    0,
    { kind: 'text', key: 'POST api.cloudflare.com/client/v4/accounts/cf-acct/browser-rendering/screenshot', ms: [{ op: 'content-type', value: 'text/plain' }] },
  ],
  ['meeting_prep_v3_generate_meeting_sections', 0, { kind: 'json', key: 'POST api.openai.com/v1/responses', ms: [{ path: ['output'], op: 'to-string' }] }],
  ['company_research_v2_run_full_research', 0, { kind: 'json', key: 'GET api.gdeltproject.org/api/v2/doc/doc', ms: [set(['articles', 0, 'title'], 'The key cb-key was rejected')] }],
]

describe('peers that answer with the wrong shape, end to end', () => {
  it.each(SCENARIOS.map((s) => [s.action, s] as const))(
    '%s answers a success of its shape or an error naming the peer, whatever the peer answers',
    async (_name, s) => {
      expect(await findProblems(s)).toEqual([])
    },
    30_000 * RUN_SCALE,
  )

  it.each(FOUND.map(([name, b, change]) => [name, JSON.stringify(change), b, change] as const))('%s, its peer answering %s, answers cleanly', async (name, _text, b, change) => {
    const s = SCENARIOS.find((x) => x.action === name)!
    const out = await callOnce(s, await s.prepare(), s.bodies[b], change)
    expect(out.problems).toEqual([])
  })
})
