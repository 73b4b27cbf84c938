#!/usr/bin/env node
/**
 * The service from the OpenAI SDK's tool loop: the model searches the agent catalog, picks an
 * agent, and calls it; every call goes to this API.
 *
 *   npm run dev                                   # in another terminal
 *   OPENAI_API_KEY=sk-... node scripts/examples/openai-tool-loop.mjs "Find marketing agents for email nurture campaigns"
 *
 * Settings: OPENAI_API_KEY (yours, required), OPENAI_MODEL (default gpt-4.1-mini), API_URL
 * (default http://localhost:8787), TOKEN (default: .wrangler/dev-token from `npm run dev`).
 */
import { existsSync, readFileSync } from 'node:fs'
import OpenAI from 'openai'

const base = process.env.API_URL ?? 'http://localhost:8787'
const token = process.env.TOKEN ?? (existsSync('.wrangler/dev-token') ? readFileSync('.wrangler/dev-token', 'utf8').trim() : '')
if (!token) throw new Error('Set TOKEN, or run `npm run dev` first (it writes .wrangler/dev-token)')
if (!process.env.OPENAI_API_KEY) throw new Error('Set OPENAI_API_KEY to your OpenAI key')
const model = process.env.OPENAI_MODEL ?? 'gpt-4.1-mini'
const task = process.argv[2] ?? 'Find marketing agents for email nurture campaigns'

/** POST /v1/action/<name>; a queued run (202) is polled until it finishes. */
async function callAction(name, body) {
  const headers = { Authorization: `Bearer ${token}`, 'content-type': 'application/json', Prefer: 'wait=25' }
  let res = await fetch(`${base}/v1/action/${name}`, { method: 'POST', headers, body: JSON.stringify(body) })
  let json = await res.json()
  while (res.status === 202) {
    res = await fetch(`${base}${json.response.poll}?wait=30`, { headers })
    const run = (await res.json()).response
    if (run.state === 'succeeded') return { status: 200, response: run.output }
    if (run.state === 'failed') return { status: run.error.status, error: run.error.message, code: run.error.code }
    json = { response: { poll: `/v1/runs/${run.id}` } }
    res = { status: 202 }
  }
  return json
}

const searchTool = {
  type: 'function',
  function: {
    name: 'search',
    description: 'Search the catalog of agents you can run. Each hit becomes a tool named invoke_agent_<id> that you can call next.',
    parameters: { type: 'object', properties: { query: { type: 'string', description: 'What the agent should do' } }, required: ['query'], additionalProperties: false },
    strict: true,
  },
}

const openai = new OpenAI()
const tools = new Map([['search', searchTool]])
const messages = [
  { role: 'system', content: 'You help by finding an agent with `search` and running the best one. Summarise its result for the user.' },
  { role: 'user', content: task },
]

for (let turn = 0; turn < 6; turn++) {
  const completion = await openai.chat.completions.create({ model, messages, tools: [...tools.values()] })
  const message = completion.choices[0].message
  messages.push(message)
  if (!message.tool_calls?.length) {
    console.log(message.content)
    break
  }
  for (const call of message.tool_calls) {
    const args = JSON.parse(call.function.arguments || '{}')
    console.error(`-> ${call.function.name} ${JSON.stringify(args)}`)
    const result = await callAction(call.function.name, call.function.name === 'search' ? { query: args.query, limit: 5, format: 'openai' } : args)
    if (call.function.name === 'search' && Array.isArray(result.response)) {
      // `format: "openai"` hits are strict-mode tools as they are (optional parameters take null).
      for (const hit of result.response) tools.set(hit.function.name, hit)
    }
    messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result).slice(0, 20_000) })
  }
}
