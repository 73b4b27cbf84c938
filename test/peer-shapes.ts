/**
 * Peers that answer with the wrong shape: mutations of a recorded payload (a field deleted, or set to
 * null, a number, a huge number, an empty or long string, an empty or mixed array, an object, another
 * field's value, or wrapped one level deeper) and the check that a reader of such an answer either
 * returns what it promises or throws the project's typed upstream error, never a TypeError.
 */
import fc from 'fast-check'
import type { z } from 'zod'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any
export type Path = (string | number)[]

/** Every path of a JSON value, the root first, breadth first; at most `max` (a 200 KB answer has tens of thousands). */
export function jsonPaths(value: Json, max = 4000): Path[] {
  const out: Path[] = []
  const queue: [Path, Json][] = [[[], value]]
  while (queue.length && out.length < max) {
    const [path, v] = queue.shift()!
    out.push(path)
    if (Array.isArray(v)) v.forEach((item, i) => queue.push([[...path, i], item]))
    else if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) queue.push([[...path, k], item])
  }
  return out
}

function getAt(value: Json, path: Path): Json {
  let cur = value
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = cur[key]
  }
  return cur
}

const LONG = 'x'.repeat(20_000)

/** What a field may become. */
export const REPLACEMENTS: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 63,
  '',
  'NaN',
  'Infinity',
  '-1',
  '1e999',
  'not the expected text',
  LONG,
  [],
  {},
  [null],
  [1, 'a', null, {}, [], true],
  { a: { b: { c: { d: [{ e: null }] } } } },
]

export type Mutation = { path: Path; op: 'delete' } | { path: Path; op: 'set'; value: Json } | { path: Path; op: 'copy'; from: Path } | { path: Path; op: 'wrap-array' | 'wrap-object' | 'to-string' }

/** Applies mutations to a copy of `value` (a mutation of the root replaces the whole answer). */
export function mutate(value: Json, mutations: Mutation[]): Json {
  const box = { root: structuredClone(value) }
  for (const m of mutations) {
    const path: Path = ['root', ...m.path]
    const parent = getAt(box, path.slice(0, -1))
    if (parent === null || typeof parent !== 'object') continue
    const key = path[path.length - 1]
    const current = parent[key]
    if (m.op === 'delete') {
      if (key === 'root') box.root = undefined
      else if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1)
      else delete parent[key]
      continue
    }
    let next: Json
    if (m.op === 'set') next = structuredClone(m.value)
    else if (m.op === 'copy') next = structuredClone(getAt(box.root, m.from) ?? null)
    else if (m.op === 'wrap-array') next = [current]
    else if (m.op === 'wrap-object') next = { value: current }
    else next = typeof current === 'string' ? current : JSON.stringify(current ?? null)
    parent[key] = next
  }
  return box.root
}

/** One to three mutations at paths of `value` (paths drawn from its own, so every field can be hit). */
export function mutations(value: Json, maxPaths = 4000): fc.Arbitrary<Mutation[]> {
  const paths = jsonPaths(value, maxPaths)
  const path = fc.constantFrom(...paths)
  const one: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 3, arbitrary: path.map((p) => ({ path: p, op: 'delete' as const })) },
    { weight: 6, arbitrary: fc.record({ path, value: fc.constantFrom(...REPLACEMENTS) }).map(({ path: p, value: v }) => ({ path: p, op: 'set' as const, value: v })) },
    { weight: 2, arbitrary: fc.record({ path, from: path }).map(({ path: p, from }) => ({ path: p, op: 'copy' as const, from })) },
    { weight: 2, arbitrary: fc.record({ path, op: fc.constantFrom('wrap-array' as const, 'wrap-object' as const, 'to-string' as const) }) },
  )
  return fc.array(one, { minLength: 1, maxLength: 3 })
}

/** The errors an upstream's garbage may end in: they become 502/4xx envelopes naming the service. */
export const TYPED_ERRORS = new Set(['UpstreamError', 'ProviderError'])

/** A failure that is not one of the typed errors, with what produced it. */
export interface Crash {
  provider: string
  error: string
  mutations: Mutation[]
}

/**
 * Runs `read` (sync or async); a typed error passes, a result passes when `schema` accepts it, and
 * anything else (a TypeError, a RangeError, a result of the wrong shape) is described as a crash.
 */
export async function crashOf(read: () => unknown, schema?: z.ZodType): Promise<string | null> {
  let out: unknown
  try {
    out = await read()
  } catch (err) {
    const e = err as Error
    if (e instanceof Error && TYPED_ERRORS.has(e.name) && e.message.trim() !== '') return null
    return `${e?.name ?? typeof err}: ${String(e?.message ?? err).slice(0, 200)}`
  }
  if (!schema) return null
  const parsed = schema.safeParse(out)
  return parsed.success
    ? null
    : `malformed result: ${parsed.error.issues
        .slice(0, 2)
        .map((i) => `${i.path.join('.')} ${i.message}`)
        .join('; ')}`
}

/** A JSON Response as a peer sends it. */
export function jsonResponse(body: Json, status = 200): Response {
  return new Response(body === undefined ? '' : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}
