import type { z } from 'zod'
import type { AnyAction } from './define'

/** Does this schema, or a wrapper around it (optional, default ...), carry a secret marker: `writeOnly` or `format: "password"`? */
export function isSecretSchema(schema: z.ZodType): boolean {
  let s: z.ZodType | undefined = schema
  for (let i = 0; s && i < 8; i++) {
    const meta = s.meta() as { writeOnly?: unknown; format?: unknown } | undefined
    if (meta?.writeOnly === true || meta?.format === 'password') return true
    s = (s._zod.def as { innerType?: z.ZodType }).innerType
  }
  return false
}

const derived = new WeakMap<AnyAction, readonly string[]>()

/**
 * The top-level input fields an action's schema marks secret (`.meta({ writeOnly: true, format:
 * 'password' })`). Secrets are known by type, so they show in the OpenAPI and tool schemas too.
 */
export function secretFields(action: AnyAction): readonly string[] {
  let fields = derived.get(action)
  if (!fields) {
    const shape = (action.input as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {}
    fields = Object.keys(shape).filter((k) => isSecretSchema(shape[k]))
    derived.set(action, fields)
  }
  return fields
}
