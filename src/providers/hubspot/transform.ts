/**
 * Pure HubSpot pieces: the requests the client sends (CRM v3 objects, v4 associations) and the
 * reading of HubSpot's answers and errors. Endpoint facts: reference/hubspot-endpoints.json.
 */
import { ProviderError, UpstreamError } from '../errors'
import { parseJson } from '../../lib/json-depth'
import { isRecord, record, text } from '../shape'
import { cutChars, pathSegment } from '../../lib/text'

export const SERVICE = 'HubSpot'
export const DEFAULT_API_BASE = 'https://api.hubapi.com'
/** v4 association pages hold up to 500 ids; a lookup reads at most this many pages per type. */
export const ASSOCIATION_PAGE = 500
export const ASSOCIATION_PAGES = 10
/** Associated ids a lookup returns per type: what ten full pages hold, however many a page claims to. */
export const MAX_ASSOCIATED_IDS = ASSOCIATION_PAGE * ASSOCIATION_PAGES
/** Companies a domain search asks for: enough to see that a domain is shared, and name the ids. */
export const DOMAIN_SEARCH_LIMIT = 10

/** A HubSpot object type as its paths name it (`contacts`, `companies`, `deals` ...). */
export type ObjectType = string

/** An association to write: the default one, or a labeled one (HubSpot's category and type id). */
export interface AssociationInput {
  toObjectType: ObjectType
  toObjectId: string
  kind?: { category: string; typeId: number }
}

/** A request as a dry run shows it. */
export interface PlannedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: unknown
}

/** One HubSpot call: method, path, query pairs and JSON body. */
export interface HubSpotRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT'
  path: string
  query?: [string, string][]
  body?: unknown
  /** Safe to retry on 429/5xx (reads, PATCH/PUT, searches and upserts by a unique key). */
  idempotent: boolean
}

/** HubSpot's SimplePublicObject. */
export interface HubSpotObject {
  id: string
  properties: Record<string, string | null>
  createdAt: string
  updatedAt: string
  archived: boolean
}

/** HubSpot's error body (category, message, correlationId, errors[]). */
export interface HubSpotErrorBody {
  status?: string
  message?: string
  category?: string
  subCategory?: unknown
  correlationId?: string
  context?: Record<string, unknown>
  errors?: { message?: string; code?: string; context?: Record<string, unknown> }[]
}

/** What a failing call was doing, for messages in the original's vocabulary. */
export interface CallContext {
  objectType: ObjectType
  operation: 'read' | 'write'
  /** Message for a 404. */
  notFound: string
  /** Request field a validation error belongs to. */
  field?: 'properties' | 'associations'
}

/**
 * One path segment. Caller ids are checked before they get here, so a value a URL cannot carry (a
 * lone surrogate) is an id HubSpot itself answered: a 502, not a request for some other object.
 */
function seg(s: string): string {
  const part = pathSegment(s)
  if (part === null) throw new UpstreamError(SERVICE, 'invalid', `${SERVICE} answered an object id that cannot be a path segment (${JSON.stringify(cutChars(s, 40))})`)
  return part
}

/** The URL of a request under the configured base. */
export function requestUrl(base: string, req: HubSpotRequest): string {
  const url = new URL(base.replace(/(?<!\/)\/+$/, '') + req.path)
  for (const [k, v] of req.query ?? []) url.searchParams.append(k, v)
  return url.toString()
}

/** A request as a dry run shows it: exact method, URL and body; the token redacted. */
export function describeRequest(base: string, req: HubSpotRequest): PlannedRequest {
  const headers: Record<string, string> = { authorization: 'Bearer [redacted]', accept: 'application/json' }
  if (req.body !== undefined) headers['content-type'] = 'application/json'
  const out: PlannedRequest = { method: req.method, url: requestUrl(base, req), headers }
  if (req.body !== undefined) out.body = req.body
  return out
}

