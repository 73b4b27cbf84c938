import { z } from 'zod'
import { getVariables, putVariable } from '../../db/variables'
import { ApiError } from '../../http/errors'
import { decodeJson, encodeJson } from '../../runtime/blobs'
import { VARIABLE_NAME } from '../common/fields'
import { defineAction } from '../define'

const variableName = z.string().max(64).regex(VARIABLE_NAME, 'must start with a letter and contain only letters, digits and underscores')

function requireScope(workflowId: string | null): string {
  if (!workflowId) throw new ApiError('VALIDATION_FAILED', 'Variables need a Workflow-Id header naming the variable scope', [{ path: '/', message: 'Missing Workflow-Id header' }])
  return workflowId
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
  mode: 'inline',
  examples: [{ name: 'company_domain', value: 'example.com' }],
  async run(input, ctx) {
    const scope = requireScope(ctx.workflowId)
    const now = Date.now()
    const text = await encodeJson(ctx.cache, `var:${ctx.account.id}:${scope}:${input.name}`, input.value ?? null)
    await putVariable(ctx.db, ctx.account.id, scope, input.name, text, now, now + ctx.config.variableTtlSeconds * 1000)
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
  mode: 'inline',
  examples: [{ name: 'company_domain' }],
  async run(input, ctx) {
    const scope = requireScope(ctx.workflowId)
    const found = await getVariables(ctx.db, ctx.account.id, scope, [input.name], Date.now())
    const text = found.get(input.name)
    if (text === undefined) throw new ApiError('NOT_FOUND', `Variable "${input.name}" is not set in workflow "${scope}" (or it expired)`)
    return { name: input.name, value: await decodeJson(ctx.cache, text) }
  },
})
