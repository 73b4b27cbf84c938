/** Idempotency keys: the first request with a key owns it; later ones reuse its run. */
import { inFlightCount, type NewRun } from './runs'

export interface IdempotencyRow {
  action: string
  body_hash: string
  run_id: string
}

/**
 * Claims `key` and creates `run` in one transaction: the run row exists exactly when the key does,
 * so a concurrent duplicate always finds a run to wait on. Returns null when this request got the
 * key, or the live claim that another request holds. With `maxInFlight` (a queued run), neither is
 * stored when the account already has that many queued runs in flight: then the answer is 'full'.
 */
export async function claimKeyWithRun(db: D1Database, key: string, bodyHash: string, run: NewRun, expiresAt: number, maxInFlight: number | null = null): Promise<IdempotencyRow | 'full' | null> {
  const [, inserted] = await db.batch<{ run_id: string }>([
    db.prepare('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND expires_at <= ?').bind(run.account_id, key, run.created_at),
    db
      .prepare(
        `INSERT INTO idempotency_keys (account_id, key, action, body_hash, run_id, created_at, expires_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE ?8 IS NULL OR ${inFlightCount('?1')} < ?8
         ON CONFLICT(account_id, key) DO NOTHING RETURNING run_id`,
      )
      .bind(run.account_id, key, run.action, bodyHash, run.id, run.created_at, expiresAt, maxInFlight),
    db
      .prepare(
        `INSERT INTO runs (id, account_id, action, state, parent_run_id, workflow_id, output_variable_name, input, input_kind, job_input, job_input_kind,
                           callback_url, created_at, started_at, attempts)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
          WHERE EXISTS (SELECT 1 FROM idempotency_keys WHERE account_id = ? AND key = ? AND run_id = ?)`,
      )
      .bind(
        run.id,
        run.account_id,
        run.action,
        run.state,
        run.parent_run_id,
        run.workflow_id,
        run.output_variable_name,
        run.input,
        run.input_kind,
        run.job_input,
        run.job_input_kind,
        run.callback_url,
        run.created_at,
        run.started_at,
        run.state === 'running' ? 1 : 0,
        run.account_id,
        key,
        run.id,
      ),
  ])
  if (inserted.results.length > 0) return null
  const existing = await db.prepare('SELECT action, body_hash, run_id FROM idempotency_keys WHERE account_id = ? AND key = ?').bind(run.account_id, key).first<IdempotencyRow>()
  return existing ?? (maxInFlight === null ? null : 'full')
}
