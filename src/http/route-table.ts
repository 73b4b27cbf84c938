import { Hono, type Env as HonoEnv, type Handler, type MiddlewareHandler } from 'hono'
import { TrieRouter } from 'hono/router/trie-router'
import { z } from 'zod'
import { ApiError } from './errors'
import type { AppEnv } from './types'
import { issuesToDetails, summarize } from './validate'

/** A JSON Schema (2020-12) written out by hand, for shapes zod does not describe. */
export type JsonSchema = Record<string, unknown>
/** Who may call a route: an account token, the operator's ADMIN_TOKEN, or anyone. */
export type Security = 'bearer' | 'admin' | 'none'
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** `{"$ref": "#/components/schemas/<name>"}`: a shared schema of the OpenAPI document. */
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })

/** One documented response. JSON responses are the envelope around `schema` unless `content` is given. */
export interface ResponseSpec {
  description: string
  /** The envelope's `response` field. */
  schema?: z.ZodType | JsonSchema
  /** Top-level fields beside `response` (`next_cursor`). */
  extra?: Record<string, JsonSchema>
  /** Media types and their schemas, for bodies that are not the envelope (HTML, images, JSON-RPC). */
  content?: Record<string, { schema: JsonSchema }>
  /** Response headers beyond x-request-id and the rate-limit headers. */
  headers?: Record<string, JsonSchema>
}

/** A page of a cursor-paged list: the items as the envelope's `response`, `next_cursor` beside it. */
export const cursorPage = (description: string, item: string): ResponseSpec => ({
  description,
  schema: { type: 'array', items: schemaRef(item) },
  extra: { next_cursor: { type: ['string', 'null'], description: 'cursor of the next page; null on the last' } },
})

/**
 * What the OpenAPI document says about one route. Everything the route's wrapper enforces is derived
 * from it: the query parameters it accepts (any other is a 400), and with the mount, the auth errors.
 */
export interface OperationSpec {
  operationId: string
  summary: string
  description?: string
  /** Default: the router's tag. */
  tags?: string[]
  /** Path parameters by name (every `:name` of the path; undescribed ones are plain strings). */
  params?: Record<string, { description: string; schema?: JsonSchema }>
  /** The query parameters the route reads; any other one is refused with a 400 naming it. */
  query?: z.ZodObject
  /** Header parameters (OpenAPI parameter objects or references). */
  headers?: JsonSchema[]
  body?: { schema: z.ZodType | JsonSchema; required?: boolean; examples?: unknown[] }
  /** The success answer; `status` defaults to 200. */
  response: ResponseSpec & { status?: number }
  /** Other non-error answers by status (`202`). */
  alternatives?: Record<string, ResponseSpec>
  /**
   * Error statuses of this route beyond those every route shares: 400 (query), 413/415 with a body,
   * 401/429/500 for tokens.
   */
  errors?: number[]
  /** `x-` extensions of the operation. */
  extensions?: Record<string, unknown>
}

/** A route as defined by its module, before it is mounted under a prefix. */
export interface RouteDef {
  method: Method
  path: string
  spec: OperationSpec
}

/** A mounted route: full Hono path (`/v1/agents/:id`), its documentation and who may call it. */
export interface MountedRoute extends RouteDef {
  security: Security
}

/** Refuses query parameters the route does not declare (and malformed ones) with a 400 naming each. */
export function queryGuard(schema?: z.ZodObject): MiddlewareHandler {
  const strict = z.strictObject(schema?.shape ?? {})
  return async (c, next) => {
    const result = strict.safeParse(c.req.query())
    if (!result.success) {
      const details = issuesToDetails(result.error.issues).map((d) => {
        const name = d.path.replace(/^\//, '')
        return { path: `query:${name}`, message: d.message.startsWith('Unknown field') ? `Unknown query parameter "${name}"` : d.message }
      })
      throw new ApiError('VALIDATION_FAILED', summarize(details), details)
    }
    await next()
  }
}

/**
 * A router whose every route carries its OpenAPI operation: `router.get(path, spec, handler)`.
 * Mount it with `RouteTable.mount`; the document, the 405 answers and the contract test read the table.
 * @example const r = new Router('Runs'); r.get('/:id', { operationId: 'getRun', summary: 'Read a run', response: { description: 'The run' } }, (c) => c.json(...))
 */
export class Router<E extends HonoEnv = AppEnv> {
  readonly app = new Hono<E>()
  readonly routes: RouteDef[] = []

  constructor(readonly tag: string) {}

  get<P extends string>(path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    return this.add('get', path, spec, handler)
  }
  post<P extends string>(path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    return this.add('post', path, spec, handler)
  }
  put<P extends string>(path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    return this.add('put', path, spec, handler)
  }
  patch<P extends string>(path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    return this.add('patch', path, spec, handler)
  }
  delete<P extends string>(path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    return this.add('delete', path, spec, handler)
  }

  private add<P extends string>(method: Method, path: P, spec: OperationSpec, handler: Handler<E, P>): this {
    this.routes.push({ method, path, spec: { tags: [this.tag], ...spec } })
    this.app.on(method.toUpperCase(), path, queryGuard(spec.query) as MiddlewareHandler<E>, handler)
    return this
  }
}

/** Joins a mount prefix and a router path the way Hono does (`/v1/me` + `/` = `/v1/me`). */
export function joinPath(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`.replace(/\/+$/, '')
  return joined === '' ? '/' : joined
}

/** Every documented route of the app, in mount order: the source of the OpenAPI document's non-action half. */
export class RouteTable {
  readonly routes: MountedRoute[] = []

  /** Mounts `router` under `prefix` on `app` (through `wrap`, e.g. auth) and records its routes. */
  mount<E extends HonoEnv>(app: Hono<E>, prefix: string, router: Router<E>, security: Security, wrap: (sub: Hono<E>) => Hono<E> = (sub) => sub): void {
    for (const r of router.routes) this.routes.push({ ...r, path: joinPath(prefix, r.path), security })
    app.route(prefix, wrap(router.app))
  }
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * 405 with `Allow` for a path some route serves under other methods, before any auth runs; paths no
 * route serves fall through to the 404. Allowed methods come from Hono's own route list (every route
 * registered with a method; `use` middleware is `ALL`), so no list is kept by hand. HEAD goes with GET
 * (Hono answers it from the GET route).
 */
export function methodGuard(routes: () => readonly { method: string; path: string }[]): MiddlewareHandler<AppEnv> {
  let router: TrieRouter<string> | undefined
  return async (c, next) => {
    if (!router) {
      router = new TrieRouter<string>()
      for (const r of routes()) if (r.method !== 'ALL') router.add('ALL', r.path, r.method.toUpperCase())
    }
    const [matches] = router.match('GET', c.req.path)
    if (matches.length === 0) return next()
    const allowed = new Set(matches.map(([method]) => method))
    if (allowed.has('GET')) allowed.add('HEAD')
    if (allowed.has(c.req.method.toUpperCase())) return next()
    const allow = [...allowed].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)).join(', ')
    const path = c.req.path.slice(0, 200)
    throw new ApiError('METHOD_NOT_ALLOWED', `Method ${c.req.method.slice(0, 20)} is not allowed on ${path}; use ${allow}`, [], { Allow: allow })
  }
}
