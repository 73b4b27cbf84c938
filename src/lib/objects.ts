/**
 * Sets an own enumerable property, even one named "__proto__" (plain assignment would set the
 * object's prototype instead and lose the key).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
