import { z } from 'zod'
import { flag, outputVariable } from '../common/fields'
import { idMethodField, objectTypeField } from '../../crm/input'

export const CrmUpdateInput = z.strictObject({
  object_type: objectTypeField,
  identification_method: idMethodField('identifier_value'),
  identifier_value: z.string().trim().min(1).max(512).describe('The object to update: its CRM ID, a contact email or a company domain, per identification_method'),
  properties: z.string().max(200_000).optional().describe('Properties to set: a JSON object ({"firstname":"Ada","phone":"+44..."}) or key=value lines; "" clears a value. At least one is required.'),
  associations: z
    .string()
    .max(50_000)
    .optional()
    .describe('Associations to add: JSON array of {"to_object_type","to_object_id","association_type"?}; association_type is a type id or "USER_DEFINED:<id>", default the unlabeled association'),
  dry_run: flag('Return the exact request(s) that would be made, without writing anything.', false),
  output_variable_name: outputVariable('updated_object'),
})

export const CrmUpdateOutput = z.object({
  provider: z.enum(['hubspot', 'builtin']).describe('Which CRM was written: the connected HubSpot portal or the built-in CRM'),
  object_type: z.string(),
  id: z.string().nullable().describe('CRM ID of the updated object (null in a dry run that would create one)'),
  properties: z.record(z.string(), z.string().nullable()).optional().describe('The written properties as stored, plus hs_object_id and the timestamps'),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  created: z.boolean().optional().describe('True when an update by email/domain created the object'),
  associations: z.array(z.object({ to_object_type: z.string(), to_object_id: z.string(), association_type: z.string().nullable() })).optional(),
  dry_run: z.boolean().optional(),
  would_create: z.boolean().optional(),
  requests: z.array(z.unknown()).optional().describe('Dry run on HubSpot: the requests that would be sent'),
  operations: z.array(z.unknown()).optional().describe('Dry run on the built-in CRM: the writes that would be made'),
})
