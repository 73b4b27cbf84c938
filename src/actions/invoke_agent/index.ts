import { z } from 'zod'
import { checkAgentAccess, loadAgent, parseAgentInput, runWorkflow, validateAgentParams } from '../../agents/invoke'
import type { Parameters, Workflow } from '../../agents/schema'
import { secretParameterNames } from '../../agents/secret-params'
import { ownValue } from '../../lib/objects'
import { outputVariable } from '../common/fields'
import { defineAction } from '../define'
import type { ActionContext } from '../../runtime/context'

/** `invoke_agent_<id>`: the tool name of an agent, accepted as an action name. */
export const AGENT_ALIAS = /^invoke_agent_([A-Za-z0-9]{1,64})$/

/** The body of `POST /v1/action/invoke_agent_<id>`: the parameters themselves. */
export function agentAliasBody(id: string, body: Record<string, unknown>): Record<string, unknown> {
  return { id, input: body }
}

const agentInput = z
  .union([z.record(z.string(), z.unknown()), z.string().max(100_000)])
  .optional()
  .describe("The agent's parameters: an object or its JSON text")

type AgentCall = { id: string; input?: unknown; user_input?: unknown }

async function loadAgentAndParams(input: AgentCall, ctx: ActionContext) {
  const agent = await loadAgent(ctx.db, { accountId: ctx.account.id, teamIds: ctx.account.teamIds }, input.id, ctx.agent?.foreign)
  const field = input.input !== undefined ? 'input' : 'user_input'
  const raw = parseAgentInput(input.input ?? input.user_input, field)
  return { agent, raw, params: validateAgentParams(JSON.parse(agent.parameters) as Parameters, raw, field) }
}

/** One load per call: precheck, secret collection and the run all see the same input object. */
const loaded = new WeakMap<AgentCall, ReturnType<typeof loadAgentAndParams>>()

function agentAndParams(input: AgentCall, ctx: ActionContext): ReturnType<typeof loadAgentAndParams> {
  let got = loaded.get(input)
  if (!got) {
    got = loadAgentAndParams(input, ctx)
    loaded.set(input, got)
  }
  return got
}

/** Runs an agent the caller can see, with parameters validated against its schema. */
export const invokeAgentAction = defineAction({
  name: 'invoke_agent',
  summary: 'Invoke an agent',
  description: "Runs an agent's workflow with the given parameters and answers its output. Agents are also callable as POST /v1/action/invoke_agent_<id> with the parameters as the body.",
  input: z.strictObject({
    id: z.string().min(1).max(80).describe('Agent id (or slug)'),
    input: agentInput,
    user_input: agentInput.describe('Same as input (accepted for older callers)'),
    output_variable_name: outputVariable('agent_result'),
  }),
  hints: { sideEffect: true },
  /** Queued when any step's action may run queued (research, audits); inline otherwise. */
  async mode(input, ctx) {
    const { agent } = await agentAndParams(input, ctx)
    const workflow = JSON.parse(agent.workflow) as Workflow
    return workflow.steps.some((s) => ctx.actions(s.action)?.mode !== 'inline') ? 'queued' : 'inline'
  },
  examples: [{ id: 'acctbrief01', input: { domain: 'example.com' } }],
  async precheck(input, ctx) {
    const { agent } = await agentAndParams(input, ctx)
    await checkAgentAccess(ctx, agent)
  },
  /** The values of the agent's secret parameters (marked, or flowing into a secret field), as given and as converted. */
  async secretValues(input, ctx) {
    const { agent, raw, params } = await agentAndParams(input, ctx)
    const names = secretParameterNames(JSON.parse(agent.parameters) as Parameters, JSON.parse(agent.workflow) as Workflow, ctx.actions)
    return [...names].flatMap((name) => [ownValue(raw, name), ownValue(params, name)])
  },
  async run(input, ctx) {
    const { agent, params } = await agentAndParams(input, ctx)
    return runWorkflow(ctx, agent, params)
  },
})
