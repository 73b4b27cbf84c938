import type { z } from 'zod'
import type { Config } from '../config'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import type { Integration } from './integrations'
import type { Logger } from './log'
import type { SecretSet } from './secrets'

/** The account an action runs for. */
export interface RunAccount {
  id: string
  teamIds: string[]
  /** Agent catalog version read with the token (HTTP requests only); enables exact search caching. */
  catalogVersion?: string | null
  /** The search vocabulary's point read with it. */
  vocabularyPoint?: string | null
}

/**
 * The agent whose workflow step is running: what it may see and touch of the account that invoked it.
 * Its steps read and write variables only in `workflowId`, a scope of the agent run itself that no
 * Workflow-Id header can name.
 */
export interface AgentScope {
  id: string
  name: string
  /** The agent, or an agent that invoked it, belongs to another account: catalog reads see public agents only. */
  foreign: boolean
  /** Integrations of the invoking account its steps may use (all for the caller's own or a trusted agent). */
  allowed: readonly Integration[]
  /** The agent run's private variable scope. */
  workflowId: string
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
  /** The Workflow-Id scope of the call (in an agent's step: the agent run's private scope), or null. */
  workflowId: string | null
  /** The agent whose step this is, or null for a call made directly. */
  agent: AgentScope | null
  /** True when running in the Queue consumer. */
  queued: boolean
  /** The registered actions (workflow steps, their hints and integrations). */
  actions: ActionLookup
  db: D1Database
  /**
   * Runs read-only statements in one D1 batch. In an action that declares `countWithFirstRead`, the
   * first call also counts the request against its rate limit, and throws RATE_LIMITED over it.
   */
  read(statements: D1PreparedStatement[]): Promise<D1Result<Record<string, unknown>>[]>
  /**
   * Runs writes in one D1 batch; in a run written once when it ends (inline, no Idempotency-Key),
   * they are held and sent with its record in one batch (one transaction) instead.
   */
  write(statements: D1PreparedStatement[]): Promise<void>
  cache: KVNamespace
  /** The guarded outbound client (SSRF checks, timeouts, size caps, retries). */
  fetch: GuardedFetch
  /** Scrubs the run's secrets from every line it writes. */
  log: Logger
  /**
   * The run tree's secret values (by schema type); an action adds any credential it obtains (a
   * session token) so no record or log of the run keeps it.
   */
  secrets: SecretSet
  /**
   * Aborted at the run's deadline (INLINE_RUN_TIMEOUT_SECONDS in a request, QUEUED_RUN_TIMEOUT_SECONDS
   * per attempt in the consumer), with an UPSTREAM_TIMEOUT ApiError as its reason. `ctx.fetch` and model
   * calls pass it on, so a call in flight then ends at once; an agent's steps share their run's signal.
   */
  signal: AbortSignal
  /** Records progress on the run (visible at GET /v1/runs/:id) and keeps its lease alive. */
  progress(update: Record<string, unknown>): Promise<void>
  /** Runs `fn` once per run: a retried run gets the stored result instead of repeating it. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>
  /**
   * Runs another action as a child run: a step of `agent`'s workflow, in the agent's scope. Validates
   * its input; `template` is the input before references were resolved, so whole-field references
   * can be fitted to the schema.
   */
  invoke(action: string, input: Record<string, unknown>, stepName: string, agent: AgentScope, template?: Record<string, unknown>): Promise<unknown>
  /** Adds model token usage to the run's totals. */
  addUsage(usage: Record<string, number>): void
  waitUntil(promise: Promise<unknown>): void
}

// The action types live here, beside the context their `run` takes, so that both are one leaf of
// the import graph: the runtime, the agents code and every action import them, and they import none of those.

/** How an action behaves, for MCP annotations, docs and retries. */
export interface ActionHints {
  /** Reads only; calling it changes nothing. */
  readOnly?: boolean
  /** Changes state outside the service (posts, CRM writes). */
  sideEffect?: boolean
  /** Calling it twice with the same input has the effect of calling it once. */
  idempotent?: boolean
  /** May overwrite or remove data. */
  destructive?: boolean
}

export type ActionMode = 'inline' | 'queued'

/** Wire form of a result: `response` plus optional top-level fields (the transcript's `metadata`). */
export interface Presented {
  response: unknown
  metadata?: unknown
}

/** One action: the single source for its route, validation, docs, OpenAPI and MCP tool. */
export interface ActionDefinition<I extends z.ZodType = z.ZodType, O = unknown> {
  name: string
  summary: string
  description?: string
  input: I
  /** Documented result shape (for OpenAPI and tool descriptors). */
  output?: z.ZodType
  hints: ActionHints
  /**
   * Integrations of the calling account the action uses (its CRM, its own model keys). An agent's
   * declared integrations are the union over its steps; another account's agent needs the caller's
   * grant for each. Opening an integration is checked again where it happens (`useIntegration`).
   */
  integrations?: readonly Integration[]
  /** `inline` answers in the request; `queued` runs in the Queue consumer. A function decides per input. */
  mode: ActionMode | ((input: z.output<I>, ctx: ActionContext) => ActionMode | Promise<ActionMode>)
  /**
   * The action's only effects are D1 reads through `ctx.read`, so an inline call may count the
   * request against its rate limit in the same batch as its first read instead of a round trip of
   * its own. (Anything with another effect is counted before it runs.)
   */
  countWithFirstRead?: boolean
  /** Checks that need I/O (a referenced record exists ...), run before the run is created or queued. */
  precheck?: (input: z.output<I>, ctx: ActionContext) => Promise<void>
  /**
   * Values of this input that are secret beyond the fields its schema marks secret (an agent's secret
   * parameters). Read before anything is stored; every record of the run tree then has them scrubbed.
   */
  secretValues?: (input: z.output<I>, ctx: ActionContext) => Promise<unknown[]>
  /** The action reads or writes the Workflow-Id scope itself, so a call without the header is a 400. */
  requiresWorkflowId?: boolean
  /** Example request bodies for docs. */
  examples?: Record<string, unknown>[]
  /** Splits a result into wire fields; default `{response: output}`. */
  present?: (output: O) => Presented
  run(input: z.output<I>, ctx: ActionContext): Promise<O>
}

/** Any registered action, with its types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAction = ActionDefinition<z.ZodType, any>

/**
 * The registry as the runtime sees it: every action by name. Handed down by the caller that starts a
 * run (routes, MCP, the queue consumer), so no module below the registry imports it.
 */
export type ActionLookup = (name: string) => AnyAction | undefined
