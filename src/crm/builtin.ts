import {
  existingCrmRefs,
  findCompaniesByDomain,
  findContactByEmail,
  deleteCrmObject,
  getCrmObject,
  insertCrmObject,
  listCrmObjects,
  isUniqueViolation,
  isRecordTooLarge,
  listCrmAssociations,
  CRM_RECORD_MAX_BYTES,
  patchCrmObject,
  type CrmIndexColumns,
  type CrmLinkRow,
  type CrmObjectRow,
  type CrmUnless,
} from '../db/crm'
import { ApiError } from '../http/errors'
import { jsonSize } from '../lib/json-size'
import { setOwn } from '../lib/objects'
import { ProviderError } from '../providers/errors'
import { normalizeDomain, normalizeEmail } from './input'
import {
  READ_ONLY_PROPERTIES,
  type AssociationInput,
  type CrmRecord,
  type CrmService,
  type DryRunOutcome,
  type LookupRequest,
  type ObjectRef,
  type ObjectType,
  type UpdateOutcome,
  type UpdateRequest,
} from './types'

/** More than this many companies with one domain is reported as a list of the first ones. */
const DOMAIN_MATCHES = 10

/** Not-found messages in the original's vocabulary. */
export function notFoundMessage(type: ObjectType, ref: ObjectRef): string {
  if (ref.by === 'email') return `Contact not found with email ${ref.value}`
  if (ref.by === 'domain') return `Company not found with domain ${ref.value}`
  return `Object not found: no ${type} with id ${ref.value}`
}

/** The error for a domain that more than one company has: we report, never guess. */
export function ambiguousDomain(domain: string, ids: string[], more: boolean): ProviderError {
  return new ProviderError('conflict', `More than one company has domain ${domain} (ids ${ids.join(', ')}${more ? ', ...' : ''}); identify the company by CRM ID`)
}

/** Property values HubSpot computes, from the row's id and times. */
function systemProperties(type: ObjectType, row: Pick<CrmObjectRow, 'id' | 'created_at' | 'updated_at'>): Record<string, string> {
  const modified = new Date(row.updated_at).toISOString()
  const out: Record<string, string> = { hs_object_id: row.id, createdate: new Date(row.created_at).toISOString(), hs_lastmodifieddate: modified }
  if (type === 'contacts') out.lastmodifieddate = modified
  return out
}

function allProperties(type: ObjectType, row: CrmObjectRow): Record<string, string> {
  return { ...(JSON.parse(row.properties) as Record<string, string>), ...systemProperties(type, row) }
}

/** The stored row as a record with exactly the asked properties (null when unset). */
export function toRecord(type: ObjectType, row: CrmObjectRow, names: string[]): CrmRecord {
  const all = allProperties(type, row)
  const properties: Record<string, string | null> = {}
  for (const n of names) setOwn(properties, n, Object.hasOwn(all, n) ? all[n] : null)
  return { id: row.id, properties, createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString(), archived: false }
}

/** "CATEGORY:typeId" of a labeled association, null for the default one. */
export function associationLabel(a: AssociationInput): string | null {
  return a.kind ? `${a.kind.category}:${a.kind.typeId}` : null
}

function linkRows(associations: AssociationInput[]): CrmLinkRow[] {
  return associations.map((a) => ({ to_type: a.toObjectType, to_id: a.toObjectId, association_type: associationLabel(a) }))
}

/** The stored row with every property it has. */
export function fullRecord(type: ObjectType, row: CrmObjectRow): CrmRecord {
  return toRecord(type, row, Object.keys(allProperties(type, row)).sort())
}

/**
 * Checks values the way HubSpot does for the properties the built-in CRM knows (read-only
 * properties, a contact's email), and derives the indexed columns.
 */
