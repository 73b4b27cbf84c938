/**
 * Sets an own enumerable property, even one named "__proto__" (plain assignment would set the
 * object's prototype instead and lose the key).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * `table[key]` when `key` is one of the table's own keys, else undefined. A plain object inherits
 * "constructor", "__proto__", "toString" and the rest of Object.prototype, so a lookup by outside
 * text (a field name, a path segment, a page's lang or entity) would otherwise find a function.
 * @example ownValue({ en: 1 }, 'constructor') // undefined
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
