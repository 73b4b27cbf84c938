import type { z } from 'zod'
import { parseOrThrow } from './validate'
import type { Context } from 'hono'
import { jsonSyntaxMessage, parseJson } from '../lib/json-depth'
import { ApiError } from './errors'
import type { AppEnv } from './types'

/** True when the Content-Type is JSON (application/json or any +json type). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false
  const type = value.split(';')[0].trim().toLowerCase()
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)
}

const notJson = () => new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON: send "Content-Type: application/json"')

/**
 * Reads a JSON request body: 415 unless the content type is JSON, 413 past the configured size
 * (checked on Content-Length and again while streaming, since the header can lie or be absent),
 * 400 for text that is not JSON or nests deeper than MAX_JSON_DEPTH.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  if (!isJsonContentType(c.req.header('content-type'))) throw notJson()
  const text = await readBodyText(c)
  if (text.trim() === '') throw new ApiError('INVALID_JSON', 'Request body is empty: send a JSON object')
  try {
    return parseJson(text)
  } catch (err) {
    throw new ApiError('INVALID_JSON', `Request body is not valid JSON: ${jsonSyntaxMessage(err)}`)
  }
}

/** The request body as text: 413 past the configured size, 400 when it is not UTF-8. */
async function readBodyText(c: Context<AppEnv>): Promise<string> {
  const max = c.get('config').maxBodyBytes
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${max} bytes`)
  const declared = Number(c.req.header('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > max) throw tooLarge()

  const body = c.req.raw.body
  let text = ''
  if (body && Number.isFinite(declared)) {
    // A declared length frames the body, so it is read whole (and still measured).
    const bytes = await c.req.raw.arrayBuffer()
    if (bytes.byteLength > max) throw tooLarge()
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    } catch {
      throw new ApiError('INVALID_JSON', 'Request body is not valid UTF-8 text')
    }
  } else if (body) {
    const reader = body.getReader()
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })
    let size = 0
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        size += value.byteLength
        if (size > max) {
          await reader.cancel().catch(() => undefined)
          throw tooLarge()
        }
        text += decoder.decode(value, { stream: true })
      }
      text += decoder.decode()
    } catch (err) {
      if (err instanceof ApiError) throw err
      throw new ApiError('INVALID_JSON', 'Request body is not valid UTF-8 text')
    }
  }
  return text
}

/** Reads a JSON body that must be an object (every action and management route takes one). */
export async function readJsonObject(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const value = await readJsonBody(c)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('VALIDATION_FAILED', 'Request body must be a JSON object', [{ path: '/', message: 'Expected an object' }])
  }
  return value as Record<string, unknown>
}

/** Reads a JSON object body and validates it (400 listing every failing field). */
export async function readValidBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  return parseOrThrow(schema, await readJsonObject(c))
}

/**
 * Reads an optional JSON object body: `fallback` when the request has none (or an empty one), else
 * as readValidBody. A body without a JSON content type is a 415 like anywhere else, never taken for
 * no body: `{"integrations":[]}` sent as bytes without the header (as Python's requests sends
 * `data=`) was read as "grant what the agent declares".
 */
export async function readOptionalBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S, fallback: z.output<S>): Promise<z.output<S>> {
  if (c.req.raw.body === null || c.req.header('content-length') === '0') return fallback
  if (isJsonContentType(c.req.header('content-type'))) return readValidBody(c, schema)
  if ((await readBodyText(c)).trim() === '') return fallback
  throw notJson()
}
