/** Pure parsing of the CRM actions' string fields: object types, identifiers, property lists, associations. */
import { ownValue, setOwn } from '../lib/objects'
import { jsonSyntaxMessage } from '../lib/json-depth'
import { z } from 'zod'
import { ApiError } from '../http/errors'
import { ID_METHODS, OBJECT_TYPES, type AssociationInput, type AssociationKind, type IdMethodLabel, type ObjectRef, type ObjectType } from './types'

const SINGULAR: Record<string, ObjectType> = Object.fromEntries(OBJECT_TYPES.map((t) => [t === 'companies' ? 'company' : t.slice(0, -1), t]))
/** HubSpot property internal names: a letter or underscore, then letters, digits, "_" or "-". */
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/
const CRM_ID = /^\d{1,20}$/
// The domain splits at its first "." after the first character, so a run of dots is not tried at every split.
const EMAIL = /^[^\s@"<>,;]{1,64}@[^\s@"<>,;][^\s@"<>,;.]*\.[^\s@"<>,;]+$/
export const MAX_PROPERTIES = 250
export const MAX_VALUE_CHARS = 65_536
export const MAX_ASSOCIATIONS = 100

function invalid(field: string, message: string, summary = `Invalid ${field}: ${message}`): ApiError {
  return new ApiError('VALIDATION_FAILED', summary, [{ path: `/${field}`, message }])
}

const AT_LEAST_ONE = 'At least one property is required to update an object'

/** "contacts", "Contact", " DEALS " -> the plural object type; null when it is not one of the nine. */
export function normalizeObjectType(text: string): ObjectType | null {
  const t = text.trim().toLowerCase()
  if ((OBJECT_TYPES as readonly string[]).includes(t)) return t as ObjectType
  return ownValue(SINGULAR, t) ?? null
}

/** The `object_type` field: one of the nine types, singular or plural, any case. */
export const objectTypeField = z
  .string()
  .max(40)
  .refine((v) => normalizeObjectType(v) !== null, { message: `must be one of ${OBJECT_TYPES.join(', ')}` })
  .transform((v) => normalizeObjectType(v) as ObjectType)
  .meta({
    description: `CRM object type: ${OBJECT_TYPES.join(', ')} (singular forms and any case accepted)`,
    // JSON Schema patterns have no case-insensitive flag: each letter is spelt as its two cases.
    pattern: `^\\s*(?:${[...OBJECT_TYPES, ...Object.keys(SINGULAR)].map((w) => [...w].map((ch) => `[${ch}${ch.toUpperCase()}]`).join('')).join('|')})\\s*$`,
    examples: [...OBJECT_TYPES],
  })

/** The `identification_method` field with the spec's values. */
export function idMethodField(valueField: string) {
  return z
    .enum(ID_METHODS)
    .default('CRM ID')
    .describe(`How ${valueField} names the object: "CRM ID" (any type), "Email Address (Contacts only)" or "Company Domain (Companies only)". Default "CRM ID".`)
}

/**
 * The lookup's `identification_method`: optional, because the spec's `crm.v2.lookup_object` has no such
 * field; without it `object_id` is read by its shape (see inferRef).
 */
export const lookupIdMethodField = z
  .enum(ID_METHODS)
  .optional()
  .describe(
    'How object_id names the object: "CRM ID" (any type), "Email Address (Contacts only)" or "Company Domain (Companies only)". Optional: when left out, a numeric object_id is a CRM ID, an email finds a contact and a domain finds a company (the answer\'s identified_by says which).',
  )

/** Lower-cased, trimmed email; null when it does not look like one. */
export function normalizeEmail(text: string): string | null {
  const e = text.trim().toLowerCase()
  // A lone surrogate ("\ud800", valid in JSON) has no UTF-8 form: no mailbox holds one, and a URL path cannot carry it.
  return EMAIL.test(e) && e.length <= 254 && e.isWellFormed() ? e : null
}

/**
 * A company domain as HubSpot stores it: host only, lower case, no scheme, path, port or "www.".
 * @example normalizeDomain('https://www.Example.com/about') // "example.com"
 */
export function normalizeDomain(text: string): string | null {
  let t = text.trim().toLowerCase()
  if (t === '' || t.length > 253 || /\s/.test(t)) return null
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(t)) t = `http://${t}`
  let host: string
  try {
    const url = new URL(t)
    if (url.username || url.password) return null
    host = url.hostname
  } catch {
    return null
  }
  host = host.replace(/\.$/, '').replace(/^www\./, '')
  if (!host.includes('.') || host.startsWith('[') || /^[\d.]+$/.test(host)) return null
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : null
}

/**
 * The one thing a bare identifier can be: digits are a CRM ID, text with an "@" an email, any other text
 * a domain (a URL gives its host). The "@" splits emails from domains, since a URL parser would read
 * "a/b@c.com" as the host "a" with a path; so no value has two readings. Null when it is none of them.
 */
