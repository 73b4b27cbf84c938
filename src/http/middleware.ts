import type { MiddlewareHandler } from 'hono'
import { readConfig } from '../config'
import { randomBase62 } from '../lib/ids'
import type { AppEnv } from './types'

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/

/** Echoes a well-formed incoming x-request-id or makes one; sets it on every response. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header('x-request-id')
  const id = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`
  c.set('requestId', id)
  c.set('config', readConfig(c.env))
  await next()
  c.res.headers.set('x-request-id', id)
}
