import type { Config } from '../config'
import { getVariables, putVariable, scopeBytes } from '../db/variables'
import { ApiError } from '../http/errors'
import { randomBase62 } from '../lib/ids'
import { jsonSize, utf8Length } from '../lib/json-size'
import { blobKeys, loadText, MissingBlobError, storeText } from './blobs'

/** One account's Workflow-Id scope and what it needs to read and write variables. */
export interface VariableScope {
  db: D1Database
  cache: KVNamespace
  config: Config
  accountId: string
  workflowId: string
}

function variableTooLarge(config: Config, name: string, path: string): ApiError {
  const message = `the value is more than ${config.maxVariableBytes} bytes of JSON, the limit of one variable (MAX_VARIABLE_BYTES)`
  return new ApiError('PAYLOAD_TOO_LARGE', `Variable "${name}" was not stored: ${message}`, [{ path, message }])
}

function scopeFull(config: Config, name: string, others: number, size: number, path: string): ApiError {
  const message = `the scope's other variables hold ${others} bytes; ${size} more would pass its limit of ${config.maxScopeBytes} bytes (MAX_SCOPE_BYTES)`
  return new ApiError('PAYLOAD_TOO_LARGE', `Variable "${name}" was not stored: ${message}`, [{ path, message }])
}

/**
 * Reads the live variables `names` of a scope. A variable whose value was not kept (a result over
 * the limits) is a 413 naming it; one whose blob is gone (expired) reads as absent.
 */
export async function readVariables(scope: VariableScope, names: string[], now: number): Promise<Map<string, unknown>> {
  const rows = await getVariables(scope.db, scope.accountId, scope.workflowId, names, now)
  const out = new Map<string, unknown>()
  await Promise.all(
    [...rows.values()].map(async (row) => {
      if (row.value_kind === 'omitted') {
        const message = `the result stored under it was over MAX_VARIABLE_BYTES (${scope.config.maxVariableBytes}) or over what its scope had left under MAX_SCOPE_BYTES (${scope.config.maxScopeBytes}), so it was not kept`
        throw new ApiError('PAYLOAD_TOO_LARGE', `Variable "${row.name}" holds no value: ${message}`, [{ path: `variable:${row.name}`, message }])
      }
      try {
        const text = await loadText(scope.cache, blobKeys.variable(scope.accountId, scope.workflowId, row.name, row.version), row.value, row.value_kind)
        if (text !== null) out.set(row.name, JSON.parse(text))
      } catch (err) {
        if (!(err instanceof MissingBlobError)) throw err
      }
    }),
  )
  return out
}

/**
 * Checks, before anything runs, that `value` fits in one variable and in what its scope has left.
 * The write checks the scope again atomically; this only keeps a refused request from running.
 */
export async function checkVariableFits(scope: VariableScope, name: string, value: unknown, path: string): Promise<void> {
  const size = jsonSize(value ?? null, scope.config.maxVariableBytes)
  if (size > scope.config.maxVariableBytes) throw variableTooLarge(scope.config, name, path)
  const others = await scopeBytes(scope.db, scope.accountId, scope.workflowId, name, Date.now())
  if (others + size > scope.config.maxScopeBytes) throw scopeFull(scope.config, name, others, size, path)
}

/**
 * Sets a variable. A value over MAX_VARIABLE_BYTES, or one that would take the scope past
 * MAX_SCOPE_BYTES, is refused with a 413 (`onTooLarge: 'refuse'`), or, for an action's result whose
 * side effects already happened, recorded as not kept (`'omit'`) so a later reference says why instead
 * of reading an older value.
 */
export async function writeVariable(scope: VariableScope, name: string, value: unknown, now: number, onTooLarge: 'refuse' | 'omit', path = '/value'): Promise<void> {
  const { config } = scope
  const expiresAt = now + config.variableTtlSeconds * 1000
  const omit = async () => {
    const marker = { name, value: '', kind: 'omitted', size: 0, version: randomBase62(12), now, expiresAt, maxScopeBytes: Number.MAX_SAFE_INTEGER }
    const r = await putVariable(scope.db, scope.accountId, scope.workflowId, marker)
    if (r.written) await dropBlob(scope, name, r.previous)
  }
  const measured = jsonSize(value ?? null, config.maxVariableBytes)
  if (measured > config.maxVariableBytes) {
    if (onTooLarge === 'omit') return omit()
    throw variableTooLarge(config, name, path)
  }
  const text = JSON.stringify(value ?? null)
  const size = utf8Length(text)
  const version = randomBase62(12)
  const key = blobKeys.variable(scope.accountId, scope.workflowId, name, version)
  const stored = await storeText(scope.cache, key, text)
  const result = await putVariable(scope.db, scope.accountId, scope.workflowId, {
    name,
    value: stored.text,
    kind: stored.kind,
    size,
    version,
    now,
    expiresAt,
    maxScopeBytes: config.maxScopeBytes,
  })
  if (!result.written) {
    if (stored.kind !== 'inline') await scope.cache.delete(key)
    if (onTooLarge === 'omit') return omit()
    throw scopeFull(config, name, result.scopeBytes, size, path)
  }
  await dropBlob(scope, name, result.previous)
}

/** Drops the blob of a value that was replaced. */
async function dropBlob(scope: VariableScope, name: string, previous: { kind: string; version: string | null } | null): Promise<void> {
  if (previous && (previous.kind === 'kv' || previous.kind === 'sealed+kv')) {
    await scope.cache.delete(blobKeys.variable(scope.accountId, scope.workflowId, name, previous.version))
  }
}
