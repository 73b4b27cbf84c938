import { z } from 'zod'
import { outputVariable } from '../common/fields'
import { lookupIdMethodField, objectTypeField } from '../../crm/input'

export const CrmLookupInput = z.strictObject({
  object_type: objectTypeField,
  object_id: z.string().trim().min(1).max(512).describe('The object: its CRM ID, a contact email or a company domain (may be a {{variable}} reference)'),
  identification_method: lookupIdMethodField,
  properties: z.string().max(20_000).optional().describe('Properties to return: comma list ("email,firstname") or JSON array; empty returns a default set for the object type'),
  associations: z.string().max(2_000).optional().describe('Object types whose associated ids to return, comma list or JSON array (e.g. "deals,companies")'),
  output_variable_name: outputVariable('retrieved_object'),
})

export const CrmLookupOutput = z.object({
  provider: z.enum(['hubspot', 'builtin']).describe('Which CRM answered: the connected HubSpot portal or the built-in CRM'),
  object_type: z.string(),
  id: z.string().describe('CRM ID (hs_object_id)'),
  identified_by: z.enum(['id', 'email', 'domain']).describe('How object_id was read: a CRM ID, a contact email or a company domain (said or inferred from its shape)'),
  properties: z.record(z.string(), z.string().nullable()).describe('Asked properties, flat; null when unset'),
  createdAt: z.string(),
  updatedAt: z.string(),
  archived: z.boolean(),
  associations: z.record(z.string(), z.array(z.string())).optional().describe('Associated ids per asked object type'),
})
