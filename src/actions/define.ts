import type { z } from 'zod'
import type { ActionDefinition } from '../runtime/context'

export type { ActionDefinition, ActionHints, ActionLookup, ActionMode, AnyAction, Presented } from '../runtime/context'

/**
 * Declares an action. Register it with one line in `registry.ts`.
 * @example export const ping = defineAction({ name: 'ping', summary: 'Ping', input: z.strictObject({}), hints: { readOnly: true }, mode: 'inline', run: async () => ({ ok: true }) })
 */
export function defineAction<I extends z.ZodType, O>(def: ActionDefinition<I, O>): ActionDefinition<I, O> {
  return def
}
