import type { z } from 'zod'
import { pointer } from '../http/errors'
import { MAX_JSON_DEPTH, shortPointer, tooDeep } from '../lib/json-depth'
import { jsonSize, jsonStringBodyBytes } from '../lib/json-size'
import { ownValue, setOwn } from '../lib/objects'

/** `{{ path }}` anywhere in a string; paths are dot-separated names and numeric indexes. */
const REFERENCE = /\{\{([^{}]{0,512})\}\}/g
const WHOLE = /^\s*\{\{([^{}]{0,512})\}\}\s*$/
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$|^\d{1,9}$/
const MAX_SEGMENTS = 32
/**
 * Strings nested deeper than this many arrays and objects inside a value are data, never references:
 * a caller's JSON may nest as deep as its size allows, and every walk over it for references stops here.
 */
export const REFERENCE_DEPTH = 64

/** A `{{...}}` that points at nothing, or is not a valid path. */
export class UnresolvedReferenceError extends Error {
  constructor(
    readonly field: string,
    readonly reference: string,
    readonly reason: string,
  ) {
    super(`${field}: {{${reference}}} ${reason}`)
    this.name = 'UnresolvedReference'
  }
}

/** Resolving references would make the input larger than its limit; `field` is where the limit was passed. */
export class ExpansionTooLargeError extends Error {
  constructor(
    readonly field: string,
    readonly limit: number,
  ) {
    super(`${field}: resolved references make the input larger than ${limit} bytes`)
    this.name = 'ExpansionTooLarge'
  }
}

/** Resolving references would nest the input deeper than MAX_JSON_DEPTH; `field` is where it passes. */
export class ExpansionTooDeepError extends Error {
  constructor(readonly field: string) {
    super(`${field}: resolved references nest the input deeper than ${MAX_JSON_DEPTH} levels`)
    this.name = 'ExpansionTooDeep'
  }
}

/** Bytes of resolved JSON counted so far against a limit. */
class Budget {
  used = 0
  constructor(readonly limit: number) {}

  get remaining(): number {
    return this.limit - this.used
  }

  /** Adds `bytes`; throws naming the field once the total passes the limit. */
  charge(bytes: number, at: (string | number)[]): void {
    this.used += bytes
    if (this.used > this.limit) throw new ExpansionTooLargeError(pointer(at), this.limit)
  }
}

/**
 * Parses "a.b[0].c" or "a.b.0.c" into segments, or null when it is not a path.
 * @example parsePath('steps.research.people[0].name') // ['steps','research','people',0,'name']
 */
export function parsePath(text: string): (string | number)[] | null {
  const normalized = text.trim().replace(/\[(\d{1,9})\]/g, '.$1')
  if (normalized === '') return null
  const parts = normalized.split('.')
  if (parts.length > MAX_SEGMENTS) return null
  const out: (string | number)[] = []
  for (const p of parts) {
    if (!SEGMENT.test(p)) return null
    // An index is written as JavaScript writes it: "007" stays the key "007", never item 7.
    out.push(/^(0|[1-9][0-9]*)$/.test(p) ? Number(p) : p)
  }
  return typeof out[0] === 'string' ? out : null
}

/** Follows a path into a value; `found` is false when any step is missing. */
export function getPath(root: unknown, path: (string | number)[]): { found: boolean; value: unknown } {
  let cur = root
  for (const seg of path) {
    if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, seg)) {
      cur = (cur as Record<string | number, unknown>)[seg]
    } else {
      return { found: false, value: undefined }
    }
  }
  return { found: true, value: cur }
}

/** Does a value hold any `{{...}}` reference (in any nested string)? */
export function hasReferences(value: unknown, depth = 0): boolean {
  if (depth > REFERENCE_DEPTH) return false
  if (typeof value === 'string') return value.includes('{{')
  if (Array.isArray(value)) return value.some((v) => hasReferences(v, depth + 1))
  if (value && typeof value === 'object') return Object.values(value).some((v) => hasReferences(v, depth + 1))
  return false
}

/** The first segment of every reference, so only those variables are loaded. */
export function referencedRoots(value: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > REFERENCE_DEPTH) return out
  if (typeof value === 'string') {
    for (const m of value.matchAll(REFERENCE)) {
      const path = parsePath(m[1])
      if (path) out.add(path[0] as string)
    }
  } else if (Array.isArray(value)) value.forEach((v) => referencedRoots(v, out, depth + 1))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => referencedRoots(v, out, depth + 1))
  return out
}

