/**
 * Tool-schema dialects: one JSON Schema (draft 2020-12, as zod or the catalog writes it) rewritten
 * into the subset each vendor reads. Pure functions over JSON; no I/O.
 */
import { z } from 'zod'

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: unknown }

/** How one vendor reads a tool's JSON Schema. */
export interface Dialect {
  name: string
  /** Keywords kept; 'all' keeps every keyword. A dropped constraint is stated in the description instead. */
  keywords: ReadonlySet<string> | 'all'
  /** String formats kept; 'all' keeps every format. */
  formats: ReadonlySet<string> | 'all'
  /**
   * OpenAI strict mode: every object closed and every property required; an optional property becomes
   * nullable (null means "not given", so the default applies) and its default is stated in words.
   */
  strict: boolean
  /** Result shapes: objects are left open, since a documented result may gain fields. */
  openObjects?: boolean
}

/** A schema the dialect cannot express (an open map in OpenAI strict mode). */
export class UnrepresentableSchema extends Error {}

/** OpenAI Structured Outputs / strict function calling: the documented supported subset. */
export const OPENAI_STRICT: Dialect = {
  name: 'openai',
  keywords: new Set([
    'type',
    'description',
    'properties',
    'required',
    'additionalProperties',
    'enum',
    'const',
    'anyOf',
    'items',
    '$ref',
    '$defs',
    'pattern',
    'format',
    'multipleOf',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minItems',
    'maxItems',
  ]),
  formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
  strict: true,
}

/** Anthropic `input_schema`: the keywords its strict tool use accepts, so a client may turn strict on. */
export const ANTHROPIC: Dialect = {
  name: 'anthropic',
  keywords: new Set(['type', 'description', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'anyOf', '$ref', '$defs', 'title', 'default']),
  formats: new Set(),
  strict: false,
}

/** MCP `inputSchema`: full JSON Schema, cleaned of converter noise. */
export const MCP: Dialect = { name: 'mcp', keywords: 'all', formats: 'all', strict: false }

/** MCP `outputSchema`: as MCP, with objects left open. */
export const MCP_OUTPUT: Dialect = { ...MCP, name: 'mcp-output', openObjects: true }

const SCHEMA_MAPS = new Set(['properties', '$defs'])
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf'])

const isSchema = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v)
const isEmpty = (v: unknown) => isSchema(v) && Object.keys(v).length === 0
const keeps = (set: ReadonlySet<string> | 'all', k: string) => set === 'all' || set.has(k)

/** Keywords a converter emits that say nothing a JSON value could break (zod's safe-integer bounds, string keys). */
function isNoise(k: string, v: unknown): boolean {
  if (k === '$schema' || k === '$id') return true
  if (k === 'propertyNames') return isSchema(v) && Object.keys(v).length === 1 && v.type === 'string'
  if (k === 'maximum') return v === Number.MAX_SAFE_INTEGER
  if (k === 'minimum') return v === Number.MIN_SAFE_INTEGER
  return false
}

const SECRET = 'Secret: never stored, logged or echoed.'

/** A dropped keyword in words, for the description (undefined when it carries no constraint). */
function phrase(k: string, v: unknown): string | undefined {
  switch (k) {
    case 'minLength':
      return `At least ${v} characters.`
    case 'maxLength':
      return `At most ${v} characters.`
    case 'minimum':
      return `At least ${v}.`
    case 'maximum':
      return `At most ${v}.`
    case 'exclusiveMinimum':
      return `More than ${v}.`
    case 'exclusiveMaximum':
      return `Less than ${v}.`
    case 'multipleOf':
      return `A multiple of ${v}.`
    case 'pattern':
      return `Matches the pattern ${v}.`
    case 'minItems':
      return `At least ${v} items.`
    case 'maxItems':
      return `At most ${v} items.`
    case 'uniqueItems':
      return v === true ? 'Items are unique.' : undefined
    case 'format':
      return v === 'password' ? SECRET : `Format: ${v}.`
    case 'writeOnly':
      return v === true ? SECRET : undefined
    default:
      return undefined
  }
}

function withNotes(description: unknown, notes: string[]): string | undefined {
  const parts = [...new Set([typeof description === 'string' ? description.trim() : '', ...notes])].filter((p) => p !== '')
  if (parts.length === 0) return undefined
  return parts.map((p, i) => (i < parts.length - 1 && !/[.!?:)]$/.test(p) ? `${p}.` : p)).join(' ')
}

/** The same schema, also accepting null (OpenAI's documented form of an optional field in strict mode). */
function nullable(s: JsonSchema): JsonSchema {
  const out = { ...s }
  if (Array.isArray(out.anyOf)) {
    if (!out.anyOf.some((b) => isSchema(b) && b.type === 'null')) out.anyOf = [...out.anyOf, { type: 'null' }]
    return out
  }
  if (out.type === undefined) {
    const { description, ...rest } = out
    return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] }
  }
  const types = Array.isArray(out.type) ? out.type : [out.type]
  if (!types.includes('null')) out.type = [...types, 'null']
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  if ('const' in out) {
    const { const: value, type: _type, description, ...rest } = out
    return { ...(description === undefined ? {} : { description }), anyOf: [{ ...rest, const: value }, { type: 'null' }] }
  }
  return out
}

