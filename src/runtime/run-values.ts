import type { Config } from '../config'
import type { RunRow } from '../db/runs'
import type { Env } from '../env'
import { blobKeys, loadJson, storeJson, type Stored, type StoredField } from './blobs'

/** KV lifetime of a run's blobs: a day past the retention purge, so KV drops any the purge missed. */
function runBlobTtl(config: Config): number | undefined {
  return config.runRetentionDays > 0 ? (config.runRetentionDays + 1) * 86_400 : undefined
}

/** What each value of a run is, for the 413 that refuses one past KV's limit. */
const RUN_FIELDS: Record<'input' | 'job' | 'output' | 'metadata', StoredField> = {
  input: { path: '/', what: 'The input, as the run records it (secrets redacted),' },
  job: { path: '/', what: 'The input, as the queue consumer reads it,' },
  output: { path: '/response', what: "The action's result" },
  metadata: { path: '/metadata', what: "The action's metadata" },
}

/** Stores one value of a run (its recorded input, output or metadata) for its row. */
export function storeRunValue(env: Env, config: Config, runId: string, part: 'input' | 'output' | 'metadata', value: unknown): Promise<Stored> {
  return storeJson(env.CACHE, blobKeys.run(runId, part), value, { ttlSeconds: runBlobTtl(config), field: RUN_FIELDS[part] })
}

/** Stores the full input of a queued run for the consumer, sealed (bound to the run) when it holds secrets. */
export function storeJobInput(env: Env, config: Config, runId: string, input: Record<string, unknown>, sealed: boolean): Promise<Stored> {
  const sealWith = sealed ? { key: env.ENCRYPTION_KEY, context: `job:${runId}` } : undefined
  return storeJson(env.CACHE, blobKeys.run(runId, 'job'), input, { sealWith, ttlSeconds: runBlobTtl(config), field: RUN_FIELDS.job })
}

/** The input a run record shows (secrets already redacted). */
export function readRunInput(cache: KVNamespace, run: Pick<RunRow, 'id' | 'input' | 'input_kind'>): Promise<unknown> {
  return loadJson(cache, blobKeys.run(run.id, 'input'), run.input, run.input_kind)
}

/** The full input a queued run was stored with. */
export async function readJobInput(env: Env, run: Pick<RunRow, 'id' | 'job_input' | 'job_input_kind'>): Promise<Record<string, unknown>> {
  // Cleared when the run ends; the kind stays so the retention purge knows where the value was.
  if (run.job_input === null) throw new Error(`run ${run.id} has no job input`)
  const sealWith = { key: env.ENCRYPTION_KEY, context: `job:${run.id}` }
  return (await loadJson(env.CACHE, blobKeys.run(run.id, 'job'), run.job_input, run.job_input_kind, sealWith)) as Record<string, unknown>
}

/** A finished run's output (null when it has none). */
export function readRunOutput(cache: KVNamespace, run: Pick<RunRow, 'id' | 'output' | 'output_kind'>): Promise<unknown> {
  return loadJson(cache, blobKeys.run(run.id, 'output'), run.output, run.output_kind)
}

/** A finished run's metadata, or undefined when it has none. */
export async function readRunMetadata(cache: KVNamespace, run: Pick<RunRow, 'id' | 'metadata' | 'metadata_kind'>): Promise<unknown> {
  if (run.metadata === null) return undefined
  return loadJson(cache, blobKeys.run(run.id, 'metadata'), run.metadata, run.metadata_kind)
}

/** Stores a memoized step result, sealed (bound to the run and step) when it holds a secret of the run. */
export function storeStepValue(env: Env, config: Config, runId: string, step: string, value: unknown, sealed: boolean): Promise<Stored> {
  const sealWith = sealed ? { key: env.ENCRYPTION_KEY, context: `step:${runId}:${step}` } : undefined
  return storeJson(env.CACHE, blobKeys.step(runId, step), value, { sealWith, ttlSeconds: runBlobTtl(config), field: { path: '/', what: `The result of step "${step}"` } })
}

/** A memoized step result as it was stored. */
export function readStepValue(env: Env, runId: string, step: string, row: { output: string; output_kind: string }): Promise<unknown> {
  return loadJson(env.CACHE, blobKeys.step(runId, step), row.output, row.output_kind, { key: env.ENCRYPTION_KEY, context: `step:${runId}:${step}` })
}
