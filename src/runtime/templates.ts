import type { z } from 'zod'
import { pointer } from '../http/errors'

/** `{{ path }}` anywhere in a string; paths are dot-separated names and numeric indexes. */
const REFERENCE = /\{\{([^{}]{0,512})\}\}/g
const WHOLE = /^\s*\{\{([^{}]{0,512})\}\}\s*$/
const SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$|^\d{1,9}$/
const MAX_SEGMENTS = 32

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
    out.push(/^\d+$/.test(p) ? Number(p) : p)
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
  if (depth > 64) return false
  if (typeof value === 'string') return value.includes('{{')
  if (Array.isArray(value)) return value.some((v) => hasReferences(v, depth + 1))
  if (value && typeof value === 'object') return Object.values(value).some((v) => hasReferences(v, depth + 1))
  return false
}

/** The first segment of every reference, so only those variables are loaded. */
export function referencedRoots(value: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 64) return out
  if (typeof value === 'string') {
    for (const m of value.matchAll(REFERENCE)) {
      const path = parsePath(m[1])
      if (path) out.add(path[0] as string)
    }
  } else if (Array.isArray(value)) value.forEach((v) => referencedRoots(v, out, depth + 1))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => referencedRoots(v, out, depth + 1))
  return out
}

/** Text of a value spliced into a longer string. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/**
 * Replaces every `{{path}}` in the strings of `value` using `root`. A string that is one whole
 * reference takes the referenced value as it is (object, number ...); references inside longer text
 * are spliced in as text. Throws UnresolvedReferenceError naming the field for a reference to nothing.
 */
export function resolveReferences(value: unknown, root: unknown, at: (string | number)[] = [], depth = 0): unknown {
  if (depth > 64) return value
  if (typeof value === 'string') {
    if (!value.includes('{{')) return value
    const whole = WHOLE.exec(value)
    const lookup = (ref: string) => {
      const path = parsePath(ref)
      if (!path) throw new UnresolvedReferenceError(pointer(at), ref.trim(), 'is not a valid reference (use names and numeric indexes joined by dots)')
      const hit = getPath(root, path)
      if (!hit.found) throw new UnresolvedReferenceError(pointer(at), ref.trim(), 'refers to nothing in this workflow')
      return hit.value
    }
    if (whole) return lookup(whole[1])
    return value.replace(REFERENCE, (_m, ref: string) => asText(lookup(ref)))
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveReferences(v, root, [...at, i], depth + 1))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = resolveReferences(v, root, [...at, k], depth + 1)
    return out
  }
  return value
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
    const field = shape[key]
    const before = original[key]
    if (!field || value === null || value === undefined || typeof before !== 'string' || !before.includes('{{')) continue
    const type = baseType(field)
    if (type === 'string' && typeof value !== 'string') out[key] = typeof value === 'object' ? JSON.stringify(value) : String(value)
    else if (type === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true'
  }
  return out
}
