import { countExecution, getRunnableAgent, type RunnableAgent, type Viewer } from '../db/agents'
import { ApiError, type ErrorDetail } from '../http/errors'
import type { ActionContext } from '../runtime/context'
import { resolveReferences } from '../runtime/templates'
import { agentScope, assertMayRun } from './access'
import { convertParam, type Parameters, type Workflow } from './schema'
import { JsonTooDeepError, parseJson } from '../lib/json-depth'
import { ownValue } from '../lib/objects'

/**
 * The agent a caller asked for, if it may see it; otherwise 404 (never revealing that it exists).
 * With `publicOnly` (asked from a step of another account's agent), only a public agent.
 */
export async function loadAgent(db: D1Database, viewer: Viewer, id: string, publicOnly = false): Promise<RunnableAgent> {
  const found = await getRunnableAgent(db, viewer, id)
  const agent = found && (!publicOnly || found.visibility === 'public') ? found : null
  if (!agent) throw new ApiError('NOT_FOUND', `Agent "${id.slice(0, 64)}" not found`, [{ path: '/id', message: 'No agent with this id that you can see' }])
  return agent
}

/** Parses `input`/`user_input` (object or JSON text) into a parameter object. */
export function parseAgentInput(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {}
  let parsed: unknown = value
  if (typeof value === 'string') {
    try {
      parsed = parseJson(value)
    } catch (err) {
      // Not the parser's own message: it quotes the text, which may hold a secret parameter.
      const why = err instanceof JsonTooDeepError ? err.message : 'Expected a JSON object or its text'
      throw new ApiError('VALIDATION_FAILED', `${field} is not valid JSON text`, [{ path: `/${field}`, message: why }])
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ApiError('VALIDATION_FAILED', `${field} must be an object of the agent's parameters`, [{ path: `/${field}`, message: 'Expected an object' }])
  }
  return parsed as Record<string, unknown>
}

/**
 * Validates parameters against the agent's schema: unknown or missing ones, wrong types and values
 * outside an enum are 400s listing each; defaults fill the rest.
 */
export function validateAgentParams(parameters: Parameters, input: Record<string, unknown>, field: string): Record<string, unknown> {
  const details: ErrorDetail[] = []
  const out: Record<string, unknown> = {}
  // Own keys on both sides: "toString" is no declared parameter, and an absent "constructor" parameter is absent.
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(parameters.properties, key)) details.push({ path: `/${field}/${key}`, message: `Unknown parameter "${key}"` })
  }
  for (const [name, p] of Object.entries(parameters.properties)) {
    const raw = ownValue(input, name)
    if (raw === undefined || raw === null) {
      if (p.default !== undefined) out[name] = convertParam(p.type, p.default)
      else if (parameters.required.includes(name)) details.push({ path: `/${field}/${name}`, message: `Missing required parameter "${name}"` })
      continue
    }
    const value = convertParam(p.type, raw)
    if (value === undefined)
      details.push({ path: `/${field}/${name}`, message: `Expected ${p.type === 'integer' ? `an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}` : `a ${p.type}`}` })
    else if (p.enum && !p.enum.includes(value as string)) details.push({ path: `/${field}/${name}`, message: `Must be one of: ${p.enum.join(', ')}` })
    else out[name] = value
  }
  if (details.length) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Invalid agent parameters: ${details
        .map((d) => d.message)
        .slice(0, 5)
        .join('; ')}`,
      details,
    )
  }
  return out
}

/**
 * Refuses an agent that would reach an integration of the caller it was not allowed, before the run
 * is created. runWorkflow checks again when it starts: in the same request from the same read of the
 * agent and the caller's grant, in the Queue consumer from the agent and grant as they are then.
 */
export async function checkAgentAccess(ctx: ActionContext, agent: RunnableAgent): Promise<void> {
  await assertMayRun(ctx, agent, await agentScope(ctx, agent))
}

/**
 * Runs an agent's workflow in a scope of its own: each step's input is resolved from the agent's
 * parameters and earlier steps' results only, run as a child run (memoized, so a retried run never
 * repeats a finished step) that sees the agent run's private variables and the integrations the
 * caller allowed it; then the declared output is resolved. The execution is counted once per run.
 */
export async function runWorkflow(ctx: ActionContext, agent: RunnableAgent, params: Record<string, unknown>): Promise<unknown> {
  const workflow = JSON.parse(agent.workflow) as Workflow
  const scope = await agentScope(ctx, agent)
  await assertMayRun(ctx, agent, scope)
  const steps: Record<string, unknown> = {}
  for (const step of workflow.steps) {
    const input = resolveReferences(step.input, { input: params, steps }, ['workflow', 'steps', step.id, 'input'], ctx.config.maxResolvedInputBytes) as Record<string, unknown>
    await ctx.progress({ agent: agent.id, step: step.id, steps_done: Object.keys(steps).length, steps_total: workflow.steps.length })
    steps[step.id] = await ctx.invoke(step.action, input, step.id, scope, step.input)
  }
  const lastId = workflow.steps[workflow.steps.length - 1].id
  const output = resolveReferences(workflow.output ?? `{{steps.${lastId}}}`, { input: params, steps }, ['workflow', 'output'], ctx.config.maxResolvedInputBytes)
  await ctx.step('count_execution', async () => {
    await ctx.write([countExecution(ctx.db, agent.id)])
    return true
  })
  return output
}
