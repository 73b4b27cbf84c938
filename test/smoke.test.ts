import { describe, expect, it } from 'vitest'
import { action, mockFetch, newCaller, request } from './helpers'

describe('smoke', () => {
  it('answers unknown routes with a 404 envelope', async () => {
    const res = await request('GET', '/nope')
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ status: 404, response: null, code: 'NOT_FOUND' })
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })
  it('runs search for a new caller', async () => {
    const { token } = await newCaller()
    const res = await action('search', { query: 'youtube' }, token)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 200, response: [] })
    expect(res.headers.get('ratelimit-limit')).toBeTruthy()
  })
  it('lets tests mock fetch inside the worker', async () => {
    const seen = mockFetch((req) => (new URL(req.url).hostname === 'example.com' ? new Response('ok') : null))
    const r = await fetch('https://example.com/x')
    expect(await r.text()).toBe('ok')
    const u = await fetch('https://unmocked.example/x')
    expect(u.status).toBe(599)
    expect(seen.length).toBe(2)
  })
})