/** GET one object by id, or by email with `idProperty=email`. */
export function getObjectRequest(type: ObjectType, id: string, properties: string[], idProperty?: 'email'): HubSpotRequest {
  const query: [string, string][] = [
    ['properties', properties.join(',')],
    ['archived', 'false'],
  ]
  if (idProperty) query.push(['idProperty', idProperty])
  return { method: 'GET', path: `/crm/v3/objects/${type}/${seg(id)}`, query, idempotent: true }
}

/** Search companies whose `domain` equals the normalized domain (domain is not unique in HubSpot). */
export function searchByDomainRequest(domain: string, properties: string[]): HubSpotRequest {
  return {
    method: 'POST',
    path: '/crm/v3/objects/companies/search',
    body: {
      filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: domain }] }],
      properties,
      sorts: [],
      limit: DOMAIN_SEARCH_LIMIT,
      after: '0',
    },
    idempotent: true,
  }
}

/** PATCH an object's properties by internal id. */
export function patchRequest(type: ObjectType, id: string, properties: Record<string, string>): HubSpotRequest {
  return { method: 'PATCH', path: `/crm/v3/objects/${type}/${seg(id)}`, body: { properties }, idempotent: true }
}

/** Create-or-update one contact keyed by its email (batch upsert with idProperty email). */
export function upsertContactByEmailRequest(email: string, properties: Record<string, string>): HubSpotRequest {
  return { method: 'POST', path: '/crm/v3/objects/contacts/batch/upsert', body: { inputs: [{ idProperty: 'email', id: email, properties }] }, idempotent: true }
}

/** PUT an association: the default one, or a labeled one when a kind is given. */
export function associateRequest(fromType: ObjectType, fromId: string, a: AssociationInput): HubSpotRequest {
  const base = `/crm/v4/objects/${fromType}/${seg(fromId)}/associations`
  if (!a.kind) return { method: 'PUT', path: `${base}/default/${a.toObjectType}/${seg(a.toObjectId)}`, idempotent: true }
  return {
    method: 'PUT',
    path: `${base}/${a.toObjectType}/${seg(a.toObjectId)}`,
    body: [{ associationCategory: a.kind.category, associationTypeId: a.kind.typeId }],
    idempotent: true,
  }
}

/** One page of an object's associations of one type. */
export function listAssociationsRequest(type: ObjectType, id: string, toType: ObjectType, after?: string): HubSpotRequest {
  const query: [string, string][] = [['limit', String(ASSOCIATION_PAGE)]]
  if (after) query.push(['after', after])
  return { method: 'GET', path: `/crm/v4/objects/${type}/${seg(id)}/associations/${toType}`, query, idempotent: true }
}

/** The cheap call that checks a token when it is connected. */
export function verifyTokenRequest(): HubSpotRequest {
  return {
    method: 'GET',
    path: '/crm/v3/objects/contacts',
    query: [
      ['limit', '1'],
      ['archived', 'false'],
    ],
    idempotent: true,
  }
}

function bad(what: string): UpstreamError {
  return new UpstreamError(SERVICE, 'invalid', `${SERVICE} answered with an unexpected ${what}`)
}

/** Reads a SimplePublicObject; throws an `invalid` UpstreamError on another shape. */
export function parseObject(body: unknown): HubSpotObject {
  const o = body as Partial<HubSpotObject> | null
  // The id goes back into association and PATCH paths; a "." or ".." id would be read as a dot segment
  // there (even escaped), moving the request to another endpoint. HubSpot ids are numeric.
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || !/^\d{1,20}$/.test(o.id) || !o.properties || typeof o.properties !== 'object') throw bad('object')
  const properties: Record<string, string | null> = {}
  for (const [k, v] of Object.entries(o.properties)) properties[k] = v === null || v === undefined ? null : String(v)
  return { id: o.id, properties, createdAt: String(o.createdAt ?? ''), updatedAt: String(o.updatedAt ?? ''), archived: o.archived === true }
}

/** An object as the lookup returns it: exactly the asked properties, null when HubSpot has no value. */
export function toRecord(obj: HubSpotObject, names: string[]): HubSpotObject {
  const properties: Record<string, string | null> = {}
  for (const n of names) properties[n] = obj.properties[n] ?? null
  return { id: obj.id, properties, createdAt: obj.createdAt, updatedAt: obj.updatedAt, archived: obj.archived }
}

