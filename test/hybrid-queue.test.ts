import { createExecutionContext, createMessageBatch, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import worker from '../src/index'
import type { JobMessage } from '../src/runtime/jobs'
import { BASE, newCaller, request, type Json } from './helpers'

/** The Worker with the offline encoder on (the test bindings turn it off for every other file). */
const offline = { ...env, SEARCH_EMBEDDER: 'offline' }

async function search(body: Record<string, unknown>, token: string): Promise<{ status: number; body: Json }> {
  const ctx = createExecutionContext()
  const res = await worker.fetch(
    new Request(`${BASE}/v1/action/search`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    offline,
    ctx,
  )
  await waitOnExecutionContext(ctx)
  return { status: res.status, body: await res.json() }
}

/** Delivers one embed message to the queue handler, as the queue does after an agent write. */
async function deliverEmbed(): Promise<void> {
  const batch = createMessageBatch<JobMessage>('agent-action-jobs', [{ id: `m${Date.now()}`, timestamp: new Date(), attempts: 1, body: { embed: true } }])
  const ctx = createExecutionContext()
  await worker.queue(batch, offline, ctx)
  await waitOnExecutionContext(ctx)
}

const current = async (where = '1 = 1') =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM agent_vectors v JOIN agents a ON a.rowid = v.agent_rowid WHERE v.vec IS NOT NULL AND v.embedder LIKE 'offline:%' AND ${where}`).first<{
    n: number
  }>())!.n

const agent = (name: string, description: string) => ({
  name,
  description,
  visibility: 'private',
  parameters: { type: 'object', properties: { text: { type: 'string', description: 'Input' } }, required: [] },
  workflow: { steps: [{ id: 'keep', action: 'store_variable', input: { name: 'x', value: '{{input.text}}' } }], output: '{{steps.keep.value}}' },
})

let caller: { token: string; accountId: string }
const names = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.name as string)

beforeAll(async () => {
  caller = await newCaller('hybrid queue')
  const agents = [
    agent('Invoice chaser', 'Sends reminders for unpaid invoices to customers'),
    agent('Video transcript fetcher', 'Returns the spoken words of a YouTube video as text'),
    ...['Standup', 'Birthday', 'Renewal', 'Payroll', 'Dentist'].map((n) => agent(`${n} nudger`, `Sends reminders about the ${n.toLowerCase()} on time`)),
  ]
  for (const a of agents) expect((await request('POST', '/v1/agents', { token: caller.token, body: a })).status).toBe(201)
})

describe('typo tolerance on every word', () => {
  it('corrects a misspelt word even when the other words match many agents, below the exact spelling', async () => {
    const typo = await search({ query: 'invocies reminders', status: 'all', limit: 10 }, caller.token)
    expect(typo.status).toBe(200)
    expect(names(typo.body)[0]).toBe('Invoice chaser')
    const exact = await search({ query: 'invoices reminders', status: 'all', limit: 10 }, caller.token)
    expect(names(exact.body)[0]).toBe('Invoice chaser')
    expect(exact.body.response[0].function.metadata.score).toBeGreaterThan(typo.body.response[0].function.metadata.score)
  })
})

describe('agents embedded by the queue and the cron', () => {
  it('get a vector from an embed message, and then rank by meaning with no word in common', { timeout: 180_000 }, async () => {
    await deliverEmbed()
    expect(await current()).toBe(7)
    await new Promise((r) => setTimeout(r, 1100))
    const res = await search({ query: 'what was said in that clip', status: 'all', limit: 3 }, caller.token)
    expect(res.status).toBe(200)
    expect(names(res.body)[0]).toBe('Video transcript fetcher')
  })

  it('answers nothing below a min_score no agent reaches, and everything with min_score 0', async () => {
    const none = await search({ query: 'what was said in that clip', status: 'all', min_score: 0.99 }, caller.token)
    expect(none.body.response).toEqual([])
    const all = await search({ query: 'what was said in that clip', status: 'all', min_score: 0 }, caller.token)
    expect(all.body.response.length).toBeGreaterThan(0)
    const bad = await search({ query: 'x', min_score: 2 }, caller.token)
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body.details)).toContain('min_score')
  })

  it('lose their vector when their text changes, until the cron embeds them again', { timeout: 120_000 }, async () => {
    const list = await request('GET', '/v1/agents', { token: caller.token })
    const id = (list.body.response as Json[]).find((a) => a.name === 'Invoice chaser').id
    expect((await request('PATCH', `/v1/agents/${id}`, { token: caller.token, body: { description: 'Chases late payments from clients' } })).status).toBe(200)
    const mine = `a.id = '${id}'`
    expect(await current(mine)).toBe(0)
    await worker.scheduled(createScheduledController({ cron: '*/15 * * * *' }), offline)
    expect(await current(mine)).toBe(1)
  })

  it('answers 503 naming the setting when the embedder setting cannot work', async () => {
    const ctx = createExecutionContext()
    const res = await worker.fetch(
      new Request(`${BASE}/v1/action/search`, { method: 'POST', headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' }, body: '{"query":"x"}' }),
      { ...env, SEARCH_EMBEDDER: 'gpu' },
      ctx,
    )
    expect(res.status).toBe(503)
    expect(((await res.json()) as Json).error).toContain('SEARCH_EMBEDDER')
  })
})
