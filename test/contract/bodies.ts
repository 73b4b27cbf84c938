import { SELF } from 'cloudflare:test'
import { ADMIN, BASE, request, type Json } from '../helpers'
import { dereference } from './schema-arbitrary'

/** A documented operation that takes a JSON body, with its examples (or `{}`) and a path that reaches its body reader. */
export interface BodyOperation {
  method: string
  path: string
  examples: unknown[]
  admin: boolean
}

/** Every operation of the OpenAPI document that takes a JSON body. */
export async function bodyOperations(): Promise<BodyOperation[]> {
  const doc = dereference((await request('GET', '/v1/openapi.json')).body)
  const out: BodyOperation[] = []
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      const media = op?.requestBody?.content?.['application/json']
      if (!media) continue
      const examples = Object.values((media.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value)
      // A path parameter with an enum takes its first value (others are checked before the body is read).
      const params = new Map<string, Json>((op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => [p.name, p.schema]))
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => params.get(name)?.enum?.[0] ?? 'nothinghere')
      out.push({ method: method.toUpperCase(), path, examples: examples.length ? examples : [{}], admin: Array.isArray(op.security) && op.security.length > 0 })
    }
  }
  return out
}

/** Every place in a value where another value can go: an object's new key or an array's new element. */
export function slots(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return []
  const own = Array.isArray(value) ? [[...path, value.length]] : [[...path, 'zz_added']]
  const children = Array.isArray(value) ? value.map((v, i) => slots(v, [...path, i])) : Object.entries(value).map(([k, v]) => slots(v, [...path, k]))
  return [...own, ...children.flat()]
}

const MARK = 'spliced-body-placeholder'

/** The example with JSON `text` spliced in at `slot` (as text: the test's own JSON.stringify may not reach as deep as the text nests). */
export function bodyWith(example: unknown, slot: (string | number)[], text: string): string {
  const copy = structuredClone(example) as Record<string | number, unknown>
  let at: Record<string | number, unknown> = copy
  for (const key of slot.slice(0, -1)) at = at[key] as Record<string | number, unknown>
  const last = slot[slot.length - 1]
  if (Array.isArray(at)) at.push(MARK)
  else at[last] = MARK
  return JSON.stringify(copy).replace(`"${MARK}"`, text)
}

/** Sends a body to an operation as its caller (or the admin), with the headers any route may need. */
export async function sendBody(op: Pick<BodyOperation, 'method' | 'path' | 'admin'>, body: string, token: string, workflowId: string) {
  const res = await SELF.fetch(`${BASE}${op.path}`, {
    method: op.method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: op.admin ? ADMIN : `Bearer ${token}`,
      'workflow-id': workflowId,
      prefer: 'wait=0',
    },
    body,
  })
  const text = await res.text()
  return { status: res.status, text, body: JSON.parse(text) as Json }
}