/** Reads a search answer: total and the objects of this page. */
export function parseSearch(body: unknown): { total: number; results: HubSpotObject[] } {
  const b = body as { total?: unknown; results?: unknown } | null
  if (!b || !Array.isArray(b.results)) throw bad('search result')
  return { total: typeof b.total === 'number' ? b.total : b.results.length, results: b.results.map(parseObject) }
}

/** Reads a v4 associations page: associated ids and the cursor of the next page. */
export function parseAssociationPage(body: unknown): { ids: string[]; after?: string } {
  const b = body as { results?: { toObjectId?: unknown }[]; paging?: { next?: { after?: unknown } } } | null
  if (!b || !Array.isArray(b.results)) throw bad('associations page')
  const ids = b.results
    .map((r) => record(r).toObjectId)
    .filter((v) => typeof v === 'number' || typeof v === 'string')
    .map(String)
  const after = b.paging?.next?.after
  return typeof after === 'string' && after !== '' ? { ids, after } : { ids }
}

/** Reads a one-input batch upsert answer; an error inside the batch becomes an error body. */
export function parseUpsert(body: unknown): { object: HubSpotObject; created: boolean } | { error: HubSpotErrorBody } {
  const b = body as { results?: (HubSpotObject & { new?: boolean })[]; errors?: HubSpotErrorBody[] } | null
  if (b && Array.isArray(b.errors) && b.errors.length > 0) return { error: errorBodyFrom(b.errors[0]) }
  if (!b || !Array.isArray(b.results) || b.results.length !== 1) throw bad('upsert result')
  return { object: parseObject(b.results[0]), created: b.results[0].new === true }
}

/** Scopes HubSpot names for this kind of object; used when a 403 does not name them itself. */
export function scopeFor(type: ObjectType, operation: 'read' | 'write'): string | null {
  if (type === 'contacts' || type === 'companies' || type === 'deals') return `crm.objects.${type}.${operation}`
  if (type === 'tickets') return 'tickets'
  return null
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []
}

/** Scopes a MISSING_SCOPES error names (requiredGranularScopes / requiredScopes in errors[].context). */
export function requiredScopes(body: HubSpotErrorBody): string[] {
  const out = new Set<string>()
  for (const e of body.errors ?? []) {
    for (const key of ['requiredGranularScopes', 'requiredScopes', 'missingScopes']) for (const s of stringList(e.context?.[key])) out.add(s)
  }
  for (const key of ['requiredGranularScopes', 'requiredScopes', 'missingScopes']) for (const s of stringList(body.context?.[key])) out.add(s)
  return [...out]
}

/**
 * Property problems of a validation error: from errors[].context.propertyName, or from the JSON list
 * HubSpot embeds in "Property values were not valid: [...]".
 */
export function invalidProperties(body: HubSpotErrorBody): { name: string; message: string }[] {
  const out: { name: string; message: string }[] = []
  for (const e of body.errors ?? []) for (const name of stringList(e.context?.propertyName)) out.push({ name, message: e.message ?? e.code ?? 'invalid' })
  if (out.length === 0 && typeof body.message === 'string') {
    const start = body.message.indexOf('[')
    if (start >= 0) {
      try {
        const list = JSON.parse(body.message.slice(start)) as { name?: unknown; message?: unknown; error?: unknown }[]
        if (Array.isArray(list)) {
          for (const p of list) if (typeof p?.name === 'string') out.push({ name: p.name, message: String(p.message ?? p.error ?? 'invalid') })
        }
      } catch {
        // Not the embedded list: the message is used as it is.
      }
    }
  }
  return out
}

/**
 * An error body with the fields of HubSpot's error JSON that have their documented types; the others
 * are dropped, so a message that is a number or an `errors` that is an object reads as absent.
 */
