/** Runs and their memoized steps. */

/** A value column and the kind column beside it that says where the value lives (see src/runtime/blobs.ts). */
export interface StoredColumn {
  text: string
  kind: string
}

export type RunState = 'queued' | 'running' | 'succeeded' | 'failed'

export interface RunRow {
  id: string
  account_id: string
  action: string
  state: RunState
  parent_run_id: string | null
  workflow_id: string | null
  output_variable_name: string | null
  input: string
  input_kind: string
  job_input: string | null
  job_input_kind: string
  output: string | null
  output_kind: string
  metadata: string | null
  metadata_kind: string
  error: string | null
  error_code: string | null
  error_status: number | null
  progress: string | null
  usage: string | null
  attempts: number
  lease_until: number | null
  callback_url: string | null
  callback_state: string | null
  created_at: number
  started_at: number | null
  finished_at: number | null
}

export type NewRun = Pick<
  RunRow,
  | 'id'
  | 'account_id'
  | 'action'
  | 'state'
  | 'parent_run_id'
  | 'workflow_id'
  | 'output_variable_name'
  | 'input'
  | 'input_kind'
  | 'job_input'
  | 'job_input_kind'
  | 'callback_url'
  | 'created_at'
  | 'started_at'
>

/** The columns a new run sets, in the order of `runValues`. */
const RUN_COLUMNS = 'id, account_id, action, state, parent_run_id, workflow_id, output_variable_name, input, input_kind, job_input, job_input_kind, callback_url, created_at, started_at'
const runValues = (r: NewRun) =>
  [
    r.id,
    r.account_id,
    r.action,
    r.state,
    r.parent_run_id,
    r.workflow_id,
    r.output_variable_name,
    r.input,
    r.input_kind,
    r.job_input,
    r.job_input_kind,
    r.callback_url,
    r.created_at,
    r.started_at,
  ] as const

