import { inferRef, parseObjectTypeList, parsePropertyNames, parseRef } from '../../crm/input'
import { openCrm } from '../../crm/service'
import { DEFAULT_PROPERTIES } from '../../crm/types'
import { defineAction } from '../define'
import { CrmLookupInput, CrmLookupOutput } from './schema'

/** Looks up one CRM object by id, a contact's email or a company's domain. */
export const crmLookupObjectAction = defineAction({
  name: 'crm.v2.lookup_object',
  summary: 'Look up a CRM object',
  description:
    'Reads one CRM object (contacts, companies, deals, tickets, calls, emails, meetings, notes, tasks) by CRM ID, a contact by email or a company by domain, from the connected HubSpot portal or, with none connected, the built-in CRM. Without identification_method, object_id is read by its shape (digits: CRM ID; an email: contact; a domain: company). Returns flat properties and, when asked, associated ids per object type. `provider` says which CRM answered, `identified_by` how object_id was read.',
  input: CrmLookupInput,
  output: CrmLookupOutput,
  hints: { readOnly: true, idempotent: true },
  integrations: ['crm'],
  mode: 'inline',
  examples: [
    { object_type: 'contacts', object_id: 'ada@example.com', identification_method: 'Email Address (Contacts only)', properties: 'email,firstname,lastname', associations: 'companies,deals' },
    { object_type: 'companies', object_id: '1234', properties: '["name","domain"]' },
    { object_type: 'contacts', object_id: 'ada@example.com', properties: 'email,firstname' },
  ],
  async run(input, ctx) {
    const ref = input.identification_method ? parseRef(input.object_type, input.identification_method, input.object_id, 'object_id') : inferRef(input.object_type, input.object_id, 'object_id')
    const asked = parsePropertyNames(input.properties)
    const associations = parseObjectTypeList(input.associations)
    const crm = await openCrm(ctx)
    const record = await crm.lookup({
      objectType: input.object_type,
      ref,
      properties: asked.length ? asked : DEFAULT_PROPERTIES[input.object_type],
      associations,
    })
    return { provider: crm.provider, object_type: input.object_type, identified_by: ref.by, ...record }
  },
})
