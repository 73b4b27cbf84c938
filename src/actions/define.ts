import type { z } from 'zod'
import type { ActionContext } from '../runtime/context'
import type { Integration } from '../runtime/integrations'

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

/**
 * Declares an action. Register it with one line in `registry.ts`.
 * @example export const ping = defineAction({ name: 'ping', summary: 'Ping', input: z.strictObject({}), hints: { readOnly: true }, mode: 'inline', run: async () => ({ ok: true }) })
 */
export function defineAction<I extends z.ZodType, O>(def: ActionDefinition<I, O>): ActionDefinition<I, O> {
  return def
}

/** Any registered action, with its types erased. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAction = ActionDefinition<z.ZodType, any>
