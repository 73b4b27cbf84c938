import { z } from 'zod'
import { ApiError } from '../../http/errors'
import type { ActionContext } from '../../runtime/context'
import { checkVariableFits, readVariables, writeVariable, type VariableScope } from '../../runtime/variables'
import { VARIABLE_NAME } from '../common/fields'
import { defineAction } from '../define'

const variableName = z.string().max(64).regex(VARIABLE_NAME, 'must start with a letter and contain only letters, digits and underscores')

function requireScope(ctx: ActionContext): VariableScope {
  if (!ctx.workflowId) throw new ApiError('VALIDATION_FAILED', 'Variables need a Workflow-Id header naming the variable scope', [{ path: '/', message: 'Missing Workflow-Id header' }])
  return { db: ctx.db, cache: ctx.cache, config: ctx.config, accountId: ctx.account.id, workflowId: ctx.workflowId }
}

/** Sets a workflow variable directly: the value is stored under `name` (or `output_variable_name`). */
export const storeVariableAction = defineAction({
  name: 'store_variable',
  summary: 'Store a workflow variable',
  description: 'Stores `value` (any JSON) in the Workflow-Id scope under `name`. Later calls reference it as {{name}} or {{name.path}}.',
  input: z.strictObject({
    name: variableName.describe('Variable name'),
    value: z.unknown().describe('Any JSON value; strings may hold {{...}} references resolved before storing'),
  }),
  hints: { idempotent: true, destructive: true },
  requiresWorkflowId: true,
  mode: 'inline',
  examples: [{ name: 'company_domain', value: 'example.com' }],
  /** A value over MAX_VARIABLE_BYTES or its scope's MAX_SCOPE_BYTES is refused before the run exists. */
  async precheck(input, ctx) {
    await checkVariableFits(requireScope(ctx), input.name, input.value, '/value')
  },
  async run(input, ctx) {
    await writeVariable(requireScope(ctx), input.name, input.value, Date.now(), 'refuse')
    return { name: input.name, value: input.value ?? null }
  },
})

/** Reads a workflow variable. */
export const getVariableAction = defineAction({
  name: 'get_variable',
  summary: 'Read a workflow variable',
  input: z.strictObject({
    name: variableName.describe('Variable name'),
  }),
  hints: { readOnly: true, idempotent: true },
  requiresWorkflowId: true,
  mode: 'inline',
  examples: [{ name: 'company_domain' }],
  async run(input, ctx) {
    const scope = requireScope(ctx)
    const found = await readVariables(scope, [input.name], Date.now())
    if (!found.has(input.name)) throw new ApiError('NOT_FOUND', `Variable "${input.name}" is not set in workflow "${scope.workflowId}" (or it expired)`)
    return { name: input.name, value: found.get(input.name) }
  },
})
