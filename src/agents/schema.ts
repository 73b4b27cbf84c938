import { z } from 'zod'
import { getAction } from '../actions/registry'
import { parsePath } from '../runtime/templates'
import { checkSecretSlots, markSecretParameters } from './secret-params'

/** "__proto__" is left out: as an object key in JavaScript it names the prototype, not a parameter. */
const PARAM_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]{0,63}$/
const STEP_ID = /^[A-Za-z][A-Za-z0-9_]{0,39}$/
const REFERENCE = /\{\{([^{}]{0,512})\}\}/g

/** JSON types a default may have besides text, per parameter type. */
const defaultTypes: Record<string, string[]> = { string: [], number: ['number'], integer: ['number'], boolean: ['boolean'] }

/** One agent input parameter: the JSON-schema subset the catalog supports. */
export const ParameterSchema = z
  .strictObject({
    type: z.enum(['string', 'number', 'integer', 'boolean']).describe('Parameter type'),
    description: z.string().max(2000).default('').describe('What the parameter means'),
    enum: z.array(z.string().max(200)).min(1).max(100).optional().describe('Allowed values (string parameters only)'),
    default: z
      .union([z.string().max(2000), z.number(), z.boolean()])
      .optional()
      .describe('Default value: of the parameter\'s own type (3, true) or its text ("3"); descriptors show it as text, as the spec does'),
    writeOnly: z.boolean().optional().describe('true marks a secret (a password, a key): its value is never stored, logged or echoed'),
    format: z.literal('password').optional().describe('"password" marks a secret string parameter, as writeOnly does'),
  })
  .superRefine((p, ctx) => {
    if (p.enum && p.type !== 'string') ctx.addIssue({ code: 'custom', path: ['enum'], message: 'enum is only allowed on string parameters' })
    if (p.format && p.type !== 'string') ctx.addIssue({ code: 'custom', path: ['format'], message: 'format "password" is only allowed on string parameters' })
    if (p.default !== undefined) {
      if (typeof p.default !== 'string' && !defaultTypes[p.type].includes(typeof p.default)) {
        ctx.addIssue({ code: 'custom', path: ['default'], message: `default of a ${p.type} parameter must be a ${p.type === 'integer' ? 'number' : p.type} or its text, not a ${typeof p.default}` })
      } else if (convertParam(p.type, p.default) === undefined) ctx.addIssue({ code: 'custom', path: ['default'], message: `default is not a valid ${p.type}` })
      else if (p.enum && !p.enum.includes(p.default as string)) ctx.addIssue({ code: 'custom', path: ['default'], message: 'default must be one of the enum values' })
    }
  })

export type Parameter = z.output<typeof ParameterSchema>

export const ParametersSchema = z
  .strictObject({
    type: z.literal('object').default('object'),
    properties: z.record(z.string().regex(PARAM_NAME, 'parameter names are letters, digits and underscores'), ParameterSchema).default({}),
    required: z.array(z.string()).max(100).default([]),
    additionalProperties: z.literal(false).default(false),
  })
  .superRefine((p, ctx) => {
    if (Object.keys(p.properties).length > 100) ctx.addIssue({ code: 'custom', path: ['properties'], message: 'at most 100 parameters' })
    p.required.forEach((name, i) => {
      if (!(name in p.properties)) ctx.addIssue({ code: 'custom', path: ['required', i], message: `"${name}" is not a declared parameter` })
    })
    if (new Set(p.required).size !== p.required.length) ctx.addIssue({ code: 'custom', path: ['required'], message: 'names must be unique' })
  })

export type Parameters = z.output<typeof ParametersSchema>

/** A JSON object kept exactly as given (a zod record would drop a "__proto__" key). */
const jsonObject = z
  .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { message: 'Expected an object' })
  .meta({ type: 'object', additionalProperties: true })

export const StepSchema = z.strictObject({
  id: z.string().regex(STEP_ID, 'step ids start with a letter; letters, digits and underscores'),
  action: z.string().min(1).max(100).describe('Name of a registered action (the operationIds of the Actions in /v1/openapi.json) other than invoke_agent'),
  input: jsonObject.default({}),
})

export const WorkflowSchema = z.strictObject({
  steps: z.array(StepSchema).min(1).max(20),
  output: z.string().max(2000).optional().describe('Reference to the agent result, e.g. "{{steps.research}}"; default: the last step'),
})

export type Workflow = z.output<typeof WorkflowSchema>

/** Converts an input value to a parameter's type (text from tool callers included); undefined if it cannot be. */
export function convertParam(type: Parameter['type'], value: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined
    case 'number':
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
      if (!Number.isFinite(n)) return undefined
      return type === 'integer' && !Number.isInteger(n) ? undefined : n
    }
  }
}

function* stringsIn(value: unknown, path: (string | number)[] = []): Generator<{ text: string; path: (string | number)[] }> {
  if (typeof value === 'string') yield { text: value, path }
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* stringsIn(value[i], [...path, i])
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* stringsIn(v, [...path, k])
}

/**
 * Checks a workflow against its parameters: known actions (agents do not invoke agents, so runs
 * cannot recurse), unique step ids, `{{input.x}}` naming declared parameters and `{{steps.y}}`
 * naming earlier steps.
 */