export function identifierShape(value: string): ObjectRef | null {
  const v = value.trim()
  if (CRM_ID.test(v)) return { by: 'id', value: v }
  if (v.includes('@')) {
    const email = normalizeEmail(v)
    return email ? { by: 'email', value: email } : null
  }
  const domain = normalizeDomain(v)
  return domain ? { by: 'domain', value: domain } : null
}

/**
 * How an `object_id` sent without `identification_method` names the object, by its shape: a CRM ID for
 * any type, an email for contacts, a domain for companies. Throws a 400 naming `field` otherwise.
 */
export function inferRef(objectType: ObjectType, value: string, field: string): ObjectRef {
  const shape = identifierShape(value)
  if (shape && (shape.by === 'id' || (shape.by === 'email' && objectType === 'contacts') || (shape.by === 'domain' && objectType === 'companies'))) return shape
  const also = objectType === 'contacts' ? ' or an email address' : objectType === 'companies' ? ' or a company domain such as example.com' : ''
  throw invalid(field, `must be a numeric CRM ID${also} (got ${JSON.stringify(value.trim().slice(0, 40))})`)
}

/** Checks the identifier against the method and object type, and normalizes it. */
export function parseRef(objectType: ObjectType, method: IdMethodLabel, value: string, field: string): ObjectRef {
  const v = value.trim()
  if (method === 'CRM ID') {
    if (!CRM_ID.test(v)) throw invalid(field, `must be a numeric CRM ID (got ${JSON.stringify(v.slice(0, 40))}); to find a contact by email or a company by domain, set identification_method`)
    return { by: 'id', value: v }
  }
  if (method === 'Email Address (Contacts only)') {
    if (objectType !== 'contacts') throw invalid('identification_method', `"Email Address (Contacts only)" works only with object_type contacts, not ${objectType}`)
    const email = normalizeEmail(v)
    if (!email) throw invalid(field, `is not a valid email address`)
    return { by: 'email', value: email }
  }
  if (objectType !== 'companies') throw invalid('identification_method', `"Company Domain (Companies only)" works only with object_type companies, not ${objectType}`)
  const domain = normalizeDomain(v)
  if (!domain) throw invalid(field, `is not a valid domain (expected a bare domain such as example.com)`)
  return { by: 'domain', value: domain }
}

/** A comma list ("a, b") or JSON array (`["a","b"]`) of strings; [] for empty text. */
function parseList(text: string | undefined, field: string): string[] {
  const t = (text ?? '').trim()
  if (t === '') return []
  let items: unknown[]
  if (t.startsWith('[')) {
    try {
      items = JSON.parse(t) as unknown[]
    } catch {
      throw invalid(field, 'looks like a JSON array but is not valid JSON; send a comma list or a JSON array of strings')
    }
    if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) throw invalid(field, 'must be a JSON array of strings')
  } else {
    items = t.split(',')
  }
  const out: string[] = []
  for (const raw of items as string[]) {
    const item = raw.trim()
    if (item !== '' && !out.includes(item)) out.push(item)
  }
  return out
}

/** Property names to read: comma list or JSON array; each a valid property name. */
export function parsePropertyNames(text: string | undefined, field = 'properties'): string[] {
  const names = parseList(text, field)
  const bad = names.filter((n) => !PROPERTY_NAME.test(n))
  if (bad.length)
    throw invalid(
      field,
      `not valid property names: ${bad
        .slice(0, 10)
        .map((b) => JSON.stringify(b.slice(0, 40)))
        .join(', ')}`,
    )
  if (names.length > MAX_PROPERTIES) throw invalid(field, `at most ${MAX_PROPERTIES} properties`)
  return names
}

/** Object types to read associations for: comma list or JSON array. */
export function parseObjectTypeList(text: string | undefined, field = 'associations'): ObjectType[] {
  const out: ObjectType[] = []
  for (const item of parseList(text, field)) {
    const t = normalizeObjectType(item)
    if (!t) throw invalid(field, `${JSON.stringify(item.slice(0, 40))} is not an object type; use ${OBJECT_TYPES.join(', ')}`)
    if (!out.includes(t)) out.push(t)
  }
  return out
}

/**
 * A number as CRM text: JavaScript's shortest digits of it, in plain decimal where JavaScript would
 * write an exponent (1e21 as "1000000000000000000000", 1.5e-7 as "0.00000015"), since a CRM number
 * field reads decimal text.
 */
export function plainNumber(n: number): string {
  const text = String(n)
  const e = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (!e) return text
  const [, sign, first, rest = '', exp] = e
  const digits = first + rest
  const power = Number(exp)
  return power >= 0 ? sign + digits.padEnd(power + 1, '0') : `${sign}0.${'0'.repeat(-power - 1)}${digits}`
}

function propertyValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return plainNumber(value)
  if (typeof value === 'boolean') return String(value)
  if (value === null) return ''
  throw invalid('properties', `property "${name}" must be a string, number, boolean or null`)
}

/**
 * Properties to write: an object, its JSON text (`{"firstname":"Ada"}`) or `key=value` lines. Numbers
 * and booleans become text (a number in JSON text as its digits were written), null becomes ""
 * (HubSpot clears a value given ""). Throws "At least one property is required" when there are none.
 */
