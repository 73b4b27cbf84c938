import { z } from 'zod'

/** Workflow variable names: a letter, then letters, digits and underscores (the spec's pattern). */
export const VARIABLE_NAME = /^[a-zA-Z][a-zA-Z0-9_]*$/

/**
 * `output_variable_name` with the action's template default.
 * @example outputVariable('research_report')
 */
export function outputVariable(defaultName: string) {
  return z
    .string()
    .max(64)
    .regex(VARIABLE_NAME, 'must start with a letter and contain only letters, digits and underscores')
    .default(defaultName)
    .describe(`Workflow variable that stores the result (needs a Workflow-Id header). Default "${defaultName}".`)
}

/** An optional boolean with its default, described for docs and tool schemas. */
export function flag(description: string, defaultValue: boolean) {
  return z.boolean().default(defaultValue).describe(`${description} Default ${defaultValue}.`)
}
