import fc from 'fast-check'

export type Schema = Record<string, unknown>

/** The document with every local `$ref` replaced by what it points at (the document has no recursive refs). */
export function dereference<T>(value: T, root: unknown = value, depth = 0): T {
  if (depth > 40) throw new Error('reference chain too deep')
  if (Array.isArray(value)) return value.map((v) => dereference(v, root, depth + 1)) as T
  if (!value || typeof value !== 'object') return value
  const obj = value as Record<string, unknown>
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref
    if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`)
    let target: unknown = root
    for (const part of ref.slice(2).split('/')) {
      target = (target as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`)
    }
    const { $ref: _ref, ...rest } = obj
    const resolved = dereference(target, root, depth + 1) as Record<string, unknown>
    return (Object.keys(rest).length ? { ...resolved, ...dereference(rest, root, depth + 1) } : resolved) as T
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, dereference(v, root, depth + 1)])) as T
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [])

/** Merges the keywords of an `allOf` branch into its parent (enough for the document's shapes). */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b }
  if (a.properties || b.properties) out.properties = { ...(a.properties as Schema), ...(b.properties as Schema) }
  if (a.required || b.required) out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])]
  return out
}

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0
  const max = Math.min(typeof s.maxLength === 'number' ? s.maxLength : 40, Math.max(min, 40))
  if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString())
  if (s.format === 'uri') return fc.constantFrom('https://example.com/hook', 'https://93.184.216.34/x', 'http://127.0.0.1/', 'not a url')
  if (s.format === 'email') return fc.constantFrom('ada@example.com', 'x@y.z')
  if (typeof s.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(s.pattern))
        .filter((v) => v.length >= min && v.length <= (typeof s.maxLength === 'number' ? s.maxLength : Infinity))
        .map((v) => v.slice(0, 400))
    } catch {
      // a pattern fast-check cannot generate from: plain strings (mostly invalid, which is tested too)
    }
  }
  return fc.string({ minLength: min, maxLength: max, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 -_.{}@/ä'.split('')) })
}

/**
 * A fast-check arbitrary of values for a JSON Schema (2020-12, the subset the document uses): enums,
 * consts, types, string lengths/patterns/formats, number ranges, arrays, objects with required and
 * optional properties, anyOf/oneOf/allOf. Values it makes are meant to be valid; the caller checks.
 */
export function arbitraryOf(schema: Schema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) {
    return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 1 })
  }
  if (schema === false) return fc.constant(null)
  const s = schema
  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
  if (Array.isArray(s.allOf)) return arbitraryOf((s.allOf as Schema[]).reduce(merge, { ...s, allOf: undefined }), depth)
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) {
      const { [key]: branches, ...base } = s
      return fc.oneof(...(branches as Schema[]).map((b) => arbitraryOf(merge(base, b), depth)))
    }
  }
  const types = typesOf(s)
  if (types.length > 1) return fc.oneof(...types.map((t) => arbitraryOf({ ...s, type: t }, depth)))
  const type = types[0] ?? (s.properties ? 'object' : s.items ? 'array' : undefined)
  switch (type) {
    case 'string':
      return stringArbitrary(s)
    case 'integer':
      return fc.integer({ min: typeof s.minimum === 'number' ? s.minimum : -1000, max: typeof s.maximum === 'number' ? s.maximum : 1000 })
    case 'number':
      return fc.double({ min: typeof s.minimum === 'number' ? s.minimum : -1000, max: typeof s.maximum === 'number' ? s.maximum : 1000, noNaN: true, noDefaultInfinity: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0
      const max = Math.max(min, Math.min(typeof s.maxItems === 'number' ? s.maxItems : 3, 3))
      return fc.array(arbitraryOf(s.items as Schema, depth + 1), { minLength: min, maxLength: max })
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>
      const required = new Set((s.required as string[]) ?? [])
      const model: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, v] of Object.entries(props)) {
        if (depth > 3 && !required.has(k)) continue
        model[k] = arbitraryOf(v, depth + 1)
      }
      for (const k of required) model[k] ??= fc.string({ maxLength: 8 })
      return fc.record(model, { requiredKeys: [...required] })
    }
    default:
      return fc.jsonValue({ maxDepth: 1 })
  }
}

/** Ways to break a body: each makes a value the schema should refuse (the caller checks that it does). */
export function invalidBodyArbitrary(schema: Schema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ how: string; body: unknown }> {
  const props = Object.keys((schema.properties ?? {}) as Schema)
  const required = (schema.required as string[]) ?? []
  const asObject = valid.map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}))
  const options: fc.Arbitrary<{ how: string; body: unknown }>[] = [
    asObject.chain((v) => fc.stringMatching(/^[a-z]{3,12}$/).map((k) => ({ how: `unknown field zz_${k}`, body: { ...v, [`zz_${k}`]: 1 } }))),
    fc.constantFrom<unknown>([], 'text', 42, null).map((body) => ({ how: 'not an object', body })),
  ]
  if (required.length)
    options.push(asObject.chain((v) => fc.constantFrom(...required).map((k) => ({ how: `without required ${k}`, body: Object.fromEntries(Object.entries(v).filter(([key]) => key !== k)) }))))
  if (props.length) {
    options.push(
      asObject.chain((v) =>
        fc.tuple(fc.constantFrom(...props), fc.constantFrom<unknown>(12345, 'x', true, [1], { a: 1 })).map(([k, bad]) => ({ how: `${k} = ${JSON.stringify(bad)}`, body: { ...v, [k]: bad } })),
      ),
    )
  }
  return fc.oneof(...options)
}
