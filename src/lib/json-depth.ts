import { pointer } from '../http/errors'

/**
 * How deep JSON may nest wherever it comes in: request bodies, JSON text inside a field, upstream
 * answers and inputs after `{{...}}` expansion (so values built from them, stored variables and
 * step results, stay within a few levels of it). JSON.parse reads any depth, but much of what follows
 * recurses: JSON.stringify leaves its iterative fast path for a recursive one on many values (a
 * workflow nested 20,000 levels, echoed by POST /v1/agents, runs out of stack), and so do validators
 * and the Worker's own walks. Real payloads nest a few levels; 128 leaves them ample room and every
 * recursion far from the stack's end.
 */
export const MAX_JSON_DEPTH = 128

/** JSON text that nests deeper than MAX_JSON_DEPTH: a SyntaxError, so every reader's "not JSON" path takes it. */
export class JsonTooDeepError extends SyntaxError {
  constructor(readonly path: (string | number)[]) {
    super(`JSON nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects at ${shortPointer(path)}`)
    this.name = 'JsonTooDeepError'
  }
}

interface Frame {
  value: unknown
  depth: number
  key: string | number
  parent: Frame | null
}

/**
 * The path to the first array or object that sits inside `max` others (so nesting passes `max`
 * levels), or null when there is none. Iterative, so any depth is measured without recursion.
 */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null
  const stack: Frame[] = [{ value, depth: 0, key: '', parent: null }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.depth >= max) return pathOf(frame)
    const v = frame.value as Record<string, unknown> | unknown[]
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child = v[i]
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key: i, parent: frame })
      }
    } else {
      const keys = Object.keys(v)
      for (let i = keys.length - 1; i >= 0; i--) {
        const child = v[keys[i]]
        if (child !== null && typeof child === 'object') stack.push({ value: child, depth: frame.depth + 1, key: keys[i], parent: frame })
      }
    }
  }
  return null
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = []
  for (let f: Frame | null = frame; f?.parent; f = f.parent) path.push(f.key)
  return path.reverse()
}

/** JSON.parse that refuses text nesting deeper than MAX_JSON_DEPTH (JsonTooDeepError). */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  // Each level takes two characters at least ("[" and "]"), so most texts (request bodies among them)
  // are too short to pass the limit and need no walk.
  if (text.length <= 2 * MAX_JSON_DEPTH) return value
  const path = tooDeep(value)
  if (path) throw new JsonTooDeepError(path)
  return value
}

/** A JSON pointer to `path` that names where it starts: its first 8 segments, then "/…". */
export function shortPointer(path: ReadonlyArray<string | number>): string {
  return pointer(path.slice(0, 8)) + (path.length > 8 ? '/…' : '')
}

/**
 * Why JSON text did not parse, without quoting it. V8's SyntaxError for an unexpected token quotes
 * the text around it (`Unexpected token 'h', ..."assword": hunter2sec"... is not valid JSON`), and
 * the text is a caller's body or field, which may hold a password or key: the answer names the
 * kind of error and its position, never the text.
 * @example jsonSyntaxMessage(new SyntaxError(`Unexpected token 'h', "{"a": hi}" is not valid JSON`)) // 'Unexpected token'
 */
export function jsonSyntaxMessage(err: unknown): string {
  if (err instanceof JsonTooDeepError) return err.message
  const message = err instanceof Error ? err.message : ''
  // The quoting forms end '"<text>" is not valid JSON'; the others name a position and grammar
  // characters in single quotes ("Expected ',' or '}' after property value in JSON at position 63").
  if (message.includes('"') || / is not valid JSON$/.test(message)) return message.startsWith('Unexpected token') ? 'Unexpected token' : 'Not valid JSON'
  return message.slice(0, 200) || 'Not valid JSON'
}
