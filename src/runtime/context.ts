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

/**
 * The rate-limit count of an HTTP request. An action that only reads D1 may send the count with its
 * first read (one round trip instead of two); everything else is counted before the action runs.
 */
export interface Admission {
  /** Counts the request unless it already was; throws RATE_LIMITED when it is over a limit. */
  admit(): Promise<void>
  /** Runs read-only statements in one batch, with the count when it is still to be made. */
  read(statements: D1PreparedStatement[]): Promise<D1Result<Record<string, unknown>>[]>
  /** True once the request was refused. */
  readonly refused: boolean
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
  /**
   * Runs read-only statements in one D1 batch. In an action that declares `countWithFirstRead`, the
   * first call also counts the request against its rate limit, and throws RATE_LIMITED over it.
   */
  read(statements: D1PreparedStatement[]): Promise<D1Result<Record<string, unknown>>[]>
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
