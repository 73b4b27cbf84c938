import type { Config } from '../config'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import type { Logger } from './log'

/** The account an action runs for. */
export interface RunAccount {
  id: string
  teamIds: string[]
  /** Agent catalog version read with the token (HTTP requests only); enables exact search caching. */
  catalogVersion?: string | null
}

/** Everything an action may use: no action reaches D1, KV or the network another way. */
export interface ActionContext {
  env: Env
  config: Config
  account: RunAccount
  runId: string
  requestId: string
  /** The Workflow-Id scope of the call, or null. */
  workflowId: string | null
  /** True when running in the Queue consumer. */
  queued: boolean
  db: D1Database
  cache: KVNamespace
  /** The guarded outbound client (SSRF checks, timeouts, size caps, retries). */
  fetch: GuardedFetch
  log: Logger
  signal: AbortSignal
  /** Records progress on the run (visible at GET /v1/runs/:id) and keeps its lease alive. */
  progress(update: Record<string, unknown>): Promise<void>
  /** Runs `fn` once per run: a retried run gets the stored result instead of repeating it. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>
  /**
   * Runs another action as a child run (workflow steps), validating its input. `template` is the
   * input before references were resolved, so whole-field references can be fitted to the schema.
   */
  invoke(action: string, input: Record<string, unknown>, stepName: string, template?: Record<string, unknown>): Promise<unknown>
  /** Adds model token usage to the run's totals. */
  addUsage(usage: Record<string, number>): void
  waitUntil(promise: Promise<unknown>): void
}
