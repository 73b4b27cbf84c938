/**
 * A local fake of HubSpot's CRM API (v3 objects, v4 associations) for tests. It answers only the
 * endpoints in reference/hubspot-endpoints.json, checks each request's method, path, query keys and
 * body shape against it, and records anything else as a violation (answered 400 FAKE_REJECTED), so a
 * test can assert the client sent nothing HubSpot would not accept.
 */
import { markSecret } from '../secret-scan'
import { json } from '../helpers'

const TYPES = ['contacts', 'companies', 'deals', 'tickets', 'calls', 'emails', 'meetings', 'notes', 'tasks']
const READ_ONLY = new Set(['hs_object_id', 'createdate', 'lastmodifieddate', 'hs_lastmodifieddate', 'hs_createdate'])
const OPERATORS = ['BETWEEN', 'CONTAINS_TOKEN', 'EQ', 'GT', 'GTE', 'HAS_PROPERTY', 'IN', 'LT', 'LTE', 'NEQ', 'NOT_CONTAINS_TOKEN', 'NOT_HAS_PROPERTY', 'NOT_IN']
const CATEGORIES = ['HUBSPOT_DEFINED', 'USER_DEFINED', 'INTEGRATOR_DEFINED']
/** Properties the fake portal defines per type (writes to others are PROPERTY_DOESNT_EXIST). */
const KNOWN: Record<string, string[]> = {
  contacts: ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle', 'lifecyclestage', 'website'],
  companies: ['name', 'domain', 'industry', 'phone', 'city', 'country', 'lifecyclestage'],
  deals: ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate'],
  tickets: ['subject', 'content', 'hs_pipeline', 'hs_pipeline_stage', 'hs_ticket_priority'],
  calls: ['hs_call_title', 'hs_call_body', 'hs_call_direction', 'hs_call_duration', 'hs_timestamp'],
  emails: ['hs_email_subject', 'hs_email_text', 'hs_email_direction', 'hs_timestamp'],
  meetings: ['hs_meeting_title', 'hs_meeting_body', 'hs_meeting_start_time', 'hs_meeting_end_time', 'hs_timestamp'],
  notes: ['hs_note_body', 'hs_timestamp'],
  tasks: ['hs_task_subject', 'hs_task_body', 'hs_task_status', 'hs_task_priority', 'hs_timestamp'],
}
/** Query keys per endpoint, from the reference. */
const QUERY = {
  list: ['after', 'archived', 'associations', 'limit', 'properties', 'propertiesWithHistory'],
  get: ['archived', 'associations', 'idProperty', 'properties', 'propertiesWithHistory'],
  patch: ['idProperty'],
  assocList: ['after', 'limit'],
}

interface FakeObject {
  id: string
  properties: Record<string, string>
  createdAt: string
  updatedAt: string
}

export interface SeenRequest {
  method: string
  path: string
  query: Record<string, string[]>
  body: unknown
  authorization: string | null
}

interface Injected {
  status: number
  headers?: Record<string, string>
  body?: unknown
}

export class FakeHubSpot {
  readonly host: string
  token: string
  /** When true every call answers 401 EXPIRED_AUTHENTICATION. */
  expired = false
  /** Granted scopes; null grants everything. */
  scopes: Set<string> | null = null
  readonly requests: SeenRequest[] = []
  readonly violations: string[] = []
  private readonly objects = new Map<string, Map<string, FakeObject>>(TYPES.map((t) => [t, new Map()]))
  private readonly links = new Map<string, { category: string; typeId: number }[]>()
  private readonly injected: Injected[] = []
  private nextId = 1000
  private clock = Date.parse('2026-01-05T10:00:00.000Z')

  constructor(opts: { token?: string; base?: string } = {}) {
    this.token = markSecret(opts.token ?? 'pat-na1-11111111-2222-3333-4444-555555555555')
    this.host = new URL(opts.base ?? 'https://api.hubapi.com').host
  }

  /** Adds an object to the portal; returns its id. */
  seed(type: string, properties: Record<string, string>): string {
    const id = String(this.nextId++)
    const at = this.tick()
    this.objects.get(type)!.set(id, { id, properties: { ...properties }, createdAt: at, updatedAt: at })
    return id
  }

