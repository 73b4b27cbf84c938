import { parseAssociations, parsePropertyValues, parseRef } from '../../crm/input'
import { associationLabel } from '../../crm/builtin'
import { openCrm } from '../../crm/service'
import { defineAction } from '../define'
import { CrmUpdateInput, CrmUpdateOutput } from './schema'

/** Updates one CRM object's properties and adds associations. */
export const crmUpdateObjectAction = defineAction({
  name: 'crm.v2.update_object',
  summary: 'Update a CRM object',
  description:
    'Sets properties of one CRM object identified by CRM ID, a contact by email or a company by domain, and adds associations, in the connected HubSpot portal or, with none connected, the built-in CRM. A contact by email is created when none exists (both CRMs); a company by domain is created in the built-in CRM only (HubSpot cannot upsert on domain). dry_run shows the exact requests without writing. `provider` says which CRM was used.',
  input: CrmUpdateInput,
  output: CrmUpdateOutput,
  hints: { sideEffect: true, idempotent: true },
  integrations: ['crm'],
  mode: 'inline',
  examples: [
    { object_type: 'contacts', identification_method: 'Email Address (Contacts only)', identifier_value: 'ada@example.com', properties: '{"firstname":"Ada","lastname":"Lovelace"}' },
    { object_type: 'deals', identifier_value: '42', properties: 'dealstage=closedwon\namount=1200', associations: '[{"to_object_type":"companies","to_object_id":"7"}]', dry_run: true },
  ],
  async run(input, ctx) {
    const ref = parseRef(input.object_type, input.identification_method, input.identifier_value, 'identifier_value')
    const properties = parsePropertyValues(input.properties)
    const associations = parseAssociations(input.associations)
    const crm = await openCrm(ctx)
    const outcome = await crm.update({ objectType: input.object_type, ref, properties, associations, dryRun: input.dry_run })
    const base = { provider: crm.provider, object_type: input.object_type }
    if ('dry_run' in outcome) return { ...base, ...outcome }
    const out: Record<string, unknown> = { ...base, ...outcome }
    if (associations.length) {
      out.associations = associations.map((a) => ({
        to_object_type: a.toObjectType,
        to_object_id: a.toObjectId,
        association_type: associationLabel(a),
      }))
    }
    return out
  },
})