export function checkWorkflow(workflow: Workflow, parameters: Parameters, ctx: z.RefinementCtx, at: (string | number)[] = ['workflow']): void {
  const seen = new Set<string>()
  const checkRefs = (value: unknown, path: (string | number)[]) => {
    for (const { text, path: sub } of stringsIn(value)) {
      for (const m of text.matchAll(REFERENCE)) {
        const ref = parsePath(m[1])
        const where = [...path, ...sub]
        if (!ref) {
          ctx.addIssue({ code: 'custom', path: where, message: `{{${m[1]}}} is not a valid reference` })
        } else if (ref[0] === 'input') {
          if (typeof ref[1] !== 'string' || !(ref[1] in parameters.properties)) ctx.addIssue({ code: 'custom', path: where, message: `{{${m[1]}}} names no declared parameter` })
        } else if (ref[0] === 'steps') {
          if (typeof ref[1] !== 'string' || !seen.has(ref[1])) ctx.addIssue({ code: 'custom', path: where, message: `{{${m[1]}}} names no earlier step` })
        } else {
          ctx.addIssue({ code: 'custom', path: where, message: `{{${m[1]}}} must start with "input." or "steps."` })
        }
      }
    }
  }
  workflow.steps.forEach((step, i) => {
    if (seen.has(step.id)) ctx.addIssue({ code: 'custom', path: [...at, 'steps', i, 'id'], message: `duplicate step id "${step.id}"` })
    const action = getAction(step.action)
    if (!action || step.action === 'invoke_agent') {
      ctx.addIssue({ code: 'custom', path: [...at, 'steps', i, 'action'], message: `"${step.action}" is not an action an agent can run` })
    }
    checkRefs(step.input, [...at, 'steps', i, 'input'])
    seen.add(step.id)
  })
  if (workflow.output !== undefined) checkRefs(workflow.output, [...at, 'output'])
  checkSecretSlots(workflow, ctx, at)
}

const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters and digits joined by single hyphens').max(80)
const icon = z.string().max(300).regex(/^(\/[\w.\-/]*|https:\/\/\S+)$/, 'a relative path starting with "/" or an https URL')

const agentFields = {
  slug: slug.nullable().optional().describe('Unique human-readable alias'),
  icon: icon.optional().describe('Relative path to an icon'),
  name: z.string().trim().min(1).max(120).describe('Agent name'),
  description: z.string().trim().min(1).max(4000).describe('What the agent does; may be multi-line'),
  visibility: z.enum(['public', 'private', 'team']).default('private').describe('Who can find and run it'),
  team_id: z.string().max(64).nullable().optional().describe('Team for team visibility'),
  parameters: ParametersSchema.default({ type: 'object', properties: {}, required: [], additionalProperties: false }),
  workflow: WorkflowSchema,
}

/** The parts of an agent that must hold together, whichever of them a request changed. */
interface AgentCore {
  visibility: 'public' | 'private' | 'team'
  team_id?: string | null
  parameters: Parameters
  workflow: Workflow
}

function checkAgent(a: AgentCore, ctx: z.RefinementCtx): void {
  if (a.visibility === 'team' && !a.team_id) ctx.addIssue({ code: 'custom', path: ['team_id'], message: 'team visibility needs a team_id' })
  checkWorkflow(a.workflow, a.parameters, ctx)
}

/** A new agent; parameters that flow into secret fields come back marked writeOnly. */
export const CreateAgentBody = z
  .strictObject(agentFields)
  .superRefine(checkAgent)
  .transform((a) => ({ ...a, parameters: markSecretParameters(a.parameters, a.workflow) }))

export type CreateAgentInput = z.output<typeof CreateAgentBody>

/** Most agents one import request may bring. */
export const MAX_IMPORT = 100

/** `POST /v1/agents/import`: agents as single create takes them, validated together (details point into `agents`). */
export const ImportAgentsBody = z.strictObject({
  agents: z.array(CreateAgentBody).min(1).max(MAX_IMPORT).describe(`1 to ${MAX_IMPORT} agents, each as POST /v1/agents takes it`),
})

/** Checks an agent after a patch is merged into it (references against parameters, a team for team visibility). */
export const MergedAgent = z.custom<AgentCore>().superRefine(checkAgent)

export const UpdateAgentBody = z.strictObject({
  slug: agentFields.slug,
  icon: icon.optional(),
  name: agentFields.name.optional(),
  description: agentFields.description.optional(),
  visibility: z.enum(['public', 'private', 'team']).optional(),
  team_id: agentFields.team_id,
  parameters: ParametersSchema.optional(),
  workflow: WorkflowSchema.optional(),
})

export const ReviewBody = z.strictObject({ rating: z.number().int().min(1).max(5).describe('1 to 5') })

/** The text of parameters that the search index sees: names, descriptions and enum values. */
export function parameterText(parameters: Parameters): string {
  return Object.entries(parameters.properties)
    .map(([name, p]) => [name.replace(/_/g, ' '), p.description, ...(p.enum ?? [])].filter(Boolean).join(' '))
    .join('\n')
}
