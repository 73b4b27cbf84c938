import { env, SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { insertFinishedRun } from '../src/db/runs'
import { newId, randomBase62 } from '../src/lib/ids'
import { signReportLink } from '../src/reports/link'
import { putArtifact } from '../src/research/artifacts'
import { dereference } from './contract/schema-arbitrary'
import { BASE, createAccount, createTeam, createToken, runningRun, type Json } from './helpers'
import { markSecret } from './secret-scan'

/**
 * Tenancy as a property of every route, not of the routes someone remembered. The OpenAPI document
 * says which inputs name an object (a path parameter, an id or name in a query, header or body); every
 * one must be in TARGETS below, which says how account A makes such an object and then lets account B
 * (in a team with A) and account C (no relation) call every method and action that takes it, with A's
 * id as it is and transformed (fast-check). No answer may reveal A's object, no write may change it, and
 * the statuses are those of the README's security model: another account's object is a 404; a 403 only
 * where the caller sees the object by design (team and public agents) and may not change it.
 *
 * A route or field added later without an entry here fails the coverage test, by name.
 */

// ---------------------------------------------------------------------------------------------------
// Callers

interface Caller {
  name: 'A' | 'B' | 'C' | 'D'
  token: string
  accountId: string
  tokenId: string
}
/** How a caller stands to A: B shares team "blue" with A; C is in no team of A's. */
type Rel = 'team' | 'stranger'

let A: Caller, B: Caller, C: Caller, D: Caller
let blue: string
const relOf = (who: Caller): Rel => (who === B ? 'team' : 'stranger')

async function caller(name: Caller['name']): Promise<Caller> {
  const accountId = await createAccount(`tenancy routes ${name}`)
  const token = await createToken(accountId)
  const me = await call(token, 'GET', '/v1/me')
  return { name, token, accountId, tokenId: me.body.response.token_id }
}

/** A unique string to plant in an object's caller text: if an answer to B or C holds it, A's object leaked. */
const marker = (what: string) => `mk${what}${randomBase62(12)}`

// ---------------------------------------------------------------------------------------------------
// Requests

interface Answer {
  status: number
  text: string
  body: Json
  headers: Headers
  /** What a probe of several requests found wrong beyond the status (a slug that resolved to A's agent). */
  problem?: string
}

/** One request as `who` (a caller, a raw token, or nobody), the path sent as written (encodings kept). */
async function call(who: Caller | string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const h: Record<string, string> = { ...headers }
  const token = who === null ? null : typeof who === 'string' ? who : who.token
  if (token) h.authorization = `Bearer ${token}`
  if (body !== undefined) h['content-type'] ??= 'application/json'
  const res = await SELF.fetch(`${BASE}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  let parsed: Json = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // an HTML page or an image: the text is the body
  }
  return { status: res.status, text, body: parsed, headers: res.headers }
}

const act = (who: Caller, name: string, body: unknown, headers: Record<string, string> = {}) => call(who, 'POST', `/v1/action/${name}`, body, headers)

/**
 * A JSON-RPC request to POST /mcp. The HTTP status of a tool call is 200 even when the tool failed; the
 * answer's status is the tool's own (structuredContent.status), so it is judged like the action's.
 */
async function mcp(who: Caller, method: string, params?: unknown): Promise<Answer> {
  const a = await call(who, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method, params }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' })
  if (a.status !== 200) return a
  if (a.body.error) return { ...a, status: 400 }
  return { ...a, status: a.body.result?.structuredContent?.status ?? (a.body.result?.isError ? 400 : 200) }
}

// ---------------------------------------------------------------------------------------------------
// Which inputs name an object, read from the OpenAPI document

/** A query, header or body field by this name names an object (a path parameter always does, unless it is an enum of kinds). */
const NAMES_AN_OBJECT = /^(id|name|slug|cursor|after)$|_id$|_name$|^identifier_value$/
const HEADER_NAMES_AN_OBJECT = /-(id|key)$/i

/** Inputs that match the rule but name nothing another account has, each with the reason. */
const LABELS: Record<string, string> = {
  'POST /v1/tokens body:/name': "a label the caller gives its new token; tokens are found by id, and only the caller's",
  'POST /v1/agents body:/name': 'the display name of the new agent; agents are found by id or slug',
  'PATCH /v1/agents/{id} body:/name': 'the new display name; agents are found by id or slug',
  'POST /v1/agents/import body:/agents[]/name': 'the display name of each new agent; agents are found by id or slug',
  'POST /v1/agents body:/workflow/steps[]/id': "a step's name inside the agent's own workflow",
  'PATCH /v1/agents/{id} body:/workflow/steps[]/id': "a step's name inside the agent's own workflow",
  'POST /v1/agents/import body:/agents[]/workflow/steps[]/id': "a step's name inside the agent's own workflow",
  'POST /mcp body:/id': 'the JSON-RPC request id, which the server only echoes',
}

/**
 * Inputs that name an object where no schema shows it: JSON-RPC params, JSON text fields, and literal
 * step inputs of a workflow (which run as the invoker's actions).
 */
const UNSEEN_INPUTS = [
  'POST /mcp tools/list',
  'POST /mcp tools/call:invoke_agent_<id>',
  'POST /mcp tools/call:<action> arguments',
  'POST /v1/action/crm.v2.update_object body:/associations[]/to_object_id',
  'POST /v1/integrations/crm/builtin/objects/{type} body:/associations[]/to_object_id',
  'POST /v1/agents body:/workflow/steps[]/input',
  'GET /v1/runs/{id}/report signed link',
]

/** Every property path of a body schema, as `/a/b` (`[]` for array items), through anyOf/oneOf/allOf. */
function bodyFields(schema: Json, at = '', depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 8) return []
  const out: string[] = []
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[k] ?? []) out.push(...bodyFields(s, at, depth + 1))
  if (schema.items) out.push(...bodyFields(schema.items, `${at}[]`, depth + 1))
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) out.push(`${at}/${k}`, ...bodyFields(v, `${at}/${k}`, depth + 1))
  return [...new Set(out)]
}

/** Every input of a bearer-authenticated operation that names an object, as `METHOD /template where`. */
function objectInputs(doc: Json): string[] {
  const out: string[] = []
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      // No `security` of its own: the document's default, the bearer token.
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || op.security !== undefined) continue
      const M = method.toUpperCase()
      for (const p of (op.parameters ?? []) as Json[]) {
        if (p.schema?.enum) continue
        if (p.in === 'path' || (p.in === 'query' && NAMES_AN_OBJECT.test(p.name)) || (p.in === 'header' && HEADER_NAMES_AN_OBJECT.test(p.name))) out.push(`${M} ${template} ${p.in}:${p.name}`)
      }
      for (const field of bodyFields(op.requestBody?.content?.['application/json']?.schema)) {
        if (NAMES_AN_OBJECT.test(field.split('/').pop()!)) out.push(`${M} ${template} body:${field}`)
      }
    }
  }
  return out
}

/** A `covers` entry may use `*` for "every action" (the probe then calls every action of the document). */
const coveredBy = (pattern: string, input: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^ ]+')}$`).test(input)

// ---------------------------------------------------------------------------------------------------
// Targets: how A makes each kind of object, and every call of B and C that names it

/** A's object as made: its id, the strings that must not reach B or C, and who may see it by design. */
interface Made {
  id: string
  /** Marker texts planted in the object, with the relations allowed to see each (team members see a team agent's description). */
  markers: { text: string; shownTo: Rel[] }[]
  /** Relations that may see the object itself by design (its id in a 2xx is then no leak). */
  visibleTo: Rel[]
  /** The id is unique across accounts (CRM ids, variable names and idempotency keys are per account: B has its own "3"). */
  globalId: boolean
  extra: Json
}

interface Probe {
  /** The inputs (objectInputs keys) this call exercises. */
  covers: string[]
  what: string
  /** Where the reference goes, for the transformed-reference property; absent when the call takes none. */
  ref?: 'path' | 'body'
  send: (who: Caller, ref: string, m: Made) => Promise<Answer>
  /** Statuses allowed for B ('team') and C ('stranger'); 'any' where the call is the caller's own business (its answer is still searched). */
  expect: (rel: Rel) => number | number[] | 'any'
  /** A check of its own on the answer (lists: no entry is A's); returns what leaked, or null. */
  leak?: (a: Answer, m: Made, who: Caller) => Promise<string | null> | string | null
}

interface Target {
  name: string
  make: () => Promise<Made>
  /** A's own view of the object, compared before and after every call of B and C. */
  read: (m: Made) => Promise<unknown>
  probes: (doc: Json) => Probe[]
  /** Transformed references of A's object for the property, each saying whether it still names that object. */
  variants?: (m: Made) => fc.Arbitrary<Variant>
  /** A's own call with a reference that still names its object must reach it (the transform is real). */
  control?: (ref: string, m: Made) => Promise<number>
}

interface Variant {
  ref: string
  how: string
  /** Still names A's object for A (a percent-encoded character, the slug): B and C then get exactly the plain id's status. */
  same: boolean
  kind: 'path' | 'body'
}

const statusFor =
  (team: number | number[] | 'any', stranger: number | number[] | 'any') =>
  (rel: Rel): number | number[] | 'any' =>
    rel === 'team' ? team : stranger

// Transformations of a reference. In a path, a percent-encoded character decodes to the same id (the
// router decodes parameters); `..`, `//` and a trailing slash change the route the path reaches.
const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')

function pathVariants(id: string, extra: Variant[] = []): fc.Arbitrary<Variant> {
  const at = fc.integer({ min: 0, max: id.length - 1 })
  const v = (ref: string, how: string, same = false): Variant => ({ ref, how, same, kind: 'path' })
  return fc.oneof(
    at.map((i) => v(id.slice(0, i) + hex(id[i]) + id.slice(i + 1), `character ${i} percent-encoded`, true)),
    at.map((i) => v(id.slice(0, i) + hex(id[i]).toLowerCase() + id.slice(i + 1), `character ${i} percent-encoded, lower-case hex`, true)),
    fc.constant(v([...id].map(hex).join(''), 'every character percent-encoded', true)),
    at.map((i) => v(id.slice(0, i) + swapCase(id[i]) + id.slice(i + 1), `case of character ${i} swapped`)).filter((x) => x.ref !== id),
    fc
      .constantFrom(
        v(id.toUpperCase(), 'upper case'),
        v(id.toLowerCase(), 'lower case'),
        v(`${id}/`, 'trailing slash'),
        v(`x/../${id}`, 'a .. segment before it'),
        v(`${id}/..`, 'a .. segment after it'),
        v(`%2e%2e/${id}`, 'an encoded .. segment'),
        v(`${id}%2F`, 'encoded trailing slash'),
        v(`/${id}`, 'double slash'),
        v(`${id}%20`, 'trailing encoded space'),
        v(`%20${id}`, 'leading encoded space'),
        v(`${id}%00`, 'trailing NUL'),
        v(`${id}%0A`, 'trailing newline'),
        v(`${id}.json`, 'an extension'),
        v(`${id};x`, 'a matrix parameter'),
        v(`%25${hex(id[0]).slice(1)}${id.slice(1)}`, 'first character double-encoded'),
      )
      .filter((x) => x.ref !== id),
    ...(extra.length ? [fc.constantFrom(...extra)] : []),
  )
}

function bodyVariants(id: string, extra: Variant[] = []): fc.Arbitrary<Variant> {
  const v = (ref: string, how: string, same = false): Variant => ({ ref, how, same, kind: 'body' })
  const at = fc.integer({ min: 0, max: id.length - 1 })
  const fullwidth = (s: string) => [...s].map((c) => (/[0-9A-Za-z]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('')
  return fc.oneof(
    at.map((i) => v(id.slice(0, i) + swapCase(id[i]) + id.slice(i + 1), `case of character ${i} swapped`)).filter((x) => x.ref !== id),
    fc
      .constantFrom(
        v(id.toUpperCase(), 'upper case'),
        v(id.toLowerCase(), 'lower case'),
        v(` ${id}`, 'leading space'),
        v(`${id} `, 'trailing space'),
        v(`${id}\n`, 'trailing newline'),
        v(`${id}\u200b`, 'trailing zero-width space'),
        v(fullwidth(id), 'full-width characters'),
        v(`${id}%`, 'a trailing %'),
      )
      .filter((x) => x.ref !== id),
    ...(extra.length ? [fc.constantFrom(...extra)] : []),
  )
}

const both = (m: Made, path: (m: Made) => fc.Arbitrary<Variant>, body: (m: Made) => fc.Arbitrary<Variant>) => fc.oneof(path(m), body(m))

/** A's agent with markers: `hidden` only in the workflow (no one but the owner sees it), `shown` in name and description. */
async function makeAgent(visibility: 'private' | 'team' | 'public', shownTo: Rel[], visibleTo: Rel[]): Promise<Made> {
  const hidden = marker('wf')
  const shown = marker('desc')
  const slug = `tenancy-${visibility}-${randomBase62(8).toLowerCase()}`
  const res = await call(A, 'POST', '/v1/agents', {
    name: `Tenancy ${visibility} ${shown}`,
    description: `Probe agent ${shown}`,
    visibility,
    slug,
    team_id: visibility === 'team' ? blue : undefined,
    parameters: { type: 'object', properties: { q: { type: 'string', description: `q ${shown}` } }, required: [] },
    // A search step: it runs offline and its answer (hits) holds neither marker. Whoever runs the agent
    // finds the step's resolved input (the hidden marker) in its own runs, by design (README, Tenancy):
    // the routes checked here are the agent's own, search and MCP, where no one but A may see it.
    workflow: { steps: [{ id: 'look', action: 'search', input: { query: hidden, limit: 1 } }] },
  })
  expect(res.status, res.text).toBe(201)
  const id = res.body.response.id
  // A reviews its own agent: B and C may remove their own reviews, never A's.
  expect((await call(A, 'PUT', `/v1/agents/${id}/review`, { rating: 4 })).status).toBe(200)
  const list = await call(A, 'GET', '/v1/agents?limit=100')
  const at = (list.body.response as Json[]).findIndex((a) => a.id === id)
  // The list cursor is a rowid: A's page cursor just before this agent, for B's and C's list calls.
  const before = at > 0 ? (await call(A, 'GET', `/v1/agents?limit=${at}`)).body.next_cursor : '0'
  return {
    id,
    markers: [
      { text: hidden, shownTo: [] },
      { text: shown, shownTo },
    ],
    visibleTo,
    globalId: true,
    extra: { slug, cursor: before },
  }
}

/** A's view of its agent, without what others change by design (executions by team members running it). */
async function readAgent(m: Made) {
  const a = (await call(A, 'GET', `/v1/agents/${m.id}`)).body.response
  const { executions: _e, ...rest } = a
  return rest
}

/** Every call naming an agent. `see`: the status of a read for each relation (200 visible, 404 not). */
function agentProbes(see: Record<Rel, 200 | 404>): Probe[] {
  const seen = (ok: number, write: number) => (rel: Rel) => (see[rel] === 200 ? ok : write)
  const invoke = seen(200, 404)
  return [
    { covers: ['GET /v1/agents/{id} path:id'], what: 'read the agent', ref: 'path', send: (w, r) => call(w, 'GET', `/v1/agents/${r}`), expect: seen(200, 404) },
    {
      covers: ['PATCH /v1/agents/{id} path:id'],
      what: 'change the agent',
      ref: 'path',
      send: (w, r) => call(w, 'PATCH', `/v1/agents/${r}`, { description: 'taken over', workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] } }),
      expect: seen(403, 404),
    },
    { covers: ['PUT /v1/agents/{id}/review path:id'], what: 'review the agent', ref: 'path', send: (w, r) => call(w, 'PUT', `/v1/agents/${r}/review`, { rating: 1 }), expect: seen(200, 404) },
    // After its own review above, B or C removes it (200): A's review stays.
    { covers: ['DELETE /v1/agents/{id}/review path:id'], what: 'remove a review of the agent', ref: 'path', send: (w, r) => call(w, 'DELETE', `/v1/agents/${r}/review`), expect: seen(200, 404) },
    {
      covers: ['PUT /v1/grants/{agent} path:agent'],
      what: 'grant the agent integrations',
      ref: 'path',
      send: (w, r) => call(w, 'PUT', `/v1/grants/${r}`, { integrations: ['crm'] }),
      expect: seen(200, 404),
    },
    { covers: ['DELETE /v1/grants/{agent} path:agent'], what: 'revoke a grant of the agent', ref: 'path', send: (w, r) => call(w, 'DELETE', `/v1/grants/${r}`), expect: seen(200, 404) },
    { covers: ['POST /v1/action/invoke_agent body:/id'], what: 'invoke_agent', ref: 'body', send: (w, r) => act(w, 'invoke_agent', { id: r, input: { q: 'x' } }), expect: invoke },
    { covers: ['POST /v1/action/invoke_agent_{id} path:id'], what: 'invoke_agent_<id>', ref: 'path', send: (w, r) => call(w, 'POST', `/v1/action/invoke_agent_${r}`, { q: 'x' }), expect: invoke },
    {
      covers: ['POST /mcp tools/call:invoke_agent_<id>'],
      what: 'MCP tools/call invoke_agent_<id>',
      ref: 'body',
      send: (w, r) => mcp(w, 'tools/call', { name: `invoke_agent_${r}`, arguments: { q: 'x' } }),
      expect: invoke,
    },
    {
      covers: ['POST /mcp tools/list'],
      what: 'MCP tools/list',
      send: (w) => mcp(w, 'tools/list'),
      expect: () => 200,
      leak: (a, m, w) => {
        const listed = (a.body.result.tools as Json[]).some((t) => t.name === `invoke_agent_${m.id}`)
        return listed !== (see[relOf(w)] === 200) ? `tools/list ${listed ? 'lists' : 'leaves out'} the agent` : null
      },
    },
    {
      covers: [],
      what: 'search with every filter for the agent',
      send: async (w, _r, m) => {
        const hits: Json[] = []
        for (const status of ['public', 'private', 'team', 'all']) {
          for (const query of ['', m.extra.slug, m.id, 'tenancy probe agent']) hits.push(...((await act(w, 'search', { query, status, limit: 100 })).body.response as Json[]))
        }
        return { status: 200, text: JSON.stringify(hits), body: hits, headers: new Headers() }
      },
      expect: () => 200,
      leak: (a, m, w) => ((a.body as Json[]).some((h) => h.function.metadata.id === m.id) !== (see[relOf(w)] === 200) ? 'search disagrees with the visibility' : null),
    },
    {
      covers: ['GET /v1/agents query:cursor'],
      what: "list own agents from A's cursor",
      send: (w, _r, m) => call(w, 'GET', `/v1/agents?limit=100&cursor=${m.extra.cursor}`),
      expect: () => 200,
      leak: (a, m) => ((a.body.response as Json[]).some((x) => x.id === m.id) ? "A's agent listed" : null),
    },
    {
      covers: ['POST /v1/agents body:/slug', 'DELETE /v1/agents/{id} path:id'],
      what: "create an own agent with A's slug (slugs are per account: no 409 that would tell it exists), then delete it",
      send: async (w, _r, m) => {
        const made = await call(w, 'POST', '/v1/agents', {
          name: 'Own',
          description: 'Own agent',
          visibility: 'private',
          slug: m.extra.slug,
          workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] },
        })
        if (made.status !== 201) return made
        const byslug = await call(w, 'GET', `/v1/agents/${m.extra.slug}`)
        const gone = await call(w, 'DELETE', `/v1/agents/${made.body.response.id}`)
        return byslug.body.response?.id === made.body.response.id && gone.status === 200 ? made : { ...made, problem: `the slug resolved to ${byslug.text.slice(0, 200)}` }
      },
      expect: () => 201,
    },
    {
      covers: ['POST /v1/agents/import body:/agents[]/slug', 'PATCH /v1/agents/{id} body:/slug'],
      what: "import an own agent with A's slug, rename it away and back, then delete it",
      send: async (w, _r, m) => {
        const made = await call(w, 'POST', '/v1/agents/import', {
          agents: [{ name: 'Own', description: 'Own agent', visibility: 'private', slug: m.extra.slug, workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] } }],
        })
        if (made.status !== 201) return made
        const own = made.body.response.agents[0]
        const away = await call(w, 'PATCH', `/v1/agents/${own.id}`, { slug: `${m.extra.slug}-x` })
        const back = await call(w, 'PATCH', `/v1/agents/${own.id}`, { slug: m.extra.slug })
        await call(w, 'DELETE', `/v1/agents/${own.id}`)
        return own.status === 'created' && away.status === 200 && back.status === 200 ? made : { ...made, problem: `import ${own.status}, renames ${away.status} and ${back.status}` }
      },
      expect: () => 201,
    },
    // Last: a successful delete would end the agent (and the unchanged check says so).
    { covers: ['DELETE /v1/agents/{id} path:id'], what: 'delete the agent', ref: 'path', send: (w, r) => call(w, 'DELETE', `/v1/agents/${r}`), expect: seen(403, 404) },
  ]
}