export function checkWrite(type: ObjectType, properties: Record<string, string>): CrmIndexColumns {
  const problems: { name: string; message: string }[] = []
  for (const name of Object.keys(properties)) if (READ_ONLY_PROPERTIES.has(name)) problems.push({ name, message: 'is read-only' })
  const index: CrmIndexColumns = {}
  if (type === 'contacts' && 'email' in properties) {
    const v = properties.email.trim()
    index.email = v === '' ? null : normalizeEmail(v)
    if (v !== '' && !index.email) problems.push({ name: 'email', message: 'is not a valid email address' })
  }
  if (type === 'companies' && 'domain' in properties) {
    const v = properties.domain.trim()
    index.domain = v === '' ? null : normalizeDomain(v)
    if (v !== '' && !index.domain) problems.push({ name: 'domain', message: 'is not a valid domain' })
  }
  if (problems.length) {
    const text = problems.map((p) => `${p.name} ${p.message}`).join('; ')
    throw new ApiError(
      'VALIDATION_FAILED',
      `Property values were not valid: ${text}`,
      problems.map((p) => ({ path: '/properties', message: `${p.name} ${p.message}` })),
    )
  }
  return index
}

function recordTooLarge(type: ObjectType, id: string | null): ApiError {
  const message = `The built-in CRM keeps at most ${CRM_RECORD_MAX_BYTES} bytes of properties (as JSON) in a record, and this write would take ${id === null ? `the new ${type} record` : `${type} record ${id}`} past it; nothing was written`
  return new ApiError('PAYLOAD_TOO_LARGE', message, [{ path: '/properties', message: `more than ${CRM_RECORD_MAX_BYTES} bytes of properties in the record` }])
}

function assertNotSelf(type: ObjectType, target: CrmObjectRow | null, associations: AssociationInput[]): void {
  if (target && associations.some((a) => a.toObjectType === type && a.toObjectId === target.id)) {
    throw new ProviderError('invalid_input', 'An object cannot be associated with itself', 'associations')
  }
}

/** The built-in CRM: HubSpot's model in D1, private to one account. */
export class BuiltinCrm implements CrmService {
  readonly provider = 'builtin' as const

  constructor(
    private readonly db: D1Database,
    private readonly accountId: string,
  ) {}

  /** The object a reference names, or null; throws for a domain several companies share. */
  private async find(type: ObjectType, ref: ObjectRef): Promise<CrmObjectRow | null> {
    if (ref.by === 'id') return getCrmObject(this.db, this.accountId, type, ref.value)
    if (ref.by === 'email') return findContactByEmail(this.db, this.accountId, ref.value)
    const rows = await findCompaniesByDomain(this.db, this.accountId, ref.value, DOMAIN_MATCHES + 1)
    if (rows.length > 1)
      throw ambiguousDomain(
        ref.value,
        rows.slice(0, DOMAIN_MATCHES).map((r) => r.id),
        rows.length > DOMAIN_MATCHES,
      )
    return rows[0] ?? null
  }

  async lookup(req: LookupRequest): Promise<CrmRecord> {
    const row = await this.find(req.objectType, req.ref)
    if (!row) throw new ProviderError('not_found', notFoundMessage(req.objectType, req.ref))
    const record = toRecord(req.objectType, row, req.properties)
    if (req.associations.length) {
      const links = await listCrmAssociations(this.db, this.accountId, req.objectType, row.id, req.associations)
      record.associations = Object.fromEntries(req.associations.map((t) => [t, links.filter((l) => l.to_type === t).map((l) => l.to_id)]))
    }
    return record
  }

  private async checkTargets(associations: AssociationInput[]): Promise<void> {
    const refs = associations.map((a) => `${a.toObjectType}:${a.toObjectId}`)
    const found = await existingCrmRefs(this.db, this.accountId, [...new Set(refs)])
    const missing = refs.findIndex((ref) => !found.has(ref))
    if (missing >= 0) {
      const a = associations[missing]
      throw new ProviderError('not_found', `Object not found: no ${a.toObjectType} with id ${a.toObjectId} (associations[${missing}])`, 'associations')
    }
  }

