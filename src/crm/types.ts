/** The CRM interface both providers (HubSpot and the built-in CRM) implement, and its model. */

/** HubSpot's standard object types, the ones the CRM actions accept. */
export const OBJECT_TYPES = ['contacts', 'companies', 'deals', 'tickets', 'calls', 'emails', 'meetings', 'notes', 'tasks'] as const
export type ObjectType = (typeof OBJECT_TYPES)[number]

/** The spec's identification methods. */
export const ID_METHODS = ['CRM ID', 'Email Address (Contacts only)', 'Company Domain (Companies only)'] as const
export type IdMethodLabel = (typeof ID_METHODS)[number]

export type CrmProvider = 'hubspot' | 'builtin'

/** How one object is named: by CRM id, a contact's email or a company's domain (all normalized). */
export type ObjectRef = { by: 'id'; value: string } | { by: 'email'; value: string } | { by: 'domain'; value: string }

/** A labeled association kind: HubSpot's category and type id. Absent means the default association. */
export interface AssociationKind {
  category: 'HUBSPOT_DEFINED' | 'USER_DEFINED' | 'INTEGRATOR_DEFINED'
  typeId: number
}

export interface AssociationInput {
  toObjectType: ObjectType
  toObjectId: string
  kind?: AssociationKind
}

export interface LookupRequest {
  objectType: ObjectType
  ref: ObjectRef
  /** Property names to return (never empty: the default set is filled in before). */
  properties: string[]
  /** Object types whose associated ids to return. */
  associations: ObjectType[]
}

export interface UpdateRequest {
  objectType: ObjectType
  ref: ObjectRef
  /** At least one; values are strings, "" clears a value. */
  properties: Record<string, string>
  associations: AssociationInput[]
  dryRun: boolean
}

/** One object as the actions return it: flat string properties (null when unset). */
export interface CrmRecord {
  id: string
  properties: Record<string, string | null>
  createdAt: string
  updatedAt: string
  archived: boolean
  associations?: Record<string, string[]>
}

export interface UpdateOutcome {
  id: string
  properties: Record<string, string | null>
  createdAt: string
  updatedAt: string
  /** True when an update by email/domain created the object (upsert). */
  created: boolean
}

/** What a dry run would do: the exact requests (HubSpot) or the planned writes (built-in). Nothing is written. */
export interface DryRunOutcome {
  dry_run: true
  /** The object the update would touch, when it exists; null when it would be created. */
  id: string | null
  would_create: boolean
  /** HubSpot: the requests that would be sent, in order, with the token redacted. */
  requests?: PlannedRequest[]
  /** Built-in CRM: the writes that would be made, in order. */
  operations?: PlannedOperation[]
}

/** One outbound request, as it would be sent (the Authorization header redacted). */
export interface PlannedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: unknown
}

/** One write of the built-in CRM. */
export type PlannedOperation =
  | { op: 'update'; object_type: ObjectType; id: string; properties: Record<string, string> }
  | { op: 'create'; object_type: ObjectType; properties: Record<string, string> }
  | { op: 'associate'; object_type: ObjectType; id: string | null; to_object_type: string; to_object_id: string; association_type: string | null }

/** A CRM the actions talk to. */
export interface CrmService {
  readonly provider: CrmProvider
  lookup(req: LookupRequest): Promise<CrmRecord>
  update(req: UpdateRequest): Promise<UpdateOutcome | DryRunOutcome>
}

/** Properties HubSpot computes; writes to them are validation errors. */
export const READ_ONLY_PROPERTIES = new Set(['hs_object_id', 'createdate', 'lastmodifieddate', 'hs_lastmodifieddate', 'hs_createdate'])

/** What a lookup returns when no properties are asked for (HubSpot's usual defaults per type). */
export const DEFAULT_PROPERTIES: Record<ObjectType, string[]> = {
  contacts: ['email', 'firstname', 'lastname', 'phone', 'company', 'jobtitle', 'lifecyclestage', 'createdate', 'lastmodifieddate', 'hs_object_id'],
  companies: ['name', 'domain', 'industry', 'phone', 'city', 'country', 'lifecyclestage', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  deals: ['dealname', 'amount', 'dealstage', 'pipeline', 'closedate', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  tickets: ['subject', 'content', 'hs_pipeline', 'hs_pipeline_stage', 'hs_ticket_priority', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  calls: ['hs_call_title', 'hs_call_body', 'hs_call_direction', 'hs_call_duration', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  emails: ['hs_email_subject', 'hs_email_text', 'hs_email_direction', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  meetings: ['hs_meeting_title', 'hs_meeting_body', 'hs_meeting_start_time', 'hs_meeting_end_time', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  notes: ['hs_note_body', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  tasks: ['hs_task_subject', 'hs_task_body', 'hs_task_status', 'hs_task_priority', 'hs_timestamp', 'createdate', 'hs_lastmodifieddate', 'hs_object_id'],
}
