import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { action, createTeam, newCaller, request, type Json } from './helpers'
import { SEED_ACCOUNTS, seedDemoCatalog } from './seed'

let token: string

beforeAll(async () => {
  await seedDemoCatalog()
  token = (await newCaller('searcher')).token
})

const names = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.name as string)
const scores = (body: Json) => (body.response as Json[]).map((h) => h.function.metadata.score as number)

describe('search ranking', () => {
  it('puts agents named for the query first', async () => {
    const res = await action('search', { query: 'youtube transcript', limit: 5 }, token)
    expect(res.status).toBe(200)
    expect(names(res.body).slice(0, 3).every((n) => /youtube|transcript/i.test(n))).toBe(true)
    const s = scores(res.body)
    expect([...s].sort((a, b) => b - a)).toEqual(s)
    expect(s.every((x) => x >= 0 && x <= 1)).toBe(true)
  })
  it('finds agents despite typos', async () => {
    const res = await action('search', { query: 'yuotube transcirpt' }, token)
    expect(res.status).toBe(200)
    expect(names(res.body)[0]).toMatch(/youtube|transcript/i)
  })
  it('lists by popularity when the query is empty', async () => {
    const res = await action('search', { limit: 5 }, token)
    const execs = (res.body.response as Json[]).map((h) => h.function.metadata.executions)
    expect([...execs].sort((a, b) => b - a)).toEqual(execs)
    expect(names(res.body)[0]).toBe('Agent Finder')
  })
})
