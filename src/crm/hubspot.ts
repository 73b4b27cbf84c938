import { ambiguousDomain, notFoundMessage } from './builtin'
import type { CrmRecord, CrmService, DryRunOutcome, LookupRequest, ObjectRef, ObjectType, PlannedRequest, UpdateOutcome, UpdateRequest } from './types'
import { ProviderError } from '../providers/errors'
import { readPages } from '../providers/paging'
import type { HubSpotClient } from '../providers/hubspot/client'
import {
  ASSOCIATION_PAGES,
  associateRequest,
  describeRequest,
  getObjectRequest,
  listAssociationsRequest,
  mapBatchError,
  MAX_ASSOCIATED_IDS,
  parseAssociationPage,
  parseObject,
  parseSearch,
  parseUpsert,
  patchRequest,
  searchByDomainRequest,
  toRecord,
  upsertContactByEmailRequest,
  type CallContext,
  type HubSpotObject,
  type HubSpotRequest,
} from '../providers/hubspot/transform'

/** Placeholder for the id of a contact an upsert would create, in dry-run association URLs. */
const CREATED_ID = '{created_id}'

/** The CRM actions against a connected HubSpot portal. */
export class HubSpotCrm implements CrmService {
  readonly provider = 'hubspot' as const

  constructor(private readonly client: HubSpotClient) {}

  private ctx(type: ObjectType, ref: ObjectRef, operation: 'read' | 'write', field?: CallContext['field']): CallContext {
    return { objectType: type, operation, notFound: notFoundMessage(type, ref), field }
  }

  /** The one company with this domain: a search, since domain is not unique; several is an error. */
  private async companyByDomain(domain: string, properties: string[], operation: 'read' | 'write'): Promise<HubSpotObject> {
    const ref: ObjectRef = { by: 'domain', value: domain }
    const found = parseSearch(await this.client.send(searchByDomainRequest(domain, properties), this.ctx('companies', ref, operation)))
    if (found.total === 0 || found.results.length === 0) throw new ProviderError('not_found', notFoundMessage('companies', ref))
    if (found.total > 1)
      throw ambiguousDomain(
        domain,
        found.results.map((r) => r.id),
        found.total > found.results.length,
      )
    return found.results[0]
  }

  async lookup(req: LookupRequest): Promise<CrmRecord> {
    const { objectType: type, ref } = req
    let obj: HubSpotObject
    if (ref.by === 'domain') obj = await this.companyByDomain(ref.value, req.properties, 'read')
    else {
      const request = getObjectRequest(type, ref.value, req.properties, ref.by === 'email' ? 'email' : undefined)
      obj = parseObject(await this.client.send(request, this.ctx(type, ref, 'read')))
    }
    const record: CrmRecord = toRecord(obj, req.properties)
    if (req.associations.length) {
      record.associations = {}
      for (const toType of req.associations) record.associations[toType] = await this.associatedIds(type, obj.id, toType)
    }
    return record
  }

  /** At most ASSOCIATION_PAGES pages and MAX_ASSOCIATED_IDS ids, as the lookup documents, however HubSpot pages. */
  private async associatedIds(type: ObjectType, id: string, toType: ObjectType): Promise<string[]> {
    const ctx = this.ctx(type, { by: 'id', value: id }, 'read')
    const read = async (after: string | undefined) => {
      const page = parseAssociationPage(await this.client.send(listAssociationsRequest(type, id, toType, after), ctx))
      return { items: page.ids, next: page.after }
    }
    return (await readPages({ maxPages: ASSOCIATION_PAGES, maxItems: MAX_ASSOCIATED_IDS }, read, String)).items
  }

  /** Whether a contact with this email exists (a read, for dry runs of an upsert). */
  private async contactIdByEmail(email: string): Promise<string | null> {
    const ref: ObjectRef = { by: 'email', value: email }
    try {
      return parseObject(await this.client.send(getObjectRequest('contacts', email, ['email'], 'email'), this.ctx('contacts', ref, 'read'))).id
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'not_found') return null
      throw err
    }
  }

  async update(req: UpdateRequest): Promise<UpdateOutcome | DryRunOutcome> {
    const { objectType: type, ref } = req
    // The write: PATCH by id; a contact by email is upserted (email is unique in HubSpot); a company
    // by domain is found by search first and then patched (HubSpot cannot upsert on a non-unique property).
    let targetId: string | null
    let write: HubSpotRequest
    if (ref.by === 'id') {
      targetId = ref.value
      write = patchRequest(type, ref.value, req.properties)
    } else if (ref.by === 'email') {
      targetId = req.dryRun ? await this.contactIdByEmail(ref.value) : null
      write = upsertContactByEmailRequest(ref.value, req.properties)
    } else {
      targetId = (await this.companyByDomain(ref.value, ['domain'], 'write')).id
      write = patchRequest(type, targetId, req.properties)
    }

    if (req.dryRun) {
      const requests: PlannedRequest[] = [describeRequest(this.client.base, write)]
      for (const a of req.associations) requests.push(describeRequest(this.client.base, associateRequest(type, targetId ?? CREATED_ID, a)))
      return { dry_run: true, id: targetId, would_create: ref.by === 'email' && targetId === null, requests }
    }

    const wctx = this.ctx(type, ref, 'write', 'properties')
    let obj: HubSpotObject
    let created = false
    if (ref.by === 'email') {
      const result = parseUpsert(await this.client.send(write, wctx))
      if ('error' in result) throw mapBatchError(result.error, wctx)
      obj = result.object
      created = result.created
    } else {
      obj = parseObject(await this.client.send(write, wctx))
    }

    for (const [i, a] of req.associations.entries()) {
      const actx: CallContext = {
        objectType: type,
        operation: 'write',
        notFound: `Object not found: no ${a.toObjectType} with id ${a.toObjectId} (associations[${i}])`,
        field: 'associations',
      }
      try {
        await this.client.send(associateRequest(type, obj.id, a), actx)
      } catch (err) {
        if (err instanceof ProviderError) {
          throw new ProviderError(
            err.kind,
            `Updated ${type} ${obj.id}, but associations[${i}] failed: ${err.message}`,
            err.kind === 'invalid_input' || err.kind === 'not_found' ? 'associations' : undefined,
          )
        }
        throw err
      }
    }
    return { id: obj.id, properties: obj.properties, createdAt: obj.createdAt, updatedAt: obj.updatedAt, created }
  }
}
