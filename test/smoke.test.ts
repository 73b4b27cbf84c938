import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'

describe('smoke', () => {
  it('answers unknown routes with a 404 envelope', async () => {
    const res = await SELF.fetch('https://api.test/nope')
    expect(res.status).toBe(404)
    const body = await res.json<Record<string, unknown>>()
    expect(body).toMatchObject({ status: 404, response: null, code: 'NOT_FOUND' })
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })
})
