import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { action, request, type Json } from './helpers'
import { newCaller } from './helpers'

const agent = (name: string, description: string) => ({
  name,
  description,
  visibility: 'private',
  parameters: { type: 'object', properties: { text: { type: 'string', description: 'Input' } }, required: [] },
  workflow: { steps: [{ id: 'keep', action: 'store_variable', input: { name: 'x', value: '{{input.text}}' } }], output: '{{steps.keep.value}}' },
})

let caller: { token: string; accountId: string }
const ids = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.name as string)

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
    const typo = await action('search', { query: 'invocies reminders', status: 'all', limit: 10 }, caller.token)
    expect(typo.status).toBe(200)
    expect(ids(typo.body)[0]).toBe('Invoice chaser')
    const exact = await action('search', { query: 'invoices reminders', status: 'all', limit: 10 }, caller.token)
    expect(ids(exact.body)[0]).toBe('Invoice chaser')
    expect(exact.body.response[0].function.metadata.score).toBeGreaterThan(typo.body.response[0].function.metadata.score)
  })
})

describe('agents embedded through the queue', () => {
  it('get a vector after they are created, and then rank by meaning with no word in common', { timeout: 180_000 }, async () => {
    const deadline = Date.now() + 150_000
    let embedded = 0
    while (Date.now() < deadline) {
      embedded = (await env.DB.prepare("SELECT count(*) AS n FROM agent_vectors WHERE vec IS NOT NULL AND embedder LIKE 'offline:%'").first<{ n: number }>())!.n
      if (embedded >= 7) break
      await new Promise((r) => setTimeout(r, 500))
    }
    expect(embedded).toBe(7)
    await new Promise((r) => setTimeout(r, 1100))
    const res = await action('search', { query: 'what was said in that clip', status: 'all', limit: 3 }, caller.token)
    expect(res.status).toBe(200)
    expect(ids(res.body)[0]).toBe('Video transcript fetcher')
  })

  it('answers nothing below a min_score no agent reaches, and everything with min_score 0', async () => {
    const none = await action('search', { query: 'what was said in that clip', status: 'all', min_score: 0.99 }, caller.token)
    expect(none.body.response).toEqual([])
    const all = await action('search', { query: 'what was said in that clip', status: 'all', min_score: 0 }, caller.token)
    expect(all.body.response.length).toBeGreaterThan(0)
    const bad = await action('search', { query: 'x', min_score: 2 }, caller.token)
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body.details)).toContain('min_score')
  })

  it('lose their vector when their text changes, until the queue embeds them again', async () => {
    const list = await request('GET', '/v1/agents', { token: caller.token })
    const id = (list.body.response as Json[]).find((a) => a.name === 'Invoice chaser').id
    expect((await request('PATCH', `/v1/agents/${id}`, { token: caller.token, body: { description: 'Chases late payments from clients' } })).status).toBe(200)
    const deadline = Date.now() + 30_000
    let current = 0
    while (Date.now() < deadline) {
      current = (await env.DB.prepare('SELECT count(*) AS n FROM agent_vectors v JOIN agents a ON a.rowid = v.agent_rowid WHERE a.id = ? AND v.vec IS NOT NULL').bind(id).first<{ n: number }>())!.n
      if (current === 1) break
      await new Promise((r) => setTimeout(r, 300))
    }
    expect(current).toBe(1)
  })
})