const agentVariants = (m: Made) =>
  both(
    m,
    (x) =>
      pathVariants(x.id, [
        { ref: x.extra.slug, how: 'the slug', same: true, kind: 'path' },
        { ref: x.extra.slug.toUpperCase(), how: 'the slug in upper case', same: false, kind: 'path' },
      ]),
    // In a body the slug names the agent for invoke_agent, not as an MCP tool name (ids only): not `same`.
    (x) => bodyVariants(x.id, [{ ref: x.extra.slug, how: 'the slug', same: false, kind: 'body' }]),
  )
const agentControl = async (ref: string) => (await call(A, 'GET', `/v1/agents/${ref}`)).status

/** A finished run of A's, written as the runtime writes one (a real research run needs a dozen upstreams). */
async function finishedRun(owner: Caller, actionName: string, input: unknown, output: unknown): Promise<string> {
  const id = newId('run')
  const now = Date.now()
  await insertFinishedRun(
    env.DB,
    { ...runningRun(id, owner.accountId, actionName, now - 1000), input: JSON.stringify(input), started_at: now - 900 },
    { state: 'succeeded', output: { text: JSON.stringify(output), kind: 'inline' }, metadata: null, usage: null, error: null, finishedAt: now },
  )
  return id
}

const RESEARCH = 'company_research_v2_run_full_research'
const AUDIT = 'content_audit_generate_audit_action'

