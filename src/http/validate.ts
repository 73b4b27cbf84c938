import { z } from 'zod'
import { ApiError, pointer, type ErrorDetail } from './errors'

/** Zod issues as error details: one per failing field, with a JSON pointer and a plain message. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[]): ErrorDetail[] {
  const out: ErrorDetail[] = []
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: pointer([...issue.path, key]), message: `Unknown field "${key}"` })
      continue
    }
    out.push({ path: pointer(issue.path), message: issue.message })
  }
  return out
}

/** Summary line naming the failing fields, e.g. `Invalid request: /limit must be ...`. */
export function summarize(details: ErrorDetail[]): string {
  const parts = details.slice(0, 5).map((d) => `${d.path === '/' ? 'body' : d.path}: ${d.message}`)
  const more = details.length > 5 ? ` (and ${details.length - 5} more)` : ''
  return `Invalid request: ${parts.join('; ')}${more}`
}

/** Parses `value` with `schema` or throws a 400 listing every failing field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  const details = issuesToDetails(result.error.issues)
  throw new ApiError('VALIDATION_FAILED', summarize(details), details)
}