  async update(req: UpdateRequest): Promise<UpdateOutcome | DryRunOutcome> {
    const { objectType: type, ref } = req
    const properties = { ...req.properties }
    // An update by email or domain creates the record when none exists (upsert), so a fresh install can fill its CRM.
    if (ref.by === 'email' && !('email' in properties)) properties.email = ref.value
    if (ref.by === 'domain' && !('domain' in properties)) properties.domain = ref.value
    const index = checkWrite(type, properties)
    const existing = await this.find(type, ref)
    if (!existing && ref.by === 'id') throw new ProviderError('not_found', notFoundMessage(type, ref))
    await this.checkTargets(req.associations)
    assertNotSelf(type, existing, req.associations)
    const links = linkRows(req.associations)

    if (req.dryRun) {
      const operations: DryRunOutcome['operations'] = [
        existing ? { op: 'update', object_type: type, id: existing.id, properties } : { op: 'create', object_type: type, properties },
        ...links.map((l) => ({ op: 'associate' as const, object_type: type, id: existing?.id ?? null, to_object_type: l.to_type, to_object_id: l.to_id, association_type: l.association_type })),
      ]
      return { dry_run: true, id: existing?.id ?? null, would_create: !existing, operations }
    }

    let target = existing
    const unless: CrmUnless | null = ref.by === 'id' ? null : { column: ref.by, value: ref.value }
    let row = await this.write(type, target?.id ?? null, properties, index, links, unless)
    if (!row) {
      // A concurrent upsert created the record after the lookup: this one updates it, as it would have a moment later.
      target = await this.find(type, ref)
      if (!target) throw new ProviderError('not_found', notFoundMessage(type, ref))
      assertNotSelf(type, target, req.associations)
      row = (await this.write(type, target.id, properties, index, links))!
    }
    const props: Record<string, string | null> = {}
    const stored = allProperties(type, row)
    for (const n of [...Object.keys(properties), ...Object.keys(systemProperties(type, row))]) setOwn(props, n, Object.hasOwn(stored, n) ? stored[n] : null)
    return { id: row.id, properties: props, createdAt: new Date(row.created_at).toISOString(), updatedAt: new Date(row.updated_at).toISOString(), created: !target }
  }

  /**
   * Patches the object `id`, or creates one when null, and reads it back; a taken email is a 409.
   * Null only when a creation found an object of the type with the `unless` email or domain.
   */
  private async write(
    type: ObjectType,
    id: string | null,
    properties: Record<string, string>,
    index: CrmIndexColumns,
    links: CrmLinkRow[],
    unless: CrmUnless | null = null,
  ): Promise<CrmObjectRow | null> {
    const now = Date.now()
    // The triggers refuse it too; measured here, a patch that cannot fit on its own never reaches D1.
    if (jsonSize(properties, CRM_RECORD_MAX_BYTES) > CRM_RECORD_MAX_BYTES) throw recordTooLarge(type, id)
    let written = id
    try {
      if (id === null) {
        written = await insertCrmObject(this.db, this.accountId, type, properties, index, links, now, unless)
        if (written === null) return null
      } else if (!(await patchCrmObject(this.db, this.accountId, type, id, properties, index, links, now))) written = null
    } catch (err) {
      if (isUniqueViolation(err)) throw new ProviderError('conflict', `Another contact already has email ${index.email}`, 'properties')
      if (isRecordTooLarge(err)) throw recordTooLarge(type, id)
      throw err
    }
    // A concurrent delete between the lookup and the write leaves nothing to read back.
    const row = written === null ? null : await getCrmObject(this.db, this.accountId, type, written)
    if (!row) throw new ProviderError('not_found', notFoundMessage(type, { by: 'id', value: id ?? '(new)' }))
    return row
  }

  /** Creates an object of any type (the management route; contacts and companies also upsert through the action). */
  async create(type: ObjectType, properties: Record<string, string>, associations: AssociationInput[]): Promise<CrmRecord> {
    const index = checkWrite(type, properties)
    await this.checkTargets(associations)
    const row = await this.write(type, null, properties, index, linkRows(associations))
    return fullRecord(type, row!)
  }

  /** One page of objects of a type, oldest first, with every property. */
  async list(type: ObjectType, after: number, limit: number): Promise<{ results: CrmRecord[]; next_after: string | null }> {
    const rows = await listCrmObjects(this.db, this.accountId, type, after, limit + 1)
    const page = rows.slice(0, limit)
    return { results: page.map((r) => fullRecord(type, r)), next_after: rows.length > limit ? page[page.length - 1].id : null }
  }

  /** Deletes an object and its associations; 404 when it does not exist. */
  async remove(type: ObjectType, id: string): Promise<void> {
    if (!(await deleteCrmObject(this.db, this.accountId, type, id))) throw new ProviderError('not_found', notFoundMessage(type, { by: 'id', value: id }))
  }
}
