/**
 * Readers for what a peer answered. A peer's JSON is valid but its shape is the peer's to get wrong
 * (a field missing, null, a number for a string, an object for a list), so transforms read fields
 * through these instead of trusting their declared types: a scalar of the wrong type reads as null,
 * items of the wrong type are skipped, and a container the answer cannot do without is the typed
 * `shapeError` (an `invalid` UpstreamError: a 502 naming the service and the field, not retried).
 */
import { UpstreamError } from './errors'

export type Fields = Record<string, unknown>

/** A JSON object: not null, not an array. */
export const isRecord = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The value as an object; an empty one for anything else, so optional nested fields read as absent. */
export const record = (v: unknown): Fields => (isRecord(v) ? v : {})

/** A string, or null. */
export const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

/** A finite number, or null (JSON has no NaN, but 1e999 parses to Infinity). */
export const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** How a value reads in a message ("null", "a list", "a string" ...). */
export function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'a list'
  if (typeof v === 'object') return 'an object'
  return `a ${typeof v}`
}

/** The error for an answer whose shape a reader cannot use; `what` names the field and what it was. */
export function shapeError(service: string, what: string): UpstreamError {
  return new UpstreamError(service, 'invalid', `${service} answered with an unexpected shape: ${what}`)
}

/** The answer (or a part of it, named by `what`) as an object, or the shape error. */
export function objectOf(v: unknown, service: string, what = 'the answer'): Fields {
  if (!isRecord(v)) throw shapeError(service, `${what} is ${kindOf(v)}, not an object`)
  return v
}

/** A list field: absent or null is empty, a list is itself, anything else is the shape error. */
export function listOf(v: unknown, service: string, what: string): unknown[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw shapeError(service, `${what} is ${kindOf(v)}, not a list`)
  return v
}

/** The objects of a list field (other items skipped); absent or null is empty, a non-list the shape error. */
export function objectsOf(v: unknown, service: string, what: string): Fields[] {
  const list = listOf(v, service, what)
  // One pass that reads each element once (answers list up to 80,000 URLs).
  const out: Fields[] = []
  for (let i = 0; i < list.length; i++) if (isRecord(list[i])) out.push(list[i] as Fields)
  return out
}

/** The message of a vendor's `{"error": {"message": ...}}` answer, if it gives one as text. */
export function errorMessage(body: unknown): string | null {
  return text(record(record(body).error).message)
}