export async function insertRun(db: D1Database, r: NewRun): Promise<void> {
  await db
    .prepare(
      `INSERT INTO runs (${RUN_COLUMNS}, attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(...runValues(r), r.state === 'running' ? 1 : 0)
    .run()
}

/** SQL counting the queued runs of an account (bound at `param`) that hold a queue message and have not ended. */
export const inFlightCount = (param: string) => `(SELECT count(*) FROM runs WHERE account_id = ${param} AND job_input IS NOT NULL AND state IN ('queued', 'running'))`

/**
 * Inserts a queued run unless its account already has `maxInFlight` queued runs in flight; one
 * statement, so concurrent requests cannot pass the cap together. False when refused.
 */
export async function insertQueuedRun(db: D1Database, r: NewRun, maxInFlight: number): Promise<boolean> {
  const res = await db
    .prepare(
      `INSERT INTO runs (${RUN_COLUMNS}, attempts)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, 0 WHERE ${inFlightCount('?2')} < ?15`,
    )
    .bind(...runValues(r), maxInFlight)
    .run()
  return res.meta.changes > 0
}

/** Inserts a child run unless it exists (a retried parent reuses its children). */
export async function insertRunIfAbsent(db: D1Database, r: NewRun): Promise<void> {
  await db
    .prepare(
      `INSERT INTO runs (${RUN_COLUMNS}, attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT(id) DO UPDATE SET attempts = attempts + 1`,
    )
    .bind(...runValues(r))
    .run()
}

export async function getRun(db: D1Database, id: string): Promise<RunRow | null> {
  return db.prepare('SELECT * FROM runs WHERE id = ?').bind(id).first<RunRow>()
}

/** A run of one account; another account's run reads as absent. */
export async function getOwnRun(db: D1Database, accountId: string, id: string): Promise<RunRow | null> {
  return db.prepare('SELECT * FROM runs WHERE id = ? AND account_id = ?').bind(id, accountId).first<RunRow>()
}

export interface RunListFilter {
  accountId: string
  action?: string
  state?: RunState
  /** Cursor: created_at and id of the last run of the previous page. */
  before?: { createdAt: number; id: string }
  limit: number
}

export async function listRuns(db: D1Database, f: RunListFilter): Promise<RunRow[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM runs
        WHERE account_id = ?1 AND (?2 IS NULL OR action = ?2) AND (?3 IS NULL OR state = ?3)
          AND (?4 IS NULL OR created_at < ?4 OR (created_at = ?4 AND id < ?5))
        ORDER BY created_at DESC, id DESC LIMIT ?6`,
    )
    .bind(f.accountId, f.action ?? null, f.state ?? null, f.before?.createdAt ?? null, f.before?.id ?? '', f.limit)
    .all<RunRow>()
  return results
}

/**
 * Claims a queued run (or one whose lease ran out after a crash) for this consumer.
 * Returns null when the run is finished or another consumer holds it.
 */
export async function claimRun(db: D1Database, id: string, now: number, leaseMs: number): Promise<RunRow | null> {
  return db
    .prepare(
      `UPDATE runs SET state = 'running', attempts = attempts + 1, started_at = COALESCE(started_at, ?2), lease_until = ?3
        WHERE id = ?1 AND (state = 'queued' OR (state = 'running' AND (lease_until IS NULL OR lease_until < ?2)))
        RETURNING *`,
    )
    .bind(id, now, now + leaseMs)
    .first<RunRow>()
}

/** Hands a claimed run back to the queue (after a transient failure or to continue later). */
export async function releaseRun(db: D1Database, id: string, state: 'queued' | 'running'): Promise<void> {
  await db.prepare("UPDATE runs SET state = ?, lease_until = NULL WHERE id = ? AND state IN ('queued', 'running')").bind(state, id).run()
}

export async function extendLease(db: D1Database, id: string, until: number): Promise<void> {
  await db.prepare("UPDATE runs SET lease_until = ? WHERE id = ? AND state = 'running'").bind(until, id).run()
}

export async function setProgress(db: D1Database, id: string, progress: string, leaseUntil: number | null): Promise<void> {
  await db.prepare("UPDATE runs SET progress = ?, lease_until = COALESCE(?, lease_until) WHERE id = ? AND state IN ('queued', 'running')").bind(progress, leaseUntil, id).run()
}

/** Ends a run with its output; false when it had already ended (a duplicate finisher). */
export async function succeedRun(db: D1Database, id: string, output: StoredColumn, metadata: StoredColumn | null, usage: string | null, now: number): Promise<boolean> {
  const res = await db
    .prepare(
      `UPDATE runs SET state = 'succeeded', output = ?, output_kind = ?, metadata = ?, metadata_kind = ?, usage = COALESCE(?, usage),
                       job_input = NULL, lease_until = NULL, finished_at = ?
        WHERE id = ? AND state IN ('queued', 'running')`,
    )
    .bind(output.text, output.kind, metadata?.text ?? null, metadata?.kind ?? 'inline', usage, now, id)
    .run()
  return res.meta.changes > 0
}

export async function failRun(db: D1Database, id: string, err: { message: string; code: string; status: number }, usage: string | null, now: number): Promise<boolean> {
  const res = await db
    .prepare(
      `UPDATE runs SET state = 'failed', error = ?, error_code = ?, error_status = ?, usage = COALESCE(?, usage), job_input = NULL, lease_until = NULL, finished_at = ?
        WHERE id = ? AND state IN ('queued', 'running')`,
    )
    .bind(err.message, err.code, err.status, usage, now, id)
    .run()
  return res.meta.changes > 0
}

export async function setCallbackState(db: D1Database, id: string, state: string): Promise<void> {
  await db.prepare('UPDATE runs SET callback_state = ? WHERE id = ?').bind(state, id).run()
}

/** A memoized step's stored result, or null when the step has not finished. */
export async function getStep(db: D1Database, runId: string, step: string): Promise<{ output: string; output_kind: string } | null> {
  return db.prepare('SELECT output, output_kind FROM run_steps WHERE run_id = ? AND step = ?').bind(runId, step).first<{ output: string; output_kind: string }>()
}

export async function putStep(db: D1Database, runId: string, step: string, output: StoredColumn, now: number): Promise<void> {
  await db
    .prepare('INSERT INTO run_steps (run_id, step, output, output_kind, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(run_id, step) DO NOTHING')
    .bind(runId, step, output.text, output.kind, now)
    .run()
}

/** The final state of a run written in one go. */
export interface RunEnd {
  state: 'succeeded' | 'failed'
  output: StoredColumn | null
  metadata: StoredColumn | null
  usage: string | null
  error: { message: string; code: string; status: number } | null
  finishedAt: number
}

/**
 * Inserts an inline run that has already finished: one write instead of an insert and an update;
 * `alongside` (its steps' records, its execution count) goes in the same batch, one transaction.
 */
export async function insertFinishedRun(db: D1Database, r: NewRun, end: RunEnd, alongside: D1PreparedStatement[] = []): Promise<void> {
  const insert = finishedRunStatement(db, r, end)
  await (alongside.length > 0 ? db.batch([...alongside, insert]) : insert.run())
}

/** The insert of a finished run, to send in a batch with others (insertFinishedRun). */
export function finishedRunStatement(db: D1Database, r: NewRun, end: RunEnd): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO runs (id, account_id, action, state, parent_run_id, workflow_id, output_variable_name, input, input_kind, output, output_kind, metadata,
                         metadata_kind, usage, error, error_code, error_status, attempts, created_at, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
    )
    .bind(
      r.id,
      r.account_id,
      r.action,
      end.state,
      r.parent_run_id,
      r.workflow_id,
      r.output_variable_name,
      r.input,
      r.input_kind,
      end.output?.text ?? null,
      end.output?.kind ?? 'inline',
      end.metadata?.text ?? null,
      end.metadata?.kind ?? 'inline',
      end.usage,
      end.error?.message ?? null,
      end.error?.code ?? null,
      end.error?.status ?? null,
      r.created_at,
      r.started_at,
      end.finishedAt,
    )
}

