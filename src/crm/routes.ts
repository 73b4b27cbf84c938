import { z } from 'zod'
import { readValidBody } from '../http/body'
import { ApiError } from '../http/errors'
import { toApiError } from '../http/map-error'
import { Router } from '../http/route-table'
import { createGuardedFetch } from '../providers/web/fetch'
import { userAgent } from '../runtime/execute'
import { SecretSet } from '../runtime/secrets'
import { BuiltinCrm } from './builtin'
import { connectHubSpot, connectionView, describeConnection, disconnect, guessTokenType, verifyHubSpotToken } from './connection'
import { normalizeObjectType, parseAssociations, parsePropertyValues } from './input'
import { OBJECT_TYPES, type ObjectType } from './types'

export const ConnectBody = z.strictObject({
  provider: z.literal('hubspot').describe('The CRM to connect; "hubspot"'),
  access_token: z
    .string()
    .trim()
    .min(8)
    .max(4096)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .describe('HubSpot private-app token (pat-...) or OAuth access token; stored encrypted, never shown again'),
  token_type: z.enum(['private_app', 'oauth']).optional().describe('Kind of token; default guessed from the "pat-" prefix'),
  verify: z.boolean().default(true).describe('Check the token against HubSpot before storing it. Default true.'),
})

export const CreateObjectBody = z.strictObject({
  properties: z.union([z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])), z.string().max(200_000)]).describe('Properties: an object or its JSON text, or key=value lines'),
  associations: z
    .union([z.array(z.unknown()).max(100), z.string().max(50_000)])
    .optional()
    .describe('JSON array of {to_object_type, to_object_id, association_type?}'),
})

const typeParam = { type: { description: 'Object type', schema: { enum: [...OBJECT_TYPES] } } }

const ObjectListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100; default 20'),
  after: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional()
    .describe('CRM ID to start after'),
})

function objectTypeParam(value: string): ObjectType {
  const t = normalizeObjectType(value)
  if (!t) throw new ApiError('NOT_FOUND', `Unknown CRM object type "${value.slice(0, 40)}"; use ${OBJECT_TYPES.join(', ')}`)
  return t
}

/**
 * `/v1/integrations/crm`: connect, show and disconnect the account's HubSpot portal, and manage
 * records of the built-in CRM directly (`/builtin/objects/:type`).
 */
export function crmRoutes() {
  const app = new Router('Integrations')

  app.get('/', { operationId: 'getCrm', summary: 'The CRM connection (built-in CRM when none)', response: { description: 'The connection', schema: { type: 'object' } } }, async (c) => {
    const info = await describeConnection(c.env.DB, c.get('principal').accountId)
    return c.json({ status: 200, response: connectionView(info, c.env) })
  })

  app.put(
    '/',
    {
      operationId: 'connectCrm',
      summary: 'Connect a HubSpot portal (token stored encrypted)',
      body: { schema: ConnectBody, examples: [{ provider: 'hubspot', access_token: 'pat-na1-...' }] },
      response: { description: 'The connection', schema: { type: 'object' } },
      errors: [502, 503, 504],
    },
    async (c) => {
      const body = await readValidBody(c, ConnectBody)
      const config = c.get('config')
      let warnings: string[] = []
      let verifiedAt: string | null = null
      if (body.verify) {
        // HubSpot's answer may quote the token: it never reaches the stored warnings or the error.
        const secrets = new SecretSet()
        secrets.add(body.access_token)
        const fetch = createGuardedFetch({ userAgent: userAgent(config), allowPrivate: config.allowPrivateFetch, dns: config.outboundDns, secrets })
        try {
          warnings = (await verifyHubSpotToken(fetch, c.env, body.access_token)).map((w) => secrets.scrubText(w))
        } catch (err) {
          const api = toApiError(err)
          if (!api) throw err
          throw new ApiError(api.code, secrets.scrubText(api.message), secrets.scrub(api.details), api.headers)
        }
        verifiedAt = new Date().toISOString()
      }
      const info = await connectHubSpot(c.env.DB, c.env, c.get('principal').accountId, body.access_token, body.token_type ?? guessTokenType(body.access_token), verifiedAt, warnings)
      return c.json({ status: 200, response: connectionView(info, c.env) })
    },
  )

  app.delete(
    '/',
    {
      operationId: 'disconnectCrm',
      summary: 'Disconnect the CRM',
      response: { description: 'Disconnected', schema: { type: 'object', required: ['disconnected'], properties: { disconnected: { type: 'boolean' } } } },
    },
    async (c) => {
      const removed = await disconnect(c.env.DB, c.get('principal').accountId)
      return c.json({ status: 200, response: { ...connectionView(null, c.env), disconnected: removed } })
    },
  )

  app.post(
    '/builtin/objects/:type',
    {
      operationId: 'createBuiltinCrmObject',
      summary: 'Create a record in the built-in CRM',
      params: typeParam,
      body: { schema: CreateObjectBody, examples: [{ properties: { email: 'ada@example.com', firstname: 'Ada' } }] },
      response: { status: 201, description: 'The record', schema: { type: 'object' } },
      errors: [404, 409],
    },
    async (c) => {
      const type = objectTypeParam(c.req.param('type'))
      const body = await readValidBody(c, CreateObjectBody)
      const properties = parsePropertyValues(body.properties)
      const associations = parseAssociations(typeof body.associations === 'string' ? body.associations : body.associations ? JSON.stringify(body.associations) : undefined)
      const record = await new BuiltinCrm(c.env.DB, c.get('principal').accountId).create(type, properties, associations)
      return c.json({ status: 201, response: { provider: 'builtin', object_type: type, ...record } }, 201)
    },
  )

  app.get(
    '/builtin/objects/:type',
    {
      operationId: 'listBuiltinCrmObjects',
      summary: 'List records of the built-in CRM',
      params: typeParam,
      query: ObjectListQuery,
      response: { description: 'A page of records', schema: { type: 'object' } },
      errors: [404],
    },
    async (c) => {
      const type = objectTypeParam(c.req.param('type'))
      const limitText = c.req.query('limit') ?? '20'
      const afterText = c.req.query('after') ?? '0'
      if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
        throw new ApiError('VALIDATION_FAILED', 'limit must be an integer from 1 to 100', [{ path: 'query:limit', message: 'Integer 1-100' }])
      }
      if (!/^\d{1,20}$/.test(afterText)) throw new ApiError('VALIDATION_FAILED', 'after must be a CRM ID', [{ path: 'query:after', message: 'Numeric id' }])
      const page = await new BuiltinCrm(c.env.DB, c.get('principal').accountId).list(type, Number(afterText), Number(limitText))
      return c.json({ status: 200, response: { provider: 'builtin', object_type: type, ...page } })
    },
  )

  app.delete(
    '/builtin/objects/:type/:id',
    {
      operationId: 'deleteBuiltinCrmObject',
      summary: 'Delete a built-in CRM record',
      params: { ...typeParam, id: { description: 'CRM ID', schema: { type: 'string', pattern: '^\\d{1,20}$' } } },
      response: { description: 'Deleted', schema: { type: 'object' } },
      errors: [404],
    },
    async (c) => {
      const type = objectTypeParam(c.req.param('type'))
      const id = c.req.param('id')
      if (!/^\d{1,20}$/.test(id)) throw new ApiError('NOT_FOUND', `Object not found: no ${type} with id ${id.slice(0, 40)}`)
      await new BuiltinCrm(c.env.DB, c.get('principal').accountId).remove(type, id)
      return c.json({ status: 200, response: { provider: 'builtin', object_type: type, id, deleted: true } })
    },
  )

  return app
}
