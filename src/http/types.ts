import type { Config } from '../config'
import type { Env } from '../env'
import type { Admission } from '../runtime/context'

/** Hono generics for this app: bindings and per-request variables. */
export interface AppEnv {
  Bindings: Env
  Variables: {
    requestId: string
    config: Config
    principal: Principal
    /** The request's rate-limit count (set by the rate-limit middleware). */
    admission: Admission
  }
}

/** Who is calling: the account behind the bearer token, with its teams. */
export interface Principal {
  accountId: string
  accountName: string
  tokenId: string
  teamIds: string[]
  /** The account's rate-limit override (null: the settings' defaults), for all its tokens together. */
  rateLimitPerMinute: number | null
  rateLimitPerDay: number | null
  /** The token's own lower limits (null: only the account's). */
  tokenRateLimitPerMinute: number | null
  tokenRateLimitPerDay: number | null
  /**
   * Version of the agent catalog when the request arrived (`<epoch>:<version>:<index version>`); lets
   * search reuse cached pages and phrase relevance exactly.
   */
  catalogVersion: string | null
  /** The search vocabulary's point then (`<epoch>:<index version>:<vocabulary version>`), read with it. */
  vocabularyPoint: string | null
}
