import { validate as validateOas31 } from '@hyperjump/json-schema/openapi-3-1'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { beforeAll, describe, expect, inject, it } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any
/** The OpenAPI Initiative's published 3.1 schema that also checks every Schema Object against the OAS dialect. */
const OAS31_SCHEMA_BASE = 'https://spec.openapis.org/oas/3.1/schema-base'
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

const { url } = inject('devServer')
let doc: Json

beforeAll(async () => {
  doc = await (await fetch(`${url}/v1/openapi.json`)).json()
})

function ajv() {
  const a = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats(a)
  return a
}

describe('the OpenAPI document', () => {
  it('is valid against the OpenAPI 3.1 JSON schema, Schema Objects included', async () => {
    const output = await validateOas31(OAS31_SCHEMA_BASE, doc, 'BASIC')
    const errors = output.valid ? [] : (output.errors ?? []).slice(0, 10).map((e) => `${e.instanceLocation} ${e.keyword}`)
    expect(errors).toEqual([])
    expect(output.valid).toBe(true)
  })

  it('is checked by a validator that catches a broken document', async () => {
    const broken = structuredClone(doc)
    delete broken.paths['/v1/action/search'].post.responses['200'].description
    broken.components.schemas.Error.properties.status = { type: 'int32' }
    expect((await validateOas31(OAS31_SCHEMA_BASE, broken)).valid).toBe(false)
  })

  it('has request schemas that are valid JSON Schema 2020-12 and examples that satisfy them', () => {
    const a = ajv()
    let checked = 0
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        const media = op?.requestBody?.content?.['application/json']
        if (!media?.schema) continue
        const validate = a.compile(media.schema)
        for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
          expect(validate(example.value), `${method.toUpperCase()} ${path} example ${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(10)
  })

  it('gives every operation a unique operationId and every $ref a target', () => {
    const ids = Object.values<Json>(doc.paths).flatMap((item) =>
      Object.values<Json>(item)
        .map((op) => op?.operationId)
        .filter(Boolean),
    )
    expect(new Set(ids).size).toBe(ids.length)
    const refs = JSON.stringify(doc).match(/"#\/components\/[^"]+"/g) ?? []
    for (const r of new Set(refs)) {
      const [, kind, name] = JSON.parse(r).split('/').slice(1)
      expect(doc.components[kind]?.[name], r).toBeDefined()
    }
  })
})