function researchOutput(domain: string, name: string) {
  const at = new Date().toISOString()
  return {
    domain,
    generated_at: at,
    sections: {
      company_overview: {
        status: 'ok',
        data: { name, founded: { value: '2019', source: `https://${domain}/about` } },
        sources: [`https://${domain}/about`],
        fetched_at: at,
        duration_ms: 1,
        note: null,
        cached: false,
      },
    },
    summary: { ok: ['company_overview'], unavailable: [], error: [] },
    cache: { hits: [], refreshed: false },
  }
}

/** Every run id of A's account, from A's own pages. */
async function runIdsOf(who: Caller): Promise<Set<string>> {
  const ids = new Set<string>()
  let cursor = ''
  for (let i = 0; i < 50; i++) {
    const page = await call(who, 'GET', `/v1/runs?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
    for (const r of page.body.response as Json[]) ids.add(r.id)
    if (!page.body.next_cursor) break
    cursor = page.body.next_cursor
  }
  return ids
}

/** B's or C's run list: none of its runs may be A's (their inputs hold A's ids that they sent themselves). */
async function noRunOfA(a: Answer): Promise<string | null> {
  const mine = await runIdsOf(A)
  const shown = (a.body.response as Json[]).filter((r) => mine.has(r.id) || mine.has(r.parent_run_id))
  return shown.length ? `lists A's runs ${shown.map((r) => r.id).join(', ')}` : null
}

/** The calls that name a run: reads, long-polls, the report page and link, the research actions and MCP. */
function runProbes(): Probe[] {
  return [
    { covers: ['GET /v1/runs/{id} path:id'], what: 'read the run', ref: 'path', send: (w, r) => call(w, 'GET', `/v1/runs/${r}`), expect: () => 404 },
    { covers: ['GET /v1/runs/{id} path:id'], what: 'long-poll the run', ref: 'path', send: (w, r) => call(w, 'GET', `/v1/runs/${r}?wait=1`), expect: () => 404 },
    { covers: ['GET /v1/runs/{id}/report path:id'], what: 'open the report page', ref: 'path', send: (w, r) => call(w, 'GET', `/v1/runs/${r}/report`), expect: () => 404 },
    { covers: ['POST /v1/runs/{id}/report-link path:id'], what: 'ask for a report link', ref: 'path', send: (w, r) => call(w, 'POST', `/v1/runs/${r}/report-link`), expect: () => 404 },
    {
      covers: ['POST /v1/action/company_research_v2_get_status body:/run_id'],
      what: 'company_research_v2_get_status',
      ref: 'body',
      send: (w, r) => act(w, 'company_research_v2_get_status', { run_id: r }),
      // A run id of another shape is refused by the field's pattern (400) before any lookup.
      expect: () => 404,
    },
    {
      covers: ['POST /v1/action/company_research_v2_get_report body:/run_id'],
      what: 'company_research_v2_get_report',
      ref: 'body',
      send: (w, r) => act(w, 'company_research_v2_get_report', { run_id: r }),
      expect: () => 404,
    },
    {
      covers: ['POST /v1/action/company_research_v2_get_report body:/run_id'],
      what: 'company_research_v2_get_report, one section',
      ref: 'body',
      send: (w, r) => act(w, 'company_research_v2_get_report', { run_id: r, section: 'company_overview' }),
      expect: () => 404,
    },
    {
      covers: ['POST /mcp tools/call:<action> arguments'],
      what: 'MCP tools/call company_research_v2_get_report',
      ref: 'body',
      send: (w, r) => mcp(w, 'tools/call', { name: 'company_research_v2_get_report', arguments: { run_id: r } }),
      expect: () => 404,
    },
    {
      covers: ['POST /v1/agents body:/workflow/steps[]/input'],
      what: "an own agent whose step asks for A's run, invoked",
      send: async (w, _r, m) => {
        const made = await call(w, 'POST', '/v1/agents', {
          name: 'Own reader',
          description: 'Reads a research run',
          visibility: 'private',
          workflow: { steps: [{ id: 'read', action: 'company_research_v2_get_report', input: { run_id: m.id } }] },
        })
        if (made.status !== 201) return made
        const ran = await act(w, 'invoke_agent', { id: made.body.response.id })
        await call(w, 'DELETE', `/v1/agents/${made.body.response.id}`)
        return ran
      },
      expect: () => 404,
    },
    {
      covers: ['GET /v1/runs query:cursor'],
      what: "list runs with filters and a cursor made from A's run",
      send: async (w, _r, m) => {
        const cursor = btoa(`${Date.now() + 60_000}:${m.id}`).replace(/=+$/, '')
        const pages: Json[] = []
        for (const q of ['', `?action=${RESEARCH}`, `?action=${RESEARCH}&state=succeeded`, '?state=succeeded&limit=100', `?cursor=${cursor}&limit=100`, `?action=${RESEARCH}&cursor=${cursor}`]) {
          pages.push(...((await call(w, 'GET', `/v1/runs${q}`)).body.response as Json[]))
        }
        return { status: 200, text: JSON.stringify(pages), body: { response: pages }, headers: new Headers() }
      },
      expect: () => 200,
      leak: (a) => noRunOfA(a),
    },
  ]
}

const runVariants = (m: Made) =>
  both(
    m,
    (x) => pathVariants(x.id),
    (x) => bodyVariants(x.id),
  )
const runControl = async (ref: string) => (await call(A, 'GET', `/v1/runs/${ref}`)).status

/** Sends an action's first documented example, with the headers and fields a probe sets. */
function exampleOf(doc: Json, name: string): Record<string, unknown> {
  const media = doc.paths[`/v1/action/${name}`].post.requestBody.content['application/json']
  const first = Object.values((media.examples ?? {}) as Record<string, { value: unknown }>)[0]?.value
  return structuredClone((first ?? {}) as Record<string, unknown>)
}

/** Every action of the document, by name (not the invoke_agent_<id> alias). */
function actionNames(doc: Json): string[] {
  return Object.keys(doc.paths)
    .filter((p) => p.startsWith('/v1/action/') && !p.includes('{'))
    .map((p) => p.slice('/v1/action/'.length))
}

const takesOutputVariable = (doc: Json, name: string) => 'output_variable_name' in (doc.paths[`/v1/action/${name}`].post.requestBody.content['application/json'].schema.properties ?? {})

const TARGETS: Target[] = [
  {
    name: "A's private agent",
    make: () => makeAgent('private', [], []),
    read: readAgent,
    probes: () => agentProbes({ team: 404, stranger: 404 }),
    variants: agentVariants,
    control: agentControl,
  },
  {
    name: "A's team agent (team blue: B is a member, C is not)",
    make: () => makeAgent('team', ['team'], ['team']),
    read: readAgent,
    probes: () => agentProbes({ team: 200, stranger: 404 }),
    variants: agentVariants,
    control: agentControl,
  },
  {
    name: "A's public agent",
    make: () => makeAgent('public', ['team', 'stranger'], ['team', 'stranger']),
    read: readAgent,
    probes: () => agentProbes({ team: 200, stranger: 200 }),
    variants: agentVariants,
    control: agentControl,
  },
  {
    name: "A's team (blue)",
    make: async () => ({ id: blue, markers: [], visibleTo: ['team'], globalId: true, extra: {} }),
    // The team's agents as its members see them: no agent of C's may land in it.
    read: async () => (await call(A, 'POST', '/v1/action/search', { query: '', status: 'team', limit: 100 })).body.response.map((h: Json) => h.function.metadata.id).sort(),
    probes: () => {
      // A team id that does not exist: a foreign team must answer exactly as it does (no oracle).
      const unknownTeam = `team_${randomBase62(20)}`
      const body = (team: string) => ({ name: 'Own', description: 'Own agent', visibility: 'team', team_id: team, workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] } })
      const sameAsUnknown = (a: Answer, b: Answer) =>
        a.status === b.status && a.body.code === b.body.code ? a : { ...a, problem: `answered ${a.status} ${a.body.code}, an unknown team ${b.status} ${b.body.code}` }
      const cleanup = async (w: Caller, a: Answer, id?: string) => {
        if (id && a.status < 300) await call(w, 'DELETE', `/v1/agents/${id}`)
        return a
      }
      return [
        {
          covers: ['POST /v1/agents body:/team_id'],
          what: 'create an own agent in the team',
          send: async (w, r) => {
            const a = await call(w, 'POST', '/v1/agents', body(r))
            return cleanup(w, w === B ? a : sameAsUnknown(a, await call(w, 'POST', '/v1/agents', body(unknownTeam))), a.body.response?.id)
          },
          expect: statusFor(201, 403),
        },
        {
          covers: ['POST /v1/agents/import body:/agents[]/team_id'],
          what: 'import an own agent into the team',
          send: async (w, r) => {
            const a = await call(w, 'POST', '/v1/agents/import', { agents: [body(r)] })
            return cleanup(w, w === B ? a : sameAsUnknown(a, await call(w, 'POST', '/v1/agents/import', { agents: [body(unknownTeam)] })), a.body.response?.agents?.[0]?.id)
          },
          expect: statusFor(201, 403),
        },
        {
          covers: ['PATCH /v1/agents/{id} body:/team_id'],
          what: 'move an own agent into the team',
          send: async (w, r) => {
            const own = (await call(w, 'POST', '/v1/agents', { ...body(r), visibility: 'private', team_id: undefined })).body.response.id
            const a = await call(w, 'PATCH', `/v1/agents/${own}`, { visibility: 'team', team_id: r })
            const res = w === B ? a : sameAsUnknown(a, await call(w, 'PATCH', `/v1/agents/${own}`, { visibility: 'team', team_id: unknownTeam }))
            await call(w, 'DELETE', `/v1/agents/${own}`)
            return res
          },
          expect: statusFor(200, 403),
        },
      ]
    },
  },
  {
    name: "A's grant to D's public agent",
    make: async () => {
      const g = await call(D, 'POST', '/v1/agents', {
        name: 'D public CRM agent',
        description: 'Looks up a contact',
        visibility: 'public',
        parameters: { type: 'object', properties: { email: { type: 'string', description: 'Email' } }, required: ['email'] },
        workflow: { steps: [{ id: 'find', action: 'crm.v2.lookup_object', input: { object_type: 'contacts', object_id: '{{input.email}}' } }] },
      })
      const id = g.body.response.id
      expect((await call(A, 'PUT', `/v1/grants/${id}`, { integrations: ['crm'] })).status).toBe(200)
      return { id, markers: [], visibleTo: ['team', 'stranger'], globalId: false, extra: {} }
    },
    read: async () => (await call(A, 'GET', '/v1/grants')).body.response.map(({ updated_at: _u, ...g }: Json) => g),
    probes: () => [
      // B and C have no grant of their own to revoke: a 404, and A's stays.
      { covers: ['DELETE /v1/grants/{agent} path:agent'], what: 'revoke a grant', ref: 'path', send: (w, r) => call(w, 'DELETE', `/v1/grants/${r}`), expect: () => 404 },
      { covers: ['PUT /v1/grants/{agent} path:agent'], what: 'grant the agent (their own grant)', send: (w, _r, m) => call(w, 'PUT', `/v1/grants/${m.id}`, { integrations: [] }), expect: () => 200 },
      { covers: ['DELETE /v1/grants/{agent} path:agent'], what: 'revoke their own grant', send: (w, _r, m) => call(w, 'DELETE', `/v1/grants/${m.id}`), expect: () => 200 },
    ],
  },
  {
    name: "A's search run",
    make: async () => {
      const text = marker('run')
      const ran = await act(A, 'search', { query: `tenancy ${text}` })
      expect(ran.status, ran.text).toBe(200)
      return { id: ran.headers.get('x-run-id')!, markers: [{ text, shownTo: [] }], visibleTo: [], globalId: true, extra: {} }
    },
    read: async (m) => (await call(A, 'GET', `/v1/runs/${m.id}`)).body,
    probes: () => runProbes(),
    variants: runVariants,
    control: runControl,
  },
  {
    name: "A's company research run (report page, report link, status and report actions)",
    make: async () => {
      const text = marker('research')
      const domain = `${text.toLowerCase()}.example`
      const id = await finishedRun(A, RESEARCH, { domain }, researchOutput(domain, `Company ${text}`))
      // A's own report page shows it (so the 404s below are about the caller, not a broken page).
      const page = await call(A, 'GET', `/v1/runs/${id}/report`)
      expect(page.status).toBe(200)
      expect(page.text).toContain(text)
      return {
        id,
        markers: [
          { text, shownTo: [] },
          { text: text.toLowerCase(), shownTo: [] },
        ],
        visibleTo: [],
        globalId: true,
        extra: {},
      }
    },
    read: async (m) => [(await call(A, 'GET', `/v1/runs/${m.id}`)).body, (await act(A, 'company_research_v2_get_report', { run_id: m.id })).body],
    probes: () => runProbes(),
    variants: runVariants,
    control: runControl,
  },
  {
    name: "A's artifact (research screenshot or timeline)",
    make: async () => {
      const text = marker('art')
      const art = await putArtifact(env.CACHE, A.accountId, `<svg xmlns="http://www.w3.org/2000/svg"><text>${text}</text></svg>`, 'image/svg+xml')
      return { id: art.id, markers: [{ text, shownTo: [] }], visibleTo: [], globalId: true, extra: {} }
    },
    read: async (m) => (await call(A, 'GET', `/v1/artifacts/${m.id}`)).text,
    probes: () => [{ covers: ['GET /v1/artifacts/{id} path:id'], what: 'fetch the artifact', ref: 'path', send: (w, r) => call(w, 'GET', `/v1/artifacts/${r}`), expect: () => 404 }],
    variants: (m) => pathVariants(m.id),
    control: async (ref) => (await call(A, 'GET', `/v1/artifacts/${ref}`)).status,
  },
  {
    name: "A's token",
    make: async () => {
      const text = marker('tok')
      const made = await call(A, 'POST', '/v1/tokens', { name: `probe ${text}`, rate_limit_per_minute: 500 })
      expect(made.status, made.text).toBe(201)
      markSecret(made.body.response.token)
      return {
        id: made.body.response.id,
        markers: [
          { text, shownTo: [] },
          { text: made.body.response.token, shownTo: [] },
        ],
        visibleTo: [],
        globalId: true,
        extra: {},
      }
    },
    read: async (m) => {
      const { last_used_at: _l, ...t } = ((await call(A, 'GET', '/v1/tokens')).body.response as Json[]).find((x) => x.id === m.id)
      return t
    },
    probes: () => [
      {
        covers: ['PATCH /v1/tokens/{id} path:id'],
        what: "set the token's limits",
        ref: 'path',
        send: (w, r) => call(w, 'PATCH', `/v1/tokens/${r}`, { rate_limit_per_minute: 1, rate_limit_per_day: 1 }),
        expect: () => 404,
      },
      {
        covers: ['PATCH /v1/tokens/{id} path:id'],
        what: "lift the token's limits",
        ref: 'path',
        send: (w, r) => call(w, 'PATCH', `/v1/tokens/${r}`, { rate_limit_per_minute: null }),
        expect: () => 404,
      },
      {
        covers: [],
        what: 'list tokens',
        send: (w) => call(w, 'GET', '/v1/tokens'),
        expect: () => 200,
        leak: (a, m) => ((a.body.response as Json[]).some((t) => t.id === m.id || t.account_id === A.accountId) ? "A's token listed" : null),
      },
      { covers: ['DELETE /v1/tokens/{id} path:id'], what: 'revoke the token', ref: 'path', send: (w, r) => call(w, 'DELETE', `/v1/tokens/${r}`), expect: () => 404 },
    ],
    variants: (m) => pathVariants(m.id),
    // A has no read of one token; A's own PATCH with the limits it has reaches it.
    control: async (ref) => (await call(A, 'PATCH', `/v1/tokens/${ref}`, { rate_limit_per_minute: 500 })).status,
  },
  {
    name: "A's built-in CRM contact and company",
    make: async () => {
      const text = marker('crm')
      const email = `${text.toLowerCase()}@example.com`
      const domain = `${text.toLowerCase()}.example`
      // A few records first, so A's ids are not the "1" B's own first record gets (ids are per account).
      for (let i = 0; i < 3; i++) await call(A, 'POST', '/v1/integrations/crm/builtin/objects/notes', { properties: { hs_note_body: `filler ${i}` } })
      const contact = await call(A, 'POST', '/v1/integrations/crm/builtin/objects/contacts', { properties: { email, firstname: text } })
      const company = await call(A, 'POST', '/v1/integrations/crm/builtin/objects/companies', { properties: { domain, name: `Company ${text}` } })
      expect([contact.status, company.status], contact.text + company.text).toEqual([201, 201])
      return { id: contact.body.response.id, markers: [{ text, shownTo: [] }], visibleTo: [], globalId: false, extra: { email, domain, company: company.body.response.id } }
    },
    read: async (m) => [
      (await act(A, 'crm.v2.lookup_object', { object_type: 'contacts', object_id: m.id, properties: 'email,firstname', associations: 'companies' })).body.response,
      (await act(A, 'crm.v2.lookup_object', { object_type: 'companies', object_id: m.extra.company, properties: 'domain,name', associations: 'contacts' })).body.response,
    ],
    probes: () => {
      const lookup = (w: Caller, object_type: string, object_id: string, method?: string) =>
        act(w, 'crm.v2.lookup_object', { object_type, object_id, ...(method ? { identification_method: method } : {}), properties: 'email,firstname,name,domain' })
      return [
        { covers: ['POST /v1/action/crm.v2.lookup_object body:/object_id'], what: 'look up the contact by id', ref: 'body', send: (w, r) => lookup(w, 'contacts', r), expect: () => 404 },
        {
          covers: ['POST /v1/action/crm.v2.lookup_object body:/object_id'],
          what: 'look up the contact by email',
          send: (w, _r, m) => lookup(w, 'contacts', m.extra.email, 'Email Address (Contacts only)'),
          expect: () => 404,
        },
        { covers: ['POST /v1/action/crm.v2.lookup_object body:/object_id'], what: 'look up the company by domain', send: (w, _r, m) => lookup(w, 'companies', m.extra.domain), expect: () => 404 },
        {
          covers: ['POST /mcp tools/call:<action> arguments'],
          what: 'MCP tools/call crm_v2_lookup_object',
          ref: 'body',
          send: (w, r) => mcp(w, 'tools/call', { name: 'crm_v2_lookup_object', arguments: { object_type: 'contacts', object_id: r } }),
          expect: () => 404,
        },
        {
          covers: ['POST /v1/action/crm.v2.update_object body:/identifier_value'],
          what: 'update the contact by id',
          ref: 'body',
          send: (w, r) => act(w, 'crm.v2.update_object', { object_type: 'contacts', identification_method: 'CRM ID', identifier_value: r, properties: JSON.stringify({ firstname: 'taken over' }) }),
          expect: () => 404,
        },
        {
          covers: ['DELETE /v1/integrations/crm/builtin/objects/{type}/{id} path:id'],
          what: 'delete the contact',
          ref: 'path',
          send: (w, r) => call(w, 'DELETE', `/v1/integrations/crm/builtin/objects/contacts/${r}`),
          expect: () => 404,
        },
        {
          covers: ['POST /v1/integrations/crm/builtin/objects/{type} body:/associations[]/to_object_id'],
          what: "create an own record associated with A's contact",
          ref: 'body',
          send: (w, r) => call(w, 'POST', '/v1/integrations/crm/builtin/objects/companies', { properties: { name: 'Own' }, associations: [{ to_object_type: 'contacts', to_object_id: r }] }),
          expect: () => 404,
        },
        {
          covers: ['POST /v1/action/crm.v2.update_object body:/associations[]/to_object_id'],
          what: "associate an own record with A's contact",
          ref: 'body',
          send: (w, r) =>
            act(w, 'crm.v2.update_object', {
              object_type: 'companies',
              identification_method: 'Company Domain (Companies only)',
              identifier_value: `own-${w.name.toLowerCase()}.example`,
              properties: JSON.stringify({ name: 'Own' }),
              associations: JSON.stringify([{ to_object_type: 'contacts', to_object_id: r }]),
            }),
          expect: () => 404,
        },
        {
          covers: ['GET /v1/integrations/crm/builtin/objects/{type} query:after'],
          what: "list own contacts after A's id",
          send: (w, _r, m) => call(w, 'GET', `/v1/integrations/crm/builtin/objects/contacts?after=${Number(m.id) - 1}`),
          expect: () => 200,
        },
        // Last (they make B's and C's own records): an update by email or domain is an upsert into the
        // caller's own CRM, never a write to A's record with that email.
        {
          covers: ['POST /v1/action/crm.v2.update_object body:/identifier_value'],
          what: "upsert by A's email (creates an own contact)",
          send: async (w, _r, m) => {
            const a = await act(w, 'crm.v2.update_object', {
              object_type: 'contacts',
              identification_method: 'Email Address (Contacts only)',
              identifier_value: m.extra.email,
              properties: JSON.stringify({ lastname: 'own' }),
            })
            return a.status === 200 && a.body.response.created !== true ? { ...a, problem: 'updated a contact instead of creating its own' } : a
          },
          expect: () => 200,
        },
        {
          covers: ['POST /v1/action/crm.v2.update_object body:/identifier_value'],
          what: "upsert by A's company domain (creates an own company)",
          send: async (w, _r, m) => {
            const a = await act(w, 'crm.v2.update_object', {
              object_type: 'companies',
              identification_method: 'Company Domain (Companies only)',
              identifier_value: m.extra.domain,
              properties: JSON.stringify({ description: 'own' }),
            })
            return a.status === 200 && a.body.response.created !== true ? { ...a, problem: 'updated a company instead of creating its own' } : a
          },
          expect: () => 200,
        },
      ]
    },
    variants: (m) =>
      both(
        m,
        (x) => pathVariants(x.id, [{ ref: `00${x.id}`, how: 'leading zeros', same: false, kind: 'path' }]),
        (x) => bodyVariants(x.id, [{ ref: `00${x.id}`, how: 'leading zeros', same: false, kind: 'body' }]),
      ),
  },
  {
    name: "A's workflow variable (Workflow-Id scope and name)",
    make: async () => {
      const text = marker('var')
      const flow = `flow-${randomBase62(10)}`
      const name = `v_${randomBase62(10)}`
      const put = await act(A, 'store_variable', { name, value: { note: text } }, { 'workflow-id': flow })
      expect(put.status, put.text).toBe(200)
      return { id: name, markers: [{ text, shownTo: [] }], visibleTo: [], globalId: false, extra: { flow } }
    },
    read: async (m) => (await act(A, 'get_variable', { name: m.id }, { 'workflow-id': m.extra.flow })).body,
    probes: (doc) => {
      const inScope = (m: Made) => ({ 'workflow-id': m.extra.flow })
      return [
        {
          covers: ['POST /v1/action/get_variable body:/name'],
          what: 'get_variable in the same scope',
          ref: 'body',
          send: (w, r, m) => act(w, 'get_variable', { name: r }, inScope(m)),
          expect: () => 404,
        },
        { covers: [], what: 'reference it from a search', send: (w, _r, m) => act(w, 'search', { query: `{{${m.id}.note}}` }, inScope(m)), expect: () => 400 },
        {
          covers: ['POST /v1/agents body:/workflow/steps[]/input'],
          what: 'an own agent whose step reads it, invoked in the scope',
          send: async (w, _r, m) => {
            const made = await call(w, 'POST', '/v1/agents', {
              name: 'Own',
              description: 'Reads a variable',
              visibility: 'private',
              workflow: { steps: [{ id: 'read', action: 'get_variable', input: { name: m.id } }] },
            })
            const ran = await act(w, 'invoke_agent', { id: made.body.response.id }, inScope(m))
            await call(w, 'DELETE', `/v1/agents/${made.body.response.id}`)
            return ran
          },
          expect: () => 404,
        },
        // Stores into the caller's own scope: a 200 that must leave A's value as it was.
        {
          covers: ['POST /v1/action/store_variable body:/name'],
          what: 'store_variable in the same scope',
          ref: 'body',
          send: (w, r, m) => act(w, 'store_variable', { name: r, value: 'taken over' }, inScope(m)),
          expect: () => 200,
        },
        ...actionNames(doc).map((name): Probe => ({
          covers: ['POST /v1/action/* header:Workflow-Id', ...(takesOutputVariable(doc, name) ? ['POST /v1/action/* body:/output_variable_name'] : [])],
          what: `${name} in A's scope, storing under A's name`,
          // Queued actions answer 202 at once and store when their run ends (settleQueuedRuns waits for it).
          send: (w, _r, m) => act(w, name, { ...exampleOf(doc, name), ...(takesOutputVariable(doc, name) ? { output_variable_name: m.id } : {}) }, { ...inScope(m), prefer: 'wait=0' }),
          expect: () => 'any',
        })),
        {
          covers: ['POST /v1/action/invoke_agent_{id} header:Workflow-Id'],
          what: 'invoke_agent_<id> of an own agent in A scope',
          send: async (w, _r, m) => {
            const made = await call(w, 'POST', '/v1/agents', { name: 'Own', description: 'Own', visibility: 'private', workflow: { steps: [{ id: 's', action: 'search', input: { query: 'x' } }] } })
            const ran = await act(w, `invoke_agent_${made.body.response.id}`, {}, inScope(m))
            await call(w, 'DELETE', `/v1/agents/${made.body.response.id}`)
            return ran
          },
          expect: () => 200,
        },
      ]
    },
    variants: (m) => bodyVariants(m.id),
  },
  {
    name: "A's idempotency key",
    make: async () => {
      const text = marker('idem')
      const key = `key-${randomBase62(12)}`
      const ran = await act(A, 'search', { query: `tenancy ${text}` }, { 'idempotency-key': key })
      expect(ran.status, ran.text).toBe(200)
      return { id: key, markers: [{ text, shownTo: [] }], visibleTo: [], globalId: false, extra: { run: ran.headers.get('x-run-id') } }
    },
    // A's replay answers with its first run.
    read: async (m) => {
      const again = await call(A, 'GET', `/v1/runs/${m.extra.run}`)
      return again.body
    },
    probes: (doc) => [
      ...actionNames(doc).map((name): Probe => ({
        covers: ['POST /v1/action/* header:Idempotency-Key'],
        what: `${name} with A's Idempotency-Key`,
        send: (w, _r, m) => act(w, name, exampleOf(doc, name), { 'idempotency-key': m.id, prefer: 'wait=0', 'workflow-id': `own-${w.name}` }),
        expect: () => 'any',
        leak: (a, m) => (a.headers.get('x-run-id') === m.extra.run || a.text.includes(m.extra.run) ? "answered with A's run" : null),
      })),
      {
        covers: ['POST /v1/action/invoke_agent_{id} header:Idempotency-Key'],
        what: "invoke_agent_<id> with A's Idempotency-Key",
        send: (w, _r, m) => act(w, 'invoke_agent_nosuchagent0000', {}, { 'idempotency-key': m.id }),
        expect: () => [404, 409],
        leak: (a, m) => (a.headers.get('x-run-id') === m.extra.run ? "answered with A's run" : null),
      },
    ],
  },
]

