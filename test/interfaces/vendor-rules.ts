/**
 * Vendors' documented tool-descriptor rules that can be checked offline. Each checker returns the
 * list of broken rules (empty when the descriptor passes).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

const NAME = /^[a-zA-Z0-9_-]{1,64}$/
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
/** Keywords OpenAI strict mode and Anthropic strict tool use both accept. */
const STRICT_KEYWORDS = new Set(['type', 'description', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'anyOf', '$ref', '$defs', 'title', 'default'])

function walkSchema(schema: Json, at: string, problems: string[], opts: { allowDefault: boolean; allRequired: boolean }): void {
  if (typeof schema !== 'object' || schema === null) return void problems.push(`${at}: not a schema object`)
  for (const key of Object.keys(schema)) {
    if (!STRICT_KEYWORDS.has(key)) problems.push(`${at}: keyword "${key}" is not supported`)
    if (key === 'default' && !opts.allowDefault) problems.push(`${at}: "default" is not permitted`)
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  for (const t of types) if (!JSON_TYPES.has(t)) problems.push(`${at}: unknown type "${t}"`)
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) problems.push(`${at}: enum must be a non-empty array`)
  if (types.includes('object')) {
    if (schema.additionalProperties !== false) problems.push(`${at}: objects need additionalProperties: false`)
    const props = schema.properties ?? {}
    const required: string[] = schema.required ?? []
    for (const r of required) if (!(r in props)) problems.push(`${at}: required "${r}" is not a property`)
    if (opts.allRequired) for (const k of Object.keys(props)) if (!required.includes(k)) problems.push(`${at}: "${k}" must be listed in required`)
    for (const [k, v] of Object.entries(props)) walkSchema(v, `${at}/properties/${k}`, problems, opts)
  }
  if (schema.items) walkSchema(schema.items, `${at}/items`, problems, opts)
}

/** OpenAI Chat Completions function tool: name pattern, object parameters; `strict` adds structured-output rules. */
export function openaiProblems(tool: Json): string[] {
  const problems: string[] = []
  if (tool.type !== 'function') problems.push('type must be "function"')
  const fn = tool.function ?? {}
  if (!NAME.test(fn.name ?? '')) problems.push(`name "${fn.name}" must match ${NAME}`)
  if (typeof fn.description !== 'string') problems.push('description must be a string')
  if (fn.parameters?.type !== 'object') problems.push('parameters.type must be "object"')
  walkSchema(fn.parameters, 'parameters', problems, { allowDefault: !fn.strict, allRequired: fn.strict === true })
  return problems
}

/** Anthropic Messages API custom tool, checked against the strict tool-use schema subset. */
export function anthropicProblems(tool: Json): string[] {
  const problems: string[] = []
  for (const k of Object.keys(tool)) if (!['name', 'description', 'input_schema', 'cache_control', 'strict'].includes(k)) problems.push(`field "${k}" is not accepted`)
  if (!NAME.test(tool.name ?? '')) problems.push(`name "${tool.name}" must match ${NAME}`)
  if (typeof tool.description !== 'string' || tool.description.length === 0) problems.push('description must be a non-empty string')
  if (tool.input_schema?.type !== 'object') problems.push('input_schema.type must be "object"')
  walkSchema(tool.input_schema, 'input_schema', problems, { allowDefault: true, allRequired: false })
  return problems
}
