import { z } from 'zod'
import { callAction } from '../../runtime/execute'
import { outputVariable } from '../common/fields'
import { companyResearchAction } from '../company_research'
import { CompanyResearchInput } from '../company_research/schema'
import { defineAction } from '../define'

const StartInput = CompanyResearchInput.extend({ output_variable_name: outputVariable('research_run') })

/** Starts company research and answers at once with the run id to poll (the original's asynchronous start). */
export const companyResearchStartAction = defineAction({
  name: 'company_research_v2_start_research',
  summary: 'Start company research',
  description:
    'Same input as company_research_v2_run_full_research, but always answers at once with {run_id, state, poll}. Follow with company_research_v2_get_status and company_research_v2_get_report. output_variable_name stores this handle (default research_run), not the report.',
  input: StartInput,
  output: z.object({ run_id: z.string(), state: z.string(), poll: z.string() }),
  hints: { idempotent: false },
  integrations: ['model'],
  mode: 'inline',
  examples: [{ domain: 'example.com' }],
  async run(input, ctx) {
    const { output_variable_name: _handleVariable, ...body } = input
    const outcome = await callAction(
      { env: ctx.env, config: ctx.config, log: ctx.log, actions: ctx.actions, waitUntil: ctx.waitUntil },
      // Started from an agent's step, the research runs in that agent's scope (also in the Queue consumer).
      { account: ctx.account, requestId: ctx.requestId, workflowId: null, idempotencyKey: null, waitSeconds: 0, agent: ctx.agent },
      companyResearchAction,
      body,
    )
    const state = outcome.kind === 'done' ? 'succeeded' : outcome.kind === 'failed' ? 'failed' : outcome.state
    return { run_id: outcome.runId, state, poll: `/v1/runs/${outcome.runId}` }
  },
})