// ---------------------------------------------------------------------------------------------------
// The checks

let doc: Json
const made = new Map<Target, Made>()
const before = new Map<Target, unknown>()
const violations: string[] = []
let checks = 0

function check(ok: boolean, what: string) {
  checks++
  if (!ok) violations.push(what)
}

const inRange = (status: number, allowed: number | number[] | 'any') => (allowed === 'any' ? true : Array.isArray(allowed) ? allowed.includes(status) : status === allowed)

/** What of A's object an answer to B or C reveals, or null. */
async function revealed(p: Probe, m: Made, who: Caller, a: Answer): Promise<string | null> {
  const rel = relOf(who)
  if (a.problem) return a.problem
  // Nothing of A's is shown to another account with A's account id on it (owner fields are the owner's).
  if (a.text.includes(A.accountId)) return "the answer holds A's account id"
  for (const mk of m.markers) if (!mk.shownTo.includes(rel) && a.text.includes(mk.text)) return `the answer holds A's marker ${mk.text}`
  // A's id in an error is B's own request echoed ("Agent "<id>" not found"); in a success it is the object.
  if (a.status >= 200 && a.status < 300 && m.globalId && !m.visibleTo.includes(rel) && !p.leak && a.text.includes(m.id)) return "a success holds A's object id"
  if (a.status >= 500 && a.status !== 502 && a.status !== 503 && a.status !== 504) return `answered ${a.status}`
  return p.leak ? p.leak(a, m, who) : null
}

