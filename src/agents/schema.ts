import { z } from 'zod'
import { jsonSize } from '../lib/json-size'

/**
 * Bytes of JSON an agent's parameters and workflow take at most, as stored. Every field has a limit
 * of its own, but 100 parameters of 100 enum values each came to megabytes: an agent row (parameters,
 * their text again for the index, workflow) then passed the 2,000,000 bytes D1 stores in a row, and a
 * search page of 26 such agents (each hit carries its parameters) the 25 MiB KV stores in a run's
 * result, failing every search that found them. At these caps a row stays under 600 KB and a
 * page of 100 hits, in any format, under 20 MB.
 */
export const MAX_PARAMETERS_BYTES = 128 * 1024
export const MAX_WORKFLOW_BYTES = 256 * 1024

/** A zod issue when `value`'s JSON passes `max` bytes. */
function checkSize(value: unknown, max: number, what: string, ctx: z.RefinementCtx): void {
  if (jsonSize(value, max) > max) ctx.addIssue({ code: 'custom', path: [], message: `more than ${max} bytes of JSON: an agent's ${what} may take at most ${max}` })
}

/** "__proto__" is left out: as an object key in JavaScript it names the prototype, not a parameter. */
const PARAM_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]{0,63}$/
const STEP_ID = /^[A-Za-z][A-Za-z0-9_]{0,39}$/

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
      if (!Object.hasOwn(p.properties, name)) ctx.addIssue({ code: 'custom', path: ['required', i], message: `"${name}" is not a declared parameter` })
    })
    if (new Set(p.required).size !== p.required.length) ctx.addIssue({ code: 'custom', path: ['required'], message: 'names must be unique' })
    checkSize(p, MAX_PARAMETERS_BYTES, 'parameters', ctx)
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

export const WorkflowSchema = z
  .strictObject({
    steps: z.array(StepSchema).min(1).max(20),
    output: z.string().max(2000).optional().describe('Reference to the agent result, e.g. "{{steps.research}}"; default: the last step'),
  })
  .superRefine((w, ctx) => checkSize(w, MAX_WORKFLOW_BYTES, 'workflow', ctx))

export type Workflow = z.output<typeof WorkflowSchema>

/**
 * Text a number parameter takes: a JSON number, blanks around it allowed. Number() alone would also
 * read "0x1F", "0b101" and "Infinity"; an integer must also be exact in a double (safe).
 */
const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

/** Converts an input value to a parameter's type (text from tool callers included); undefined if it cannot be. */
export function convertParam(type: Parameter['type'], value: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined
    case 'number':
    case 'integer': {
      const text = typeof value === 'string' ? value.trim() : null
      const n = typeof value === 'number' ? value : text !== null && NUMBER_TEXT.test(text) ? Number(text) : NaN
      return !Number.isFinite(n) || (type === 'integer' && !Number.isSafeInteger(n)) ? undefined : n
    }
  }
}

/** The text of parameters that the search index sees: names, descriptions and enum values. */
export function parameterText(parameters: Parameters): string {
  return Object.entries(parameters.properties)
    .map(([name, p]) => [name.replace(/_/g, ' '), p.description, ...(p.enum ?? [])].filter(Boolean).join(' '))
    .join('\n')
}
