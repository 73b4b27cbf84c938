import { z } from 'zod'
import { getOwnRun, listRuns, type RunRow } from '../db/runs'
import { ApiError } from '../http/errors'
import { cursorPage, Router, schemaRef } from '../http/route-table'
import { parseOrThrow } from '../http/validate'
import { waitForRun } from './execute'
import { readRunInput, readRunMetadata, readRunOutput } from './run-values'

const ListQuery = z.strictObject({
  action: z.string().max(100).optional().describe('Only runs of this action'),
  state: z.enum(['queued', 'running', 'succeeded', 'failed']).optional().describe('Only runs in this state'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1-100'),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
})

const GetQuery = z.strictObject({
  wait: z.coerce.number().min(0).optional().describe('Seconds to wait for a queued or running run to finish (capped by QUEUE_WAIT_MAX_SECONDS)'),
})

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function encodeCursor(run: RunRow): string {
  return btoa(`${run.created_at}:${run.id}`).replace(/=+$/, '')
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const [at, id] = atob(cursor).split(':')
    const createdAt = Number(at)
    if (Number.isFinite(createdAt) && id) return { createdAt, id }
  } catch {
    // falls through to the error below
  }
  throw new ApiError('VALIDATION_FAILED', 'cursor is not a cursor this API returned', [{ path: '/cursor', message: 'Invalid cursor' }])
}

/** A run as the API shows it: input is already redacted; output only once it succeeded. */
async function presentRun(cache: KVNamespace, r: RunRow, withOutput: boolean) {
  return {
    id: r.id,
    action: r.action,
    state: r.state,
    parent_run_id: r.parent_run_id,
    workflow_id: r.workflow_id,
    output_variable_name: r.output_variable_name,
    input: await readRunInput(cache, r),
    output: withOutput && r.state === 'succeeded' ? await readRunOutput(cache, r) : undefined,
    metadata: withOutput && r.state === 'succeeded' ? await readRunMetadata(cache, r) : undefined,
    error: r.error ? { status: r.error_status, code: r.error_code, message: r.error } : null,
    progress: r.progress ? (JSON.parse(r.progress) as unknown) : null,
    usage: r.usage ? (JSON.parse(r.usage) as unknown) : null,
    attempts: r.attempts,
    callback: r.callback_url ? { url: r.callback_url, state: r.callback_state ?? 'pending' } : null,
    created_at: iso(r.created_at),
    started_at: iso(r.started_at),
    finished_at: iso(r.finished_at),
    duration_ms: r.finished_at && r.started_at ? r.finished_at - r.started_at : null,
  }
}

/** `/v1/runs`: the caller's own runs; another account's run is a 404. */
export function runRoutes() {
  const app = new Router('Runs')
  app.get(
    '/',
    {
      operationId: 'listRuns',
      summary: "List the account's runs, newest first",
      query: ListQuery,
      response: cursorPage('Runs (without outputs)', 'Run'),
    },
    async (c) => {
      const q = parseOrThrow(ListQuery, c.req.query())
      const rows = await listRuns(c.env.DB, {
        accountId: c.get('principal').accountId,
        action: q.action,
        state: q.state,
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: q.limit,
      })
      const next = rows.length === q.limit ? encodeCursor(rows[rows.length - 1]) : null
      return c.json({ status: 200, response: await Promise.all(rows.map((r) => presentRun(c.env.CACHE, r, false))), next_cursor: next })
    },
  )
  app.get(
    '/:id',
    {
      operationId: 'getRun',
      summary: 'Read a run; `wait` long-polls until it finishes',
      params: { id: { description: 'Run id (run_...)' } },
      query: GetQuery,
      response: { description: 'The run, with its output once it succeeded', schema: schemaRef('Run') },
      errors: [404],
    },
    async (c) => {
      const accountId = c.get('principal').accountId
      const id = c.req.param('id')
      const { wait = 0 } = parseOrThrow(GetQuery, c.req.query())
      let run = await getOwnRun(c.env.DB, accountId, id)
      if (!run) throw new ApiError('NOT_FOUND', `Run "${id.slice(0, 64)}" not found`)
      if (wait > 0 && (run.state === 'queued' || run.state === 'running')) {
        run = (await waitForRun(c.env, id, Math.min(wait, c.get('config').queueWaitMaxSeconds))) ?? run
      }
      return c.json({ status: 200, response: await presentRun(c.env.CACHE, run, true) })
    },
  )
  return app
}