async function probeOnce(t: Target, p: Probe, who: Caller, ref: string, label: string): Promise<Answer> {
  const m = made.get(t)!
  const a = await p.send(who, ref, m)
  const allowed = p.expect(relOf(who))
  check(inRange(a.status, allowed), `${t.name}: ${p.what} by ${who.name}${label}: status ${a.status}, expected ${JSON.stringify(allowed)}: ${a.text.slice(0, 300)}`)
  const leak = await revealed(p, m, who, a)
  check(leak === null, `${t.name}: ${p.what} by ${who.name}${label}: ${leak}: ${a.text.slice(0, 300)}`)
  return a
}

/** Waits for B's and C's queued runs (the action sweeps queue research and audits) so a late write would be seen. */
async function settleQueuedRuns(): Promise<void> {
  const deadline = Date.now() + 90_000
  for (const who of [B, C]) {
    for (;;) {
      const open = [...((await call(who, 'GET', '/v1/runs?state=queued&limit=100')).body.response as Json[]), ...((await call(who, 'GET', '/v1/runs?state=running&limit=100')).body.response as Json[])]
      if (!open.length || Date.now() > deadline) {
        check(!open.length, `${who.name}'s queued runs did not end in 90 s (${open.map((r) => r.action).join(', ')}): a late write to A's variable would go unseen`)
        break
      }
      await call(who, 'GET', `/v1/runs/${open[0].id}?wait=10`)
    }
  }
}