export function errorBodyFrom(value: unknown): HubSpotErrorBody {
  const o = record(value)
  const out: HubSpotErrorBody = {}
  for (const key of ['status', 'message', 'category', 'correlationId'] as const) {
    const v = text(o[key])
    if (v !== null) out[key] = v
  }
  if (o.subCategory !== undefined) out.subCategory = o.subCategory
  if (isRecord(o.context)) out.context = o.context
  if (Array.isArray(o.errors)) {
    out.errors = o.errors.filter(isRecord).map((e) => ({ message: text(e.message) ?? undefined, code: text(e.code) ?? undefined, context: isRecord(e.context) ? e.context : undefined }))
  }
  return out
}

/** Reads a body that should be HubSpot's error JSON; anything else becomes a message-only body. */
export function errorBodyOf(body: string): HubSpotErrorBody {
  try {
    const parsed = parseJson(body)
    if (isRecord(parsed)) return errorBodyFrom(parsed)
  } catch {
    // Gateways answer HTML or text; keep a short excerpt as the message.
  }
  return { message: body.replace(/\s+/g, ' ').trim().slice(0, 200) }
}

const RECONNECT = 'reconnect HubSpot at PUT /v1/integrations/crm'

/** Maps a failed HubSpot answer to the typed error the HTTP layer turns into the envelope. */
export function mapHubSpotError(status: number, body: HubSpotErrorBody, ctx: CallContext, retryAfterSeconds?: number): Error {
  const message = (body.message ?? '').slice(0, 500)
  const category = body.category ?? ''
  if (status === 401) {
    if (category === 'EXPIRED_AUTHENTICATION' || /expired/i.test(message)) {
      return new ProviderError('unauthorized', `Token expired: HubSpot says the access token has expired; ${RECONNECT} with a fresh token`)
    }
    return new ProviderError('unauthorized', `Invalid credentials: HubSpot rejected the access token; ${RECONNECT}`)
  }
  if (status === 403) {
    if (category === 'MISSING_SCOPES' || /scope/i.test(message)) {
      const scopes = requiredScopes(body)
      const fallback = scopeFor(ctx.objectType, ctx.operation)
      const named = scopes.length ? scopes.join(' or ') : (fallback ?? `the ${ctx.operation} scope for ${ctx.objectType}`)
      return new ProviderError('forbidden', `Missing scope: the HubSpot token needs ${named} to ${ctx.operation} ${ctx.objectType}; add it to the app and ${RECONNECT}`)
    }
    return new ProviderError('forbidden', `HubSpot refused the request: ${message || 'forbidden'}`)
  }
  if (status === 404) return new ProviderError('not_found', ctx.notFound)
  if (status === 409) return new ProviderError('conflict', `HubSpot reported a conflict: ${message || 'conflict'}`, ctx.field)
  if (status === 429) {
    return new UpstreamError(SERVICE, 'rate_limited', `HubSpot rate limit reached${retryAfterSeconds ? `; retry after ${retryAfterSeconds} s` : ''}`, 429, retryAfterSeconds)
  }
  if (status === 400 || status === 422) {
    const props = invalidProperties(body)
    if (props.length) {
      const text = props.map((p) => `${p.name} (${p.message})`).join('; ')
      return new ProviderError('invalid_input', `HubSpot rejected the properties: ${text}`.slice(0, 1000), ctx.field ?? 'properties')
    }
    return new ProviderError('invalid_input', `HubSpot rejected the request: ${message || `status ${status}`}`, ctx.field)
  }
  const correlation = body.correlationId ? ` (correlation id ${body.correlationId})` : ''
  return new UpstreamError(SERVICE, 'status', `HubSpot answered ${status}${message ? `: ${message}` : ''}${correlation}`, status)
}

/** Maps a batch error (category only, no HTTP status) like the matching status. */
export function mapBatchError(err: HubSpotErrorBody, ctx: CallContext): Error {
  const status = err.category === 'VALIDATION_ERROR' ? 400 : err.category === 'OBJECT_NOT_FOUND' ? 404 : err.category === 'CONFLICT' ? 409 : 502
  return mapHubSpotError(status, err, ctx)
}