const requiredOf = (b: unknown): string[] => (isSchema(b) && Array.isArray(b.required) ? (b.required as string[]) : [])

/**
 * A rule between an object's fields (`anyOf` of `required` alternatives, `not` of a `required` pair):
 * vendors that want a plain object at the root get it in words instead.
 */
function fieldRule(k: string, v: unknown): string | undefined {
  if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(v) && v.every((b) => requiredOf(b).length > 0 && !(isSchema(b) && 'type' in b))) {
    return `Give at least one of: ${v.map((b) => requiredOf(b).join(' and ')).join('; ')}.`
  }
  if (k === 'not' && requiredOf(v).length > 1) return `Do not give ${requiredOf(v).join(' and ')} together.`
  return undefined
}

function convert(s: JsonSchema, d: Dialect, at: string): JsonSchema {
  const out: JsonSchema = {}
  const notes: string[] = []
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined || isNoise(k, v) || k === 'description') continue
    const rule = d.keywords === 'all' || !isSchema(s.properties) ? undefined : fieldRule(k, v)
    if (rule) {
      notes.push(rule)
      continue
    }
    if (SCHEMA_MAPS.has(k) && isSchema(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, child]) => [name, convert(child as JsonSchema, d, `${at}/${k}/${name}`)]))
    } else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) {
      convertList(k, v as JsonSchema[], d, `${at}/${k}`, out)
    } else if (k === 'items' && isSchema(v)) {
      out.items = convert(v, d, `${at}/items`)
    } else if (k === 'additionalProperties') {
      out.additionalProperties = isEmpty(v) ? true : isSchema(v) ? convert(v, d, `${at}/additionalProperties`) : v
    } else if (k === 'default') {
      if (!d.strict && keeps(d.keywords, k)) out.default = v
      else if (v !== null) notes.push(`Default: ${JSON.stringify(v)}.`)
    } else if (k === 'format' && !keeps(d.formats, String(v))) {
      const p = phrase(k, v)
      if (p) notes.push(p)
    } else if (keeps(d.keywords, k)) {
      out[k] = v
    } else {
      const p = phrase(k, v)
      if (p) notes.push(p)
    }
  }
  const description = withNotes(s.description, notes)
  const result: JsonSchema = description === undefined ? out : { description, ...out }
  if (isSchema(result.properties) || result.type === 'object') closeObject(result, d, at, s)
  return result
}

function convertList(k: string, branches: JsonSchema[], d: Dialect, at: string, out: JsonSchema): void {
  if (k === 'allOf') {
    if (d.keywords !== 'all') throw new UnrepresentableSchema(`${at}: allOf cannot be expressed in the ${d.name} dialect`)
    out.allOf = branches.map((b, i) => convert(b, d, `${at}/${i}`))
    return
  }
  // oneOf branches of a tool input are alternatives the server tells apart itself: anyOf says the same to a model.
  const key = k === 'oneOf' && d.keywords !== 'all' ? 'anyOf' : k
  const kept: JsonSchema[] = []
  for (const [i, b] of branches.entries()) {
    try {
      kept.push(convert(b, d, `${at}/${i}`))
    } catch (err) {
      // In strict mode an open map cannot be described; the other branches (its JSON text) still can.
      if (!(err instanceof UnrepresentableSchema)) throw err
    }
  }
  if (kept.length === 0) throw new UnrepresentableSchema(`${at}: no branch can be expressed in the ${d.name} dialect`)
  out[key] = kept
}

function closeObject(s: JsonSchema, d: Dialect, at: string, original: JsonSchema): void {
  if (d.openObjects) {
    if (s.additionalProperties === false) delete s.additionalProperties
    return
  }
  if (!d.strict) return
  const props = isSchema(s.properties) ? s.properties : {}
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    throw new UnrepresentableSchema(`${at}: an object with open keys cannot be expressed in OpenAI strict mode`)
  }
  s.properties = props
  s.additionalProperties = false
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
  for (const [name, p] of Object.entries(props)) {
    const before = isSchema(original.properties) ? original.properties[name] : undefined
    if (!required.has(name)) props[name] = optionalInStrict(p as JsonSchema, isSchema(before) && before.default !== undefined && before.default !== null)
  }
  s.required = Object.keys(props)
}

function optionalInStrict(p: JsonSchema, hasDefault: boolean): JsonSchema {
  const n = nullable(p)
  n.description = withNotes(n.description, [hasDefault ? 'Send null for the default.' : 'Optional: send null to leave it out.'])
  return n
}

/**
 * Rewrites a JSON Schema for one vendor's tool format.
 * @example toDialect({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }, OPENAI_STRICT)
 * // { type: 'object', properties: { n: { description: 'Default: 3. Send null for the default.', type: ['integer', 'null'] } }, additionalProperties: false, required: ['n'] }
 */
export function toDialect(schema: JsonSchema, d: Dialect): JsonSchema {
  return convert(schema, d, '')
}

/** JSON Schema of a zod schema: `input` as a caller sends it, `output` as the service answers. */
export function zodJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema
}
