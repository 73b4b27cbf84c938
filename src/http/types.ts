import type { Principal } from '../auth/principal'
import type { Config } from '../config'
import type { Env } from '../env'
import type { RateLimitAdmission } from './rate-limit'

/** Hono generics for this app: bindings and per-request variables. */
export interface AppEnv {
  Bindings: Env
  Variables: {
    requestId: string
    config: Config
    principal: Principal
    /** The request's rate-limit count (set by the rate-limit middleware). */
    admission: RateLimitAdmission
  }
}