/** A finished run the retention purge removes, with where its values live. */
export interface PurgeableRun {
  id: string
  input_kind: string
  job_input_kind: string
  output_kind: string
  metadata_kind: string
}

/** Runs that finished before `cutoff`, oldest first, at most `limit`, and those of their steps whose results are in KV. */
export async function runsFinishedBefore(db: D1Database, cutoff: number, limit: number): Promise<{ runs: PurgeableRun[]; kvSteps: { run_id: string; step: string }[] }> {
  const { results: runs } = await db
    .prepare('SELECT id, input_kind, job_input_kind, output_kind, metadata_kind FROM runs WHERE finished_at < ? ORDER BY finished_at LIMIT ?')
    .bind(cutoff, limit)
    .all<PurgeableRun>()
  if (runs.length === 0) return { runs, kvSteps: [] }
  const { results: kvSteps } = await db
    .prepare("SELECT run_id, step FROM run_steps WHERE run_id IN (SELECT value FROM json_each(?)) AND output_kind IN ('kv', 'sealed+kv')")
    .bind(JSON.stringify(runs.map((r) => r.id)))
    .all<{ run_id: string; step: string }>()
  return { runs, kvSteps }
}

/** Deletes runs with their steps and crawl frontier rows. */
export async function deleteRuns(db: D1Database, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  const list = JSON.stringify(ids)
  await db.batch([
    db.prepare('DELETE FROM run_steps WHERE run_id IN (SELECT value FROM json_each(?))').bind(list),
    db.prepare('DELETE FROM crawl_pages WHERE run_id IN (SELECT value FROM json_each(?))').bind(list),
    db.prepare('DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))').bind(list),
  ])
}