beforeAll(async () => {
  ;[A, B, C, D] = await Promise.all([caller('A'), caller('B'), caller('C'), caller('D')])
  blue = await createTeam(`blue ${marker('team')}`, [A.accountId, B.accountId])
  // C is in a team of its own, none of A's. Membership is read with the token on every request, so
  // teams made after the tokens count.
  await createTeam('red', [C.accountId])
  doc = dereference((await call(null, 'GET', '/v1/openapi.json')).body)
}, 60_000)

describe('tenancy on every route that names an object', () => {
  it('has an entry for every input of the OpenAPI document that names an object', () => {
    const inputs = [...new Set([...objectInputs(doc), ...UNSEEN_INPUTS])]
    const patterns = TARGETS.flatMap((t) => t.probes(doc).flatMap((p) => p.covers))
    patterns.push('GET /v1/runs/{id}/report query:token_id', 'GET /v1/runs/{id}/report signed link') // the signed-link test below
    const missing = inputs.filter((i) => !(i in LABELS) && !patterns.some((p) => coveredBy(p, i)))
    expect(
      missing,
      `These inputs name an object, but test/tenancy-routes.test.ts has no entry that makes one as account A and calls them as B and C. ` +
        `A route or field added without a tenancy check: add a probe to a target in TARGETS (or a new target), or a LABELS entry saying why it names nothing of another account.`,
    ).toEqual([])
    const stale = patterns.filter((p) => !inputs.some((i) => coveredBy(p, i)))
    expect(stale, 'covers entries that name no input of the document (renamed routes or fields?)').toEqual([])
    const operations = new Set(inputs.map((i) => i.split(' ').slice(0, 2).join(' ')))
    console.info(`tenancy-routes: ${inputs.length} object-naming inputs of ${operations.size} operations, ${Object.keys(LABELS).length} labels`)
  })

  it('refuses B (same team) and C (no relation) every call that names an object of A, and changes nothing of A', async () => {
    const start = violations.length
    for (const t of TARGETS) {
      const m = await t.make()
      made.set(t, m)
      before.set(t, await t.read(m))
    }
    for (const t of TARGETS) {
      for (const p of t.probes(doc)) for (const who of [B, C]) await probeOnce(t, p, who, made.get(t)!.id, '')
    }
    await settleQueuedRuns()
    for (const t of TARGETS) {
      const after = await t.read(made.get(t)!)
      check(JSON.stringify(after) === JSON.stringify(before.get(t)), `${t.name} changed: ${JSON.stringify(before.get(t)).slice(0, 400)} -> ${JSON.stringify(after).slice(0, 400)}`)
    }
    expect(violations.slice(start)).toEqual([])
  }, 300_000)

  it("refuses A's ids transformed (case, percent-encoding, slashes, .. segments, spaces, slug for id) as it refuses the id", async () => {
    const start = violations.length
    let samples = 0
    let same = 0
    for (const [i, t] of TARGETS.entries()) {
      if (!t.variants) continue
      const m = made.get(t)!
      const probes = t.probes(doc).filter((p) => p.ref)
      await fc.assert(
        fc.asyncProperty(t.variants(m), async (v) => {
          samples++
          if (v.same && v.kind === 'path' && t.control) {
            same++
            const reached = await t.control(v.ref, m)
            check(reached === 200, `${t.name}: A's own call with ${v.how} (${v.ref}) answered ${reached}: the variant does not name A's object`)
          }
          for (const p of probes.filter((x) => x.ref === v.kind)) {
            for (const who of [B, C]) {
              const allowed = p.expect(relOf(who))
              // Calls B or C may make by design (reading a team agent) are not refusals to test here.
              if (allowed === 'any' || (typeof allowed === 'number' && allowed < 400)) continue
              const a = await p.send(who, v.ref, m)
              const label = ` with ${v.how} (${JSON.stringify(v.ref)})`
              // A reference that still names A's object answers exactly as the id does; any other names
              // nothing (a 4xx) or reaches another route (whose answer must still hold nothing of A's).
              if (v.same) check(inRange(a.status, allowed), `${t.name}: ${p.what} by ${who.name}${label}: status ${a.status}, expected ${JSON.stringify(allowed)}`)
              else check(a.status >= 400 || p.ref === 'path', `${t.name}: ${p.what} by ${who.name}${label}: status ${a.status}`)
              const leak = await revealed(p, m, who, a)
              check(leak === null, `${t.name}: ${p.what} by ${who.name}${label}: ${leak}: ${a.text.slice(0, 300)}`)
            }
          }
          return true
        }),
        { numRuns: 12, seed: 4242 + i },
      )
    }
    for (const t of TARGETS) {
      const after = await t.read(made.get(t)!)
      check(JSON.stringify(after) === JSON.stringify(before.get(t)), `${t.name} changed by a transformed reference`)
    }
    console.info(`tenancy-routes: ${samples} transformed references (${same} still naming A's object, checked with A's own call)`)
    expect(violations.slice(start)).toEqual([])
  }, 300_000)

  it("opens a signed report link for A's run only: a changed run, token, expiry or signature is refused", async () => {
    const start = violations.length
    const text = marker('link')
    const run = await finishedRun(A, RESEARCH, { domain: 'a.example' }, researchOutput('a.example', `Linked ${text}`))
    const audit = await finishedRun(A, AUDIT, { website_url: 'https://a.example/' }, { website_url: `https://a.example/${text}`, scores: { seo: 50, aeo: 60, overall: 55 } })
    const bText = marker('blink')
    const bRun = await finishedRun(B, RESEARCH, { domain: 'b.example' }, researchOutput('b.example', `B ${bText}`))
    // The link names its token: a token of A's made for it, revoked at the end.
    const linkToken = await createToken(A.accountId)
    const linkTokenId = (await call(linkToken, 'GET', '/v1/me')).body.response.token_id
    const link = await call(linkToken, 'POST', `/v1/runs/${run}/report-link`)
    expect(link.status, link.text).toBe(200)
    const url = new URL(link.body.response.url, BASE)
    const q = Object.fromEntries(url.searchParams) as { token_id: string; expires: string; signature: string }
    const open = (runId: string, p: { token_id: string; expires: string; signature: string }, who: Caller | null = null) =>
      call(who, 'GET', `/v1/runs/${encodeURIComponent(runId)}/report?${new URLSearchParams(p)}`)
    const untouched = await open(run, q)
    check(untouched.status === 200 && untouched.text.includes(text), `the link does not open A's report: ${untouched.status}`)
    const noLeak = (a: Answer) => !a.text.includes(text) && !a.text.includes(bText)

    // Any change to what the signature covers is refused, and opens nothing.
    const hexDigit = fc.constantFrom(...'0123456789abcdef')
    const tamper = fc.oneof(
      fc.constantFrom(audit, bRun, run.toUpperCase(), run.toLowerCase(), `${run}0`, run.slice(0, -1), `${run}_look`).map((r) => ({ how: `run ${r}`, runId: r, p: q })),
      fc.constantFrom(A.tokenId, B.tokenId, C.tokenId, `tok_${randomBase62(20)}`).map((t) => ({ how: `token ${t}`, runId: run, p: { ...q, token_id: t } })),
      fc
        .integer({ min: -2000, max: 2000 })
        .filter((d) => d !== 0)
        .map((d) => ({ how: `expiry ${d > 0 ? '+' : ''}${d} s`, runId: run, p: { ...q, expires: String(Number(q.expires) + d) } })),
      fc
        .tuple(fc.integer({ min: 0, max: 63 }), hexDigit)
        .filter(([i, c]) => q.signature[i] !== c)
        .map(([i, c]) => ({ how: `signature digit ${i} -> ${c}`, runId: run, p: { ...q, signature: q.signature.slice(0, i) + c + q.signature.slice(i + 1) } })),
      fc.constant({ how: 'signature in upper case', runId: run, p: { ...q, signature: q.signature.toUpperCase() } }),
    )
    let tampered = 0
    await fc.assert(
      fc.asyncProperty(tamper, async (x) => {
        tampered++
        const a = await open(x.runId, x.p)
        check(a.status === 401 && noLeak(a), `a report link with ${x.how} answered ${a.status}: ${a.text.slice(0, 200)}`)
        return true
      }),
      { numRuns: 60, seed: 77 },
    )
    // Signed with the server's own key, a link for B's run naming A's token still opens nothing: the
    // run must be the token's account's.
    const forged = new URL((await signReportLink(env, bRun, linkTokenId)).url, BASE)
    const forgedAnswer = await call(null, 'GET', `${forged.pathname}${forged.search}`)
    check(forgedAnswer.status === 404 && noLeak(forgedAnswer), `a validly signed link for B's run with A's token answered ${forgedAnswer.status}`)
    for (const [how, at] of [
      ['expired', Date.now() - 10 * 60_000],
      ['ending past the longest lifetime', Date.now() + 60 * 60_000],
    ] as const) {
      const u = new URL((await signReportLink(env, run, linkTokenId, at)).url, BASE)
      const a = await call(null, 'GET', `${u.pathname}${u.search}`)
      check(a.status === 401 && noLeak(a), `a validly signed link ${how} answered ${a.status}`)
    }
    // B's bearer header wins over the link's query: B's principal, which does not own the run.
    const withBearer = await open(run, q, B)
    check(withBearer.status === 404 && noLeak(withBearer), `B's bearer with A's link answered ${withBearer.status}`)
    // Revoking the token ends its links at once.
    expect((await call(A, 'DELETE', `/v1/tokens/${linkTokenId}`)).status).toBe(200)
    const revoked = await open(run, q)
    check(revoked.status === 401 && noLeak(revoked), `a link of a revoked token answered ${revoked.status}`)
    console.info(`tenancy-routes: ${tampered} tampered report links`)
    expect(violations.slice(start)).toEqual([])
  }, 120_000)

  it('made its checks with 0 violations', () => {
    console.info(`tenancy-routes: ${TARGETS.length} kinds of object, ${checks} cross-account checks, ${violations.length} violations`)
    expect(checks).toBeGreaterThan(500)
    expect(violations).toEqual([])
  })
})
