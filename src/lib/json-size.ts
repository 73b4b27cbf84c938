/** Sizes of JSON text, computed without building it (so a size limit is checked before the memory is spent). */

/** Bytes one UTF-16 code unit at `i` of `text` adds to the UTF-8 encoding (a lone surrogate counts 3: U+FFFD). */
function utf8Unit(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c < 0x80) return 1
  if (c < 0x800) return 2
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1)
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 3
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const prev = text.charCodeAt(i - 1)
    return prev >= 0xd800 && prev <= 0xdbff ? 0 : 3
  }
  return 3
}

/** Bytes of `text` in UTF-8. */
export function utf8Length(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) n += utf8Unit(text, i)
  return n
}

/** Bytes of the text inside the quotes of `JSON.stringify(text)`, in UTF-8 (escapes included). */
export function jsonStringBodyBytes(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) n += 2
    else if (c < 0x20) n += 6
    else if (c >= 0xd800 && c <= 0xdfff) {
      const units = utf8Unit(text, i)
      // JSON.stringify writes a lone surrogate as a \uXXXX escape.
      n += units === 3 ? 6 : units
    } else n += utf8Unit(text, i)
  }
  return n
}

function scalarBytes(value: unknown): number | undefined {
  if (value === null) return 4
  switch (typeof value) {
    case 'string':
      return jsonStringBodyBytes(value) + 2
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined
    default:
      return -1
  }
}

/**
 * Bytes of `JSON.stringify(value)` in UTF-8, counted without building the text. Counting stops as
 * soon as it passes `limit` (the result is then some number above `limit`), so measuring a huge
 * value against a small limit costs no more than the limit.
 * @example jsonSize({ a: [1, 'é'] }) // 14, the length of {"a":[1,"é"]} in UTF-8
 */
export function jsonSize(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let total = 0
  // An explicit stack: request bodies may nest deeper than the call stack allows.
  const stack: unknown[] = [value]
  const inArray: boolean[] = [true]
  while (stack.length > 0) {
    let v = stack.pop()
    const arrayItem = inArray.pop()!
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON()
    const scalar = scalarBytes(v)
    if (scalar === undefined) {
      // undefined, functions and symbols are dropped from objects and written as null in arrays.
      if (arrayItem) total += 4
    } else if (scalar >= 0) {
      total += scalar
    } else if (Array.isArray(v)) {
      total += 2 + Math.max(0, v.length - 1)
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i])
        inArray.push(true)
      }
    } else {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => scalarBytes(x) !== undefined)
      total += 2 + Math.max(0, entries.length - 1)
      for (const [k, x] of entries) {
        total += jsonStringBodyBytes(k) + 3
        stack.push(x)
        inArray.push(false)
      }
    }
    if (total > limit) return total
  }
  return total
}

/**
 * The longest prefix of `text` whose JSON string body (as `jsonStringBodyBytes` counts it) is at
 * most `maxBytes` of UTF-8, cut between code points: a surrogate pair is kept whole or left out.
 * Costs no more than the prefix it keeps.
 * @example jsonPrefix('ab😀c', 5) // 'ab': the pair would take 4 more bytes
 */
export function jsonPrefix(text: string, maxBytes: number): string {
  // No code unit takes more than 6 bytes of JSON (a \uXXXX escape).
  if (text.length * 6 <= maxBytes) return text
  let n = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    const next = text.charCodeAt(i + 1)
    const pair = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
    const bytes = pair ? 4 : jsonStringBodyBytes(text[i])
    if (n + bytes > maxBytes) break
    n += bytes
    i += pair ? 2 : 1
  }
  return i >= text.length ? text : text.slice(0, i)
}
