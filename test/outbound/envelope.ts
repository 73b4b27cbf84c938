import { expect } from 'vitest'
import type { Json } from '../helpers'

/**
 * The answer to any input: never a 500, and a 400 names one of `fields`, except a body that holds
 * `{{...}}` text, which the runtime reads as variable references before any field is checked.
 */
export function expectFieldEnvelope(res: { status: number; body: Json }, fields: string[]): void {
  expect(res.status, JSON.stringify(res.body)).not.toBe(500)
  expect(res.body.code).not.toBe('INTERNAL')
  if (res.status !== 400 || res.body.code === 'UNRESOLVED_REFERENCE') return
  expect(fields, JSON.stringify(res.body)).toContain(res.body.details?.[0]?.path)
}
