import type { z } from 'zod'
import { secretFields } from '../actions/secret-fields'
import type { ActionLookup } from '../runtime/context'
import { parsePath } from '../runtime/templates'
import type { Parameter, Parameters, Workflow } from './schema'

const REFERENCE = /\{\{([^{}]{0,512})\}\}/g
const WHOLE = /^\s*\{\{([^{}]{0,512})\}\}\s*$/

/** Is a parameter marked secret (`writeOnly: true` or `format: "password"`)? */
export function isSecretParameter(p: Parameter): boolean {
  return p.writeOnly === true || p.format === 'password'
}

/** Every step input field that the step's action marks secret by schema type, with what the workflow gives it. */
function* secretSlots(workflow: Workflow, actions: ActionLookup): Generator<{ index: number; field: string; template: unknown }> {
  for (const [index, step] of workflow.steps.entries()) {
    const action = actions(step.action)
    if (!action) continue
    for (const field of secretFields(action)) {
      if (Object.prototype.hasOwnProperty.call(step.input, field)) yield { index, field, template: step.input[field] }
    }
  }
}

/** Names of the `{{input.<name>}}` references in a template. */
function inputReferences(template: unknown): string[] {
  if (typeof template !== 'string') return []
  const names: string[] = []
  for (const m of template.matchAll(REFERENCE)) {
    const path = parsePath(m[1])
    if (path && path[0] === 'input' && typeof path[1] === 'string') names.push(path[1])
  }
  return names
}

/**
 * The parameters whose values are secret: those marked, and every one referenced in a field an
 * action marks secret. Derived from the workflow, so an agent saved before it marked its parameters
 * is covered too.
 */
export function secretParameterNames(parameters: Parameters, workflow: Workflow, actions: ActionLookup): Set<string> {
  const names = new Set(Object.keys(parameters.properties).filter((n) => isSecretParameter(parameters.properties[n])))
  for (const slot of secretSlots(workflow, actions)) for (const name of inputReferences(slot.template)) if (Object.hasOwn(parameters.properties, name)) names.add(name)
  return names
}

/** The parameters with each one that flows into a secret field marked `writeOnly` (and `format: "password"` when it is text). */
export function markSecretParameters(parameters: Parameters, workflow: Workflow, actions: ActionLookup): Parameters {
  const secret = secretParameterNames(parameters, workflow, actions)
  const properties: Parameters['properties'] = {}
  for (const [name, p] of Object.entries(parameters.properties)) {
    properties[name] = secret.has(name) && !isSecretParameter(p) ? { ...p, writeOnly: true, ...(p.type === 'string' ? { format: 'password' as const } : {}) } : p
  }
  return { ...parameters, properties }
}

/**
 * Save-time rule: a field an action marks secret takes one parameter as a whole (`{{input.password}}`).
 * A value written into the workflow would be stored and shown with the agent, and text or another
 * step's result cannot be traced to a parameter to mark.
 */
export function checkSecretSlots(workflow: Workflow, ctx: z.RefinementCtx, at: (string | number)[], actions: ActionLookup): void {
  for (const slot of secretSlots(workflow, actions)) {
    const whole = typeof slot.template === 'string' ? WHOLE.exec(slot.template) : null
    const path = whole ? parsePath(whole[1]) : null
    if (!path || path.length !== 2 || path[0] !== 'input') {
      ctx.addIssue({
        code: 'custom',
        path: [...at, 'steps', slot.index, 'input', slot.field],
        message: `${slot.field} is a secret field: give it one parameter as a whole, e.g. "{{input.${slot.field}}}" (the parameter is then marked writeOnly)`,
      })
    }
  }
}