export function parsePropertyValues(given: string | Record<string, unknown> | undefined): Record<string, string> {
  const t = typeof given === 'string' ? given.trim() : ''
  const entries: [string, string][] = []
  if (typeof given === 'object') {
    for (const [k, v] of Object.entries(given)) entries.push([k.trim(), propertyValue(k, v)])
  } else if (t.startsWith('{')) {
    let obj: unknown
    try {
      // A number keeps the caller's digits: a double would round 12345678901234567891 to ...7000.
      obj = JSON.parse(t, (_key, value: unknown, context?: { source?: string }) => (typeof value === 'number' && context?.source !== undefined ? context.source : value))
    } catch (err) {
      throw invalid('properties', `looks like a JSON object but is not valid JSON (${jsonSyntaxMessage(err)})`)
    }
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) entries.push([k.trim(), propertyValue(k, v)])
  } else if (t.startsWith('[')) {
    throw invalid('properties', 'must be a JSON object ({"name":"value"}) or key=value lines, not an array')
  } else if (t !== '') {
    for (const [i, line] of t.split(/\r?\n/).entries()) {
      if (line.trim() === '' || line.trim().startsWith('#')) continue
      const eq = line.indexOf('=')
      if (eq < 0) throw invalid('properties', `line ${i + 1} is not key=value: ${JSON.stringify(line.trim().slice(0, 60))}`)
      entries.push([line.slice(0, eq).trim(), line.slice(eq + 1).trim()])
    }
  }
  if (entries.length === 0) throw invalid('properties', AT_LEAST_ONE, AT_LEAST_ONE)
  if (entries.length > MAX_PROPERTIES) throw invalid('properties', `at most ${MAX_PROPERTIES} properties per update`)
  const out: Record<string, string> = {}
  const problems: string[] = []
  for (const [name, value] of entries) {
    if (!PROPERTY_NAME.test(name)) problems.push(`${JSON.stringify(name.slice(0, 40))} is not a valid property name`)
    else if (Object.hasOwn(out, name)) problems.push(`"${name}" is given twice`)
    else if (value.length > MAX_VALUE_CHARS) problems.push(`"${name}" is longer than ${MAX_VALUE_CHARS} characters`)
    setOwn(out, name, value)
  }
  if (problems.length) throw invalid('properties', problems.slice(0, 10).join('; '))
  return out
}

const KIND = /^(?:(HUBSPOT_DEFINED|USER_DEFINED|INTEGRATOR_DEFINED):)?(\d{1,9})$/

/** `association_type`: a type id (HubSpot-defined) or "CATEGORY:typeId"; absent means the default association. */
export function parseAssociationKind(value: unknown, at: string): AssociationKind | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const m = KIND.exec(String(value).trim().toUpperCase())
  if ((typeof value !== 'string' && typeof value !== 'number') || !m) {
    throw invalid('associations', `${at}.association_type must be a type id (e.g. 279) or "USER_DEFINED:<id>"; leave it out for the default association`)
  }
  return { category: (m[1] ?? 'HUBSPOT_DEFINED') as AssociationKind['category'], typeId: Number(m[2]) }
}

/** `associations`: a JSON array of `{to_object_type, to_object_id, association_type?}`; [] for empty text. */
export function parseAssociations(text: string | undefined): AssociationInput[] {
  const t = (text ?? '').trim()
  if (t === '') return []
  let items: unknown
  try {
    items = JSON.parse(t)
  } catch {
    throw invalid('associations', 'must be a JSON array of {"to_object_type","to_object_id","association_type"?} objects')
  }
  if (!Array.isArray(items)) throw invalid('associations', 'must be a JSON array of {"to_object_type","to_object_id","association_type"?} objects')
  if (items.length > MAX_ASSOCIATIONS) throw invalid('associations', `at most ${MAX_ASSOCIATIONS} associations per update`)
  const out: AssociationInput[] = []
  for (const [i, item] of items.entries()) {
    const at = `[${i}]`
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw invalid('associations', `${at} must be an object`)
    const rec = item as Record<string, unknown>
    const extra = Object.keys(rec).filter((k) => !['to_object_type', 'to_object_id', 'association_type'].includes(k))
    if (extra.length) throw invalid('associations', `${at} has unknown fields: ${extra.slice(0, 5).join(', ')}`)
    const type = typeof rec.to_object_type === 'string' ? normalizeObjectType(rec.to_object_type) : null
    if (!type) throw invalid('associations', `${at}.to_object_type must be one of ${OBJECT_TYPES.join(', ')}`)
    const id = typeof rec.to_object_id === 'number' && Number.isSafeInteger(rec.to_object_id) ? String(rec.to_object_id) : rec.to_object_id
    if (typeof id !== 'string' || !CRM_ID.test(id.trim())) throw invalid('associations', `${at}.to_object_id must be a numeric CRM ID`)
    const kind = parseAssociationKind(rec.association_type, at)
    out.push(kind ? { toObjectType: type, toObjectId: id.trim(), kind } : { toObjectType: type, toObjectId: id.trim() })
  }
  return out
}
