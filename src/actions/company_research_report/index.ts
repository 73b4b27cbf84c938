import { z } from 'zod'
import { readRunOutput } from '../../runtime/run-values'
import { SECTION_NAMES } from '../../research/types'
import type { ResearchReport } from '../../research/report'
import { researchRun, RunIdField } from '../company_research_status'
import { defineAction } from '../define'

/** The report of a finished research run, or one of its sections. */
export const companyResearchReportAction = defineAction({
  name: 'company_research_v2_get_report',
  summary: 'Get company research report',
  description: 'The report of a research run, or one section of it. While the run is not finished the answer says so (ready false) with its state.',
  input: z.strictObject({
    run_id: RunIdField,
    section: z
      .enum(SECTION_NAMES)
      .optional()
      .describe(`One section to return instead of the whole report: ${SECTION_NAMES.join(', ')}.`),
  }),
  hints: { readOnly: true, idempotent: true },
  mode: 'inline',
  examples: [{ run_id: 'run_0123456789abcdefABCD' }, { run_id: 'run_0123456789abcdefABCD', section: 'news' }],
  async run(input, ctx) {
    const run = await researchRun(ctx.db, ctx.account.id, input.run_id)
    if (run.state !== 'succeeded') {
      return { run_id: run.id, state: run.state, ready: false, error: run.error ? { code: run.error_code, message: run.error } : null, poll: `/v1/runs/${run.id}` }
    }
    const report = (await readRunOutput(ctx.cache, run)) as ResearchReport
    if (!input.section) return { run_id: run.id, state: run.state, ready: true, report }
    const section = report.sections[input.section]
    return { run_id: run.id, state: run.state, ready: true, domain: report.domain, section: input.section, result: section ?? null, selected: section !== undefined }
  },
})
