import { z } from 'zod'
import { getAction } from '../actions/registry'
import { parsePath, REFERENCE_DEPTH } from '../runtime/templates'
import { ParametersSchema, WorkflowSchema, type Parameters, type Workflow } from './schema'
import { checkSecretSlots, markSecretParameters } from './secret-params'

// The request bodies of /v1/agents check workflows against the registry, so they sit above it with
// the routes; the agent shapes they build on (./schema) stay below it, for the actions to use.

const REFERENCE = /\{\{([^{}]{0,512})\}\}/g

/** The strings of a step's input that a run reads references from (none nested past REFERENCE_DEPTH). */
function* stringsIn(value: unknown, path: (string | number)[] = []): Generator<{ text: string; path: (string | number)[] }> {
  if (typeof value === 'string') yield { text: value, path }
  else if (path.length >= REFERENCE_DEPTH) return
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
          if (typeof ref[1] !== 'string' || !Object.hasOwn(parameters.properties, ref[1])) ctx.addIssue({ code: 'custom', path: where, message: `{{${m[1]}}} names no declared parameter` })
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
  checkSecretSlots(workflow, ctx, at, getAction)
}

const slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lowercase letters and digits joined by single hyphens')
  .max(80)
const icon = z
  .string()
  .max(300)
  .regex(/^(\/[\w.\-/]*|https:\/\/\S+)$/, 'a relative path starting with "/" or an https URL')

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
  .transform((a) => ({ ...a, parameters: markSecretParameters(a.parameters, a.workflow, getAction) }))

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
