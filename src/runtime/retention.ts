import type { Config } from '../config'
import { deleteRuns, runsFinishedBefore } from '../db/runs'
import { deleteVariables, expiredVariableBlobs, purgeExpired } from '../db/variables'
import type { Env } from '../env'
import { blobKeys } from './blobs'

/** Rows one purge step handles, and steps one cron run takes. */
const ROWS_PER_STEP = 100
const MAX_STEPS = 20
/** KV deletes one cron run may make (each is a subrequest); the rest waits for the next run. */
const MAX_BLOB_DELETES = 500

const IN_KV = new Set(['kv', 'sealed+kv'])

/** What one purge removed. */
export interface PurgeStats {
  runs: number
  variables: number
  blobs: number
}

async function deleteBlobs(cache: KVNamespace, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => cache.delete(k)))
}

/**
 * The cron's purge, in bounded steps: expired variables, idempotency keys and old rate-limit rows;
 * then expired variables whose values are in KV and runs that finished more than RUN_RETENTION_DAYS
 * ago, each with its KV blobs. Blobs go first, so a row never points at a missing blob (a purged
 * variable is already expired, so nothing reads it in between). What is left over waits for the next run.
 */
export async function purgeStored(env: Env, config: Config, now: number): Promise<PurgeStats> {
  await purgeExpired(env.DB, now)
  const stats: PurgeStats = { runs: 0, variables: 0, blobs: 0 }
  let steps = 0
  while (stats.blobs < MAX_BLOB_DELETES && steps++ < MAX_STEPS) {
    const rows = await expiredVariableBlobs(env.DB, now, Math.min(ROWS_PER_STEP, MAX_BLOB_DELETES - stats.blobs))
    if (rows.length === 0) break
    await deleteBlobs(
      env.CACHE,
      rows.map((r) => blobKeys.variable(r.account_id, r.workflow_id, r.name, r.version)),
    )
    await deleteVariables(env.DB, rows, now)
    stats.variables += rows.length
    stats.blobs += rows.length
  }
  if (config.runRetentionDays <= 0) return stats
  const cutoff = now - config.runRetentionDays * 86_400_000
  while (stats.blobs < MAX_BLOB_DELETES && steps++ < MAX_STEPS) {
    const { runs, kvSteps } = await runsFinishedBefore(env.DB, cutoff, ROWS_PER_STEP)
    if (runs.length === 0) break
    const keys: string[] = []
    for (const r of runs) {
      if (IN_KV.has(r.input_kind)) keys.push(blobKeys.run(r.id, 'input'))
      if (r.job_input_kind && IN_KV.has(r.job_input_kind)) keys.push(blobKeys.run(r.id, 'job'))
      if (r.output_kind && IN_KV.has(r.output_kind)) keys.push(blobKeys.run(r.id, 'output'))
      if (r.metadata_kind && IN_KV.has(r.metadata_kind)) keys.push(blobKeys.run(r.id, 'metadata'))
    }
    for (const s of kvSteps) keys.push(blobKeys.step(s.run_id, s.step))
    await deleteBlobs(env.CACHE, keys)
    await deleteRuns(
      env.DB,
      runs.map((r) => r.id),
    )
    stats.runs += runs.length
    stats.blobs += keys.length
  }
  return stats
}
