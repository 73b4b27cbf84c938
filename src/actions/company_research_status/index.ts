import { z } from 'zod'
import { getOwnRun } from '../../db/runs'
import { readRunOutput } from '../../runtime/run-values'
import { ApiError } from '../../http/errors'
import { companyResearchAction } from '../company_research'
import { defineAction } from '../define'

/** A run id field, shared by the status and report actions. */
export const RunIdField = z
  .string()
  .min(1)
  .max(100)
  .regex(/^run_[A-Za-z0-9_]+$/, 'must be a run id such as "run_..."')
  .describe('Run id returned by company_research_v2_start_research (or a 202 of run_full_research).')

/** The caller's research run, or a 404 (other accounts' runs and other actions' runs read as absent). */
export async function researchRun(db: D1Database, accountId: string, runId: string) {
  const run = await getOwnRun(db, accountId, runId)
  if (!run || run.action !== companyResearchAction.name)
    throw new ApiError('NOT_FOUND', `Research run "${runId}" not found`, [{ path: '/run_id', message: 'No research run with this id for this account' }])
  return run
}

/** State and progress of a research run. */
export const companyResearchStatusAction = defineAction({
  name: 'company_research_v2_get_status',
  summary: 'Get company research status',
  description: 'State of a research run (queued, running, succeeded, failed), sections done so far, and the error of a failed run.',
  input: z.strictObject({ run_id: RunIdField }),
  hints: { readOnly: true, idempotent: true },
  mode: 'inline',
  examples: [{ run_id: 'run_0123456789abcdefABCD' }],
  async run(input, ctx) {
    const run = await researchRun(ctx.db, ctx.account.id, input.run_id)
    const progress = run.progress ? (JSON.parse(run.progress) as { sections_done?: number; sections_total?: number; last_section?: string }) : null
    let summary: unknown = null
    if (run.state === 'succeeded') summary = ((await readRunOutput(ctx.cache, run)) as { summary?: unknown } | null)?.summary ?? null
    return {
      run_id: run.id,
      state: run.state,
      sections_done: progress?.sections_done ?? null,
      sections_total: progress?.sections_total ?? null,
      last_section: progress?.last_section ?? null,
      summary,
      error: run.error ? { code: run.error_code, message: run.error } : null,
      created_at: new Date(run.created_at).toISOString(),
      finished_at: run.finished_at ? new Date(run.finished_at).toISOString() : null,
    }
  },
})
