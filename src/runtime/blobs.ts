/**
 * JSON values of any size for D1 rows (run inputs and outputs, step results, variable values): small
 * ones in the row, large ones (D1 caps a row at 2 MB) in KV under a key derived from the owning row.
 * Where a value lives is recorded in a kind column beside it and never read from the value's text, so
 * a caller's value is always data, whatever it looks like.
 */
import { open, seal } from '../lib/crypto'
import { jsonSize, utf8Length } from '../lib/json-size'

/** Bytes of UTF-8 a value column holds at most: a run row holds up to three at once (input, output, metadata). */
export const INLINE_LIMIT = 512 * 1024

/**
 * Bytes one KV value holds at most (25 MiB): KV refuses a longer put, which would surface as a 500
 * after the work was done, so a value past it is refused by name first.
 */
export const KV_MAX_VALUE_BYTES = 25 * 1024 * 1024

/** Where a stored value lives; see migrations/0012_stored_kinds.sql. */
export type StoredKind = 'inline' | 'kv' | 'sealed' | 'sealed+kv'

/** What a row holds for one value: its column text (empty when the value is in KV) and its kind. */
export interface Stored {
  text: string
  kind: StoredKind
}

/** AES-GCM sealing of a stored value, bound to the record it belongs to. */
export interface SealWith {
  key: string | undefined
  context: string
}

/** KV keys of blobs. Each is derived from the owning row alone: no caller text ever names one. */
export const blobKeys = {
  /** A variable value; rows written before versions existed keep the key they were given then. */
  variable(accountId: string, workflowId: string, name: string, version: string | null): string {
    return `blob:var:${accountId}:${workflowId}:${name}${version ? `#${version}` : ''}`
  },
  run(runId: string, part: 'input' | 'job' | 'output' | 'metadata'): string {
    return `blob:run:${runId}:${part}`
  },
  step(runId: string, step: string): string {
    return `blob:step:${runId}:${step}`
  },
}

/** What a stored value is, for the error that refuses one too large: a pointer and words. */
export interface StoredField {
  path: string
  what: string
}

/** A value whose stored text (sealed, when it is sealed) is past what one KV value holds; `bytes` is at least its size. */
export class StoredValueTooLargeError extends Error {
  constructor(
    readonly field: StoredField,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`${field.what} is too large to store: more than the ${limit} bytes (25 MiB) one stored value may hold`)
    this.name = 'StoredValueTooLarge'
  }
}

/** Thrown when a row says its value is in KV and KV has no such key (purged or expired). */
export class MissingBlobError extends Error {
  constructor(readonly key: string) {
    super('a stored value is missing from KV')
    this.name = 'MissingBlobError'
  }
}

/** How a value is stored: sealed or not, for how long, and what it is (named when it is refused). */
export interface StoreOptions {
  sealWith?: SealWith
  ttlSeconds?: number
  field?: StoredField
}

const VALUE: StoredField = { path: '/', what: 'The value' }

/**
 * Stores text for a row: in the row when small, else in KV under `key`; sealed first when `sealWith`
 * is given. `ttlSeconds` lets KV drop a blob its row can no longer outlive. Past KV_MAX_VALUE_BYTES
 * it throws StoredValueTooLargeError, having stored nothing.
 */
export async function storeText(cache: KVNamespace, key: string, text: string, opts: StoreOptions = {}): Promise<Stored> {
  const body = opts.sealWith ? await seal(opts.sealWith.key, text, opts.sealWith.context) : text
  const sealed = opts.sealWith !== undefined
  if (body.length <= INLINE_LIMIT && utf8Length(body) <= INLINE_LIMIT) return { text: body, kind: sealed ? 'sealed' : 'inline' }
  const bytes = utf8Length(body)
  if (bytes > KV_MAX_VALUE_BYTES) throw new StoredValueTooLargeError(opts.field ?? VALUE, bytes, KV_MAX_VALUE_BYTES)
  await cache.put(key, body, opts.ttlSeconds ? { expirationTtl: Math.max(60, Math.ceil(opts.ttlSeconds)) } : undefined)
  return { text: '', kind: sealed ? 'sealed+kv' : 'kv' }
}

/** Stores a JSON value for a row (see storeText); one whose JSON alone is past KV's limit is refused before its text is built. */
export function storeJson(cache: KVNamespace, key: string, value: unknown, opts: StoreOptions = {}): Promise<Stored> {
  const size = jsonSize(value ?? null, KV_MAX_VALUE_BYTES)
  if (size > KV_MAX_VALUE_BYTES) return Promise.reject(new StoredValueTooLargeError(opts.field ?? VALUE, size, KV_MAX_VALUE_BYTES))
  return storeText(cache, key, JSON.stringify(value ?? null), opts)
}

/** True when the stored text is the value's JSON itself (so it can be sent without reading it back). */
export function isInline(stored: Stored): boolean {
  return stored.kind === 'inline'
}

/**
 * Reads back the text a row stored: `text` and `kind` are the row's columns, `key` the blob key
 * derived from the same row. Null when the row holds no value (a null column of an inline kind).
 */
export async function loadText(cache: KVNamespace, key: string, text: string | null, kind: string, sealWith?: SealWith): Promise<string | null> {
  let body: string
  switch (kind) {
    case 'inline':
    case 'sealed':
      if (text === null) return null
      body = text
      break
    case 'kv':
    case 'sealed+kv': {
      const got = await cache.get(key)
      if (got === null) throw new MissingBlobError(key)
      body = got
      break
    }
    default:
      throw new Error(`unknown stored kind "${kind}"`)
  }
  if (kind === 'sealed' || kind === 'sealed+kv') {
    if (!sealWith) throw new Error('a sealed value needs its sealing context to be read')
    return open(sealWith.key, body, sealWith.context)
  }
  return body
}

/** Reads back a JSON value a row stored (see loadText). */
export async function loadJson(cache: KVNamespace, key: string, text: string | null, kind: string, sealWith?: SealWith): Promise<unknown> {
  const body = await loadText(cache, key, text, kind, sealWith)
  return body === null ? null : JSON.parse(body)
}