  /** Links two objects both ways with the default association. */
  link(fromType: string, fromId: string, toType: string, toId: string): void {
    this.links.set(`${fromType}:${fromId}>${toType}:${toId}`, [{ category: 'HUBSPOT_DEFINED', typeId: 1 }])
    this.links.set(`${toType}:${toId}>${fromType}:${fromId}`, [{ category: 'HUBSPOT_DEFINED', typeId: 2 }])
  }

  /** The stored properties of an object, or undefined. */
  get(type: string, id: string): Record<string, string> | undefined {
    return this.objects.get(type)?.get(id)?.properties
  }

  /** Association labels between two objects, or undefined when not linked. */
  linked(fromType: string, fromId: string, toType: string, toId: string) {
    return this.links.get(`${fromType}:${fromId}>${toType}:${toId}`)
  }

  /** The next `count` requests get this answer instead (429, 5xx ...). */
  failNext(count: number, answer: Injected): void {
    for (let i = 0; i < count; i++) this.injected.push(answer)
  }

  /** The fetch handler for `mockFetch`: answers requests to the fake's host, ignores others. */
  readonly handler = async (req: Request): Promise<Response | null> => {
    const url = new URL(req.url)
    if (url.host !== this.host) return null
    const query: Record<string, string[]> = {}
    for (const [k, v] of url.searchParams) (query[k] ??= []).push(v)
    const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text()
    let body: unknown = undefined
    if (text !== '') {
      try {
        body = JSON.parse(text)
      } catch {
        return this.reject(`${req.method} ${url.pathname}: body is not JSON`)
      }
      if (!(req.headers.get('content-type') ?? '').startsWith('application/json')) return this.reject(`${req.method} ${url.pathname}: JSON body without application/json content type`)
    }
    const seen: SeenRequest = { method: req.method, path: url.pathname, query, body, authorization: req.headers.get('authorization') }
    this.requests.push(seen)
    if ('hapikey' in query) return this.reject('credentials in the URL (hapikey)')

    const injected = this.injected.shift()
    if (injected) return json(injected.body ?? { status: 'error', message: 'injected failure', correlationId: 'fake-corr', category: 'INJECTED' }, injected.status, injected.headers)

    if (this.expired) return this.error(401, 'EXPIRED_AUTHENTICATION', 'The OAuth token used to make this call expired 3600 second(s) ago.')
    if (seen.authorization !== `Bearer ${this.token}`) {
      return this.error(401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found. This API supports OAuth 2.0 authentication.')
    }
    return this.route(seen)
  }

  private tick(): string {
    this.clock += 1000
    return new Date(this.clock).toISOString()
  }

  private reject(why: string): Response {
    this.violations.push(why)
    return json({ status: 'error', message: `fake HubSpot rejected the request: ${why}`, correlationId: 'fake', category: 'FAKE_REJECTED' }, 400)
  }

  private error(status: number, category: string, message: string, extra: Record<string, unknown> = {}): Response {
    return json({ status: 'error', message, correlationId: 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', category, ...extra }, status)
  }

  private checkQuery(r: SeenRequest, allowed: string[]): string | null {
    const bad = Object.keys(r.query).filter((k) => !allowed.includes(k))
    return bad.length ? `${r.method} ${r.path}: query keys not in the reference: ${bad.join(', ')}` : null
  }

  private needScope(type: string, op: 'read' | 'write'): Response | null {
    if (!this.scopes) return null
    // The fake's portal guards engagements (calls, notes ...) with the contacts scopes.
    const scope = type === 'tickets' ? 'tickets' : `crm.objects.${['contacts', 'companies', 'deals'].includes(type) ? type : 'contacts'}.${op}`
    if (this.scopes.has(scope)) return null
    return this.error(403, 'MISSING_SCOPES', "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.", {
      errors: [{ message: 'One or more of the following scopes are required.', context: { requiredGranularScopes: [scope] } }],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
    })
  }

  private view(type: string, o: FakeObject, props: string[] | null): Record<string, unknown> {
    const modified = type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate'
    const properties: Record<string, string | null> = { hs_object_id: o.id, createdate: o.createdAt, [modified]: o.updatedAt }
    for (const p of props ?? []) {
      if (p in properties) continue
      if (p in o.properties) properties[p] = o.properties[p]
      else if (KNOWN[type].includes(p)) properties[p] = null
    }
    return { id: o.id, properties, createdAt: o.createdAt, updatedAt: o.updatedAt, archived: false }
  }

  private propsParam(r: SeenRequest): string[] | null {
    const v = r.query.properties
    return v ? v.flatMap((s) => s.split(',')).filter(Boolean) : null
  }

  /** Checks a properties object: strings only, known and writable names. */
  private validate(type: string, properties: unknown, where: string): Response | null {
    if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return this.reject(`${where}: properties must be an object`)
    const problems: Record<string, unknown>[] = []
    for (const [name, value] of Object.entries(properties)) {
      if (typeof value !== 'string') return this.reject(`${where}: property ${name} is not a string`)
      if (READ_ONLY.has(name)) problems.push({ isValid: false, message: `${name} is a read only property; its value cannot be set.`, error: 'READ_ONLY_VALUE', name })
      else if (!KNOWN[type].includes(name)) problems.push({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name })
      else if (name === 'email' && value !== '' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) problems.push({ isValid: false, message: 'Email address is invalid', error: 'INVALID_EMAIL', name })
    }
    if (problems.length) return this.error(400, 'VALIDATION_ERROR', `Property values were not valid: ${JSON.stringify(problems)}`)
    return null
  }

  private write(o: FakeObject, properties: Record<string, string>): void {
    Object.assign(o.properties, properties)
    o.updatedAt = this.tick()
  }

  private route(r: SeenRequest): Response {
    const p = r.path.split('/').slice(1).map(decodeURIComponent)
    const m = `${r.method} ${p.length}`
    // /crm/v3/objects/{type}...
    if (p[0] === 'crm' && p[1] === 'v3' && p[2] === 'objects' && TYPES.includes(p[3])) {
      const type = p[3]
      const store = this.objects.get(type)!
      if (m === 'GET 4') {
        const bad = this.checkQuery(r, QUERY.list)
        if (bad) return this.reject(bad)
        const denied = this.needScope(type, 'read')
        if (denied) return denied
        const limit = Number(r.query.limit?.[0] ?? 10)
        return json({ results: [...store.values()].slice(0, limit).map((o) => this.view(type, o, this.propsParam(r))) })
      }
      if (m === 'GET 5') {
        const bad = this.checkQuery(r, QUERY.get)
        if (bad) return this.reject(bad)
        const idProperty = r.query.idProperty?.[0]
        if (idProperty !== undefined && !(type === 'contacts' && idProperty === 'email')) return this.reject(`GET ${r.path}: idProperty ${idProperty} is not a unique property`)
        const denied = this.needScope(type, 'read')
        if (denied) return denied
        const o = idProperty ? [...store.values()].find((x) => x.properties.email?.toLowerCase() === p[4].toLowerCase()) : store.get(p[4])
        if (!o) return this.error(404, 'OBJECT_NOT_FOUND', 'Object not found.  objectId are usually numeric.', { context: { id: [p[4]] } })
        return json(this.view(type, o, this.propsParam(r)))
      }
      if (m === 'PATCH 5') {
        const bad = this.checkQuery(r, QUERY.patch)
        if (bad) return this.reject(bad)
        const b = r.body as { properties?: unknown } | undefined
        if (!b || typeof b !== 'object' || Object.keys(b).some((k) => k !== 'properties')) return this.reject(`PATCH ${r.path}: body must be {properties}`)
        const denied = this.needScope(type, 'write')
        if (denied) return denied
        const o = store.get(p[4])
        if (!o) return this.error(404, 'OBJECT_NOT_FOUND', 'Object not found.  objectId are usually numeric.', { context: { id: [p[4]] } })
        const invalid = this.validate(type, b.properties, `PATCH ${r.path}`)
        if (invalid) return invalid
        this.write(o, b.properties as Record<string, string>)
        return json(this.view(type, o, Object.keys(b.properties as object)))
      }
      if (m === 'POST 5' && p[4] === 'search') return this.search(type, r)
      if (m === 'POST 6' && p[4] === 'batch' && p[5] === 'upsert') return this.upsert(type, r)
    }
    // /crm/v4/objects/{type}/{id}/associations/...
    if (p[0] === 'crm' && p[1] === 'v4' && p[2] === 'objects' && TYPES.includes(p[3]) && p[5] === 'associations') {
      const [type, id] = [p[3], p[4]]
      if (m === 'GET 7' && TYPES.includes(p[6])) return this.listLinks(type, id, p[6], r)
      if (m === 'PUT 9' && p[6] === 'default' && TYPES.includes(p[7])) {
        if (r.body !== undefined) return this.reject(`PUT ${r.path}: the default association takes no body`)
        return this.putLink(type, id, p[7], p[8], [{ category: 'HUBSPOT_DEFINED', typeId: 1 }], r, true)
      }
      if (m === 'PUT 8' && TYPES.includes(p[6])) {
        const b = r.body
        const ok =
          Array.isArray(b) &&
          b.length > 0 &&
          b.every(
            (s) =>
              s &&
              typeof s === 'object' &&
              Object.keys(s).sort().join() === 'associationCategory,associationTypeId' &&
              CATEGORIES.includes(s.associationCategory) &&
              Number.isInteger(s.associationTypeId),
          )
        if (!ok) return this.reject(`PUT ${r.path}: body must be [{associationCategory, associationTypeId}]`)
        const specs = (b as { associationCategory: string; associationTypeId: number }[]).map((s) => ({ category: s.associationCategory, typeId: s.associationTypeId }))
        return this.putLink(type, id, p[6], p[7], specs, r, false)
      }
    }
    return this.reject(`${r.method} ${r.path}: not an endpoint in the reference`)
  }

  private search(type: string, r: SeenRequest): Response {
    if (Object.keys(r.query).length) return this.reject(`POST ${r.path}: search takes no query`)
    const b = r.body as Record<string, unknown> | undefined
    if (!b || typeof b !== 'object') return this.reject(`POST ${r.path}: body missing`)
    const keys = Object.keys(b)
    const missing = ['after', 'filterGroups', 'limit', 'properties', 'sorts'].filter((k) => !keys.includes(k))
    const extra = keys.filter((k) => !['after', 'filterGroups', 'limit', 'properties', 'sorts', 'query'].includes(k))
    if (missing.length || extra.length) return this.reject(`POST ${r.path}: missing ${missing.join(',')} extra ${extra.join(',')}`)
    const groups = b.filterGroups as { filters?: { propertyName?: unknown; operator?: unknown; value?: unknown }[] }[]
    if (!Array.isArray(groups) || groups.length > 6) return this.reject(`POST ${r.path}: filterGroups must be an array of at most 6`)
    if (typeof b.limit !== 'number' || !Number.isInteger(b.limit) || b.limit < 1 || b.limit > 200) return this.reject(`POST ${r.path}: limit must be 1-200`)
    if (typeof b.after !== 'string') return this.reject(`POST ${r.path}: after must be a string`)
    if (!Array.isArray(b.properties) || !Array.isArray(b.sorts)) return this.reject(`POST ${r.path}: properties and sorts must be arrays`)
    for (const g of groups) {
      if (!Array.isArray(g.filters)) return this.reject(`POST ${r.path}: filter group without filters`)
      for (const f of g.filters) {
        if (typeof f.propertyName !== 'string' || !OPERATORS.includes(f.operator as string)) return this.reject(`POST ${r.path}: bad filter ${JSON.stringify(f)}`)
        if (f.operator !== 'EQ') return this.reject(`POST ${r.path}: the fake evaluates EQ filters only`)
      }
    }
    const denied = this.needScope(type, 'read')
    if (denied) return denied
    const all = [...this.objects.get(type)!.values()].filter(
      (o) => groups.length === 0 || groups.some((g) => g.filters!.every((f) => (o.properties[f.propertyName as string] ?? '').toLowerCase() === String(f.value).toLowerCase())),
    )
    const start = Number(b.after) || 0
    const page = all.slice(start, start + (b.limit as number))
    const out: Record<string, unknown> = { total: all.length, results: page.map((o) => this.view(type, o, b.properties as string[])) }
    if (start + page.length < all.length) out.paging = { next: { after: String(start + page.length) } }
    return json(out)
  }

  private upsert(type: string, r: SeenRequest): Response {
    if (Object.keys(r.query).length) return this.reject(`POST ${r.path}: upsert takes no query`)
    const b = r.body as { inputs?: { idProperty?: unknown; id?: unknown; properties?: unknown; objectWriteTraceId?: unknown }[] } | undefined
    if (!b || Object.keys(b).join() !== 'inputs' || !Array.isArray(b.inputs) || b.inputs.length === 0) return this.reject(`POST ${r.path}: body must be {inputs:[...]}`)
    const denied = this.needScope(type, 'write')
    if (denied) return denied
    const started = this.tick()
    const results: Record<string, unknown>[] = []
    for (const input of b.inputs) {
      if (Object.keys(input).some((k) => !['idProperty', 'id', 'properties', 'objectWriteTraceId'].includes(k))) return this.reject(`POST ${r.path}: unknown input field`)
      if (!(type === 'contacts' && input.idProperty === 'email') || typeof input.id !== 'string') return this.reject(`POST ${r.path}: idProperty must be a unique property (email for contacts)`)
      const invalid = this.validate(type, input.properties, `POST ${r.path}`)
      if (invalid) return invalid
      const store = this.objects.get(type)!
      const email = (input.id as string).toLowerCase()
      let o = [...store.values()].find((x) => x.properties.email?.toLowerCase() === email)
      const created = !o
      if (!o) {
        const id = this.seed(type, { email })
        o = store.get(id)!
      }
      this.write(o, input.properties as Record<string, string>)
      results.push({ ...this.view(type, o, Object.keys(input.properties as object)), new: created })
    }
    return json({ status: 'COMPLETE', results, startedAt: started, completedAt: this.tick() })
  }

  private putLink(type: string, id: string, toType: string, toId: string, specs: { category: string; typeId: number }[], r: SeenRequest, isDefault: boolean): Response {
    if (Object.keys(r.query).length) return this.reject(`PUT ${r.path}: takes no query`)
    const denied = this.needScope(type, 'write')
    if (denied) return denied
    if (!this.objects.get(type)!.has(id) || !this.objects.get(toType)!.has(toId)) {
      return this.error(404, 'OBJECT_NOT_FOUND', `No ${this.objects.get(type)!.has(id) ? toType : type} with id ${this.objects.get(type)!.has(id) ? toId : id} exist.`)
    }
    this.links.set(`${type}:${id}>${toType}:${toId}`, specs)
    this.links.set(`${toType}:${toId}>${type}:${id}`, specs)
    if (isDefault) {
      const at = this.tick()
      return json({
        status: 'COMPLETE',
        results: [{ from: { id }, to: { id: toId }, associationSpec: { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 1 } }],
        startedAt: at,
        completedAt: at,
      })
    }
    return json({ fromObjectTypeId: type, fromObjectId: Number(id), toObjectTypeId: toType, toObjectId: Number(toId), labels: [] }, 201)
  }

  private listLinks(type: string, id: string, toType: string, r: SeenRequest): Response {
    const bad = this.checkQuery(r, QUERY.assocList)
    if (bad) return this.reject(bad)
    const denied = this.needScope(type, 'read')
    if (denied) return denied
    if (!this.objects.get(type)!.has(id)) return this.error(404, 'OBJECT_NOT_FOUND', 'Object not found.')
    const limit = Number(r.query.limit?.[0] ?? 500)
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) return this.reject(`GET ${r.path}: limit must be 1-500`)
    const all = [...this.links.entries()]
      .filter(([k]) => k.startsWith(`${type}:${id}>${toType}:`))
      .map(([k, specs]) => ({ toObjectId: Number(k.split(':').pop()), associationTypes: specs.map((s) => ({ category: s.category, typeId: s.typeId, label: null })) }))
      .sort((a, b) => a.toObjectId - b.toObjectId)
    const start = Number(r.query.after?.[0] ?? 0)
    const page = all.slice(start, start + limit)
    const out: Record<string, unknown> = { results: page }
    if (start + page.length < all.length) out.paging = { next: { after: String(start + page.length), link: `${r.path}?after=${start + page.length}` } }
    return json(out)
  }
}