/**
 * Replaces every `{{path}}` in the strings of `value` using `root`. A string that is one whole
 * reference takes the referenced value as it is (object, number ...); references inside longer text
 * are spliced in as text (objects as their JSON). Throws UnresolvedReferenceError naming the field for
 * a reference to nothing, and ExpansionTooLargeError once the resolved value's JSON would pass
 * `maxBytes`: sizes are counted before any text is built, so a value referenced many times costs at
 * most the limit, never its size times the references. ExpansionTooDeepError when the result nests
 * deeper than MAX_JSON_DEPTH.
 */
export function resolveReferences(value: unknown, root: unknown, at: (string | number)[] = [], maxBytes = Number.POSITIVE_INFINITY): unknown {
  return resolve(value, root, at, 0, new Budget(maxBytes))
}

function resolve(value: unknown, root: unknown, at: (string | number)[], depth: number, budget: Budget): unknown {
  if (typeof value === 'string' && value.includes('{{') && depth <= REFERENCE_DEPTH) return resolveString(value, root, at, depth, budget)
  if (depth > REFERENCE_DEPTH || typeof value !== 'object' || value === null) {
    budget.charge(jsonSize(value, budget.remaining), at)
    return value
  }
  if (Array.isArray(value)) {
    budget.charge(2 + Math.max(0, value.length - 1), at)
    return value.map((v, i) => resolve(v, root, [...at, i], depth + 1, budget))
  }
  const entries = Object.entries(value)
  budget.charge(2 + Math.max(0, entries.length - 1), at)
  const out: Record<string, unknown> = {}
  for (const [k, v] of entries) {
    budget.charge(jsonStringBodyBytes(k) + 3, at)
    setOwn(out, k, resolve(v, root, [...at, k], depth + 1, budget))
  }
  return out
}

function resolveString(value: string, root: unknown, at: (string | number)[], depth: number, budget: Budget): unknown {
  const lookup = (ref: string) => {
    const path = parsePath(ref)
    if (!path) throw new UnresolvedReferenceError(pointer(at), ref.trim(), 'is not a valid reference (use names and numeric indexes joined by dots)')
    const hit = getPath(root, path)
    if (!hit.found) throw new UnresolvedReferenceError(pointer(at), ref.trim(), 'refers to nothing in this workflow')
    return hit.value
  }
  const whole = WHOLE.exec(value)
  if (whole) {
    const found = lookup(whole[1])
    // Templates and values each come in within MAX_JSON_DEPTH; a value put `depth` levels down could
    // pass it, and steps that each nest the last one's result would grow without end.
    const deep = tooDeep(found, MAX_JSON_DEPTH - depth)
    if (deep) throw new ExpansionTooDeepError(shortPointer([...at, ...deep]))
    budget.charge(jsonSize(found, budget.remaining), at)
    return found
  }
  // Each piece is measured before it is built; the JSON of an object piece is built only when it fits.
  const pieces: string[] = []
  let bytes = 2
  const add = (piece: string) => {
    bytes += jsonStringBodyBytes(piece)
    if (bytes > budget.remaining) budget.charge(bytes, at)
    pieces.push(piece)
  }
  let last = 0
  for (const m of value.matchAll(REFERENCE)) {
    add(value.slice(last, m.index))
    const found = lookup(m[1])
    if (found !== null && typeof found === 'object') {
      if (jsonSize(found, budget.remaining) > budget.remaining) budget.charge(budget.remaining + 1, at)
      add(JSON.stringify(found))
    } else {
      add(found === null || found === undefined ? '' : String(found))
    }
    last = m.index + m[0].length
  }
  add(value.slice(last))
  budget.charge(bytes, at)
  return pieces.join('')
}

/** Unwraps optional/default/nullable wrappers to the base zod type name ("string", "boolean" ...). */
function baseType(schema: z.ZodType): string {
  let s: z.ZodType = schema
  for (let i = 0; i < 8; i++) {
    const def = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) s = def.innerType
    else return def.type
  }
  return 'unknown'
}

/**
 * After resolution, a top-level field that held a whole-field reference is fitted to the schema: a
 * string field gets the JSON text of an object (or the text of a number or boolean), and a boolean
 * field gets true/false from the text "true"/"false". Values the caller wrote directly are left
 * alone, so a wrong type is still a validation error.
 */
export function coerceToSchema(original: Record<string, unknown>, resolved: Record<string, unknown>, schema: z.ZodType): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape
  if (!shape) return resolved
  const out = { ...resolved }
  for (const [key, value] of Object.entries(out)) {
    // The body's own keys name fields: one named "constructor" or "__proto__" is no field of the schema.
    const field = ownValue(shape, key)
    const before = original[key]
    if (!field || value === null || value === undefined || typeof before !== 'string' || !before.includes('{{')) continue
    const type = baseType(field)
    if (type === 'string' && typeof value !== 'string') out[key] = typeof value === 'object' ? JSON.stringify(value) : String(value)
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true'
  }
  return out
}
