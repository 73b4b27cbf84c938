import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { newCaller, request, type Json } from './helpers'

/**
 * One POST /mcp may carry a JSON-RPC batch of up to 100 messages. Each tool call and each listing in
 * it is a request against the caller's limits: a batch must never run more actions than the limit
 * allows, whatever its size and mix. The per-day limit is used, so no minute boundary moves a count.
 */

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: { query: `batch ${id}` } } })
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} })
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' })

const runsOf = async (accountId: string) => (await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE account_id = ?').bind(accountId).first<{ n: number }>())!.n

/** Answers that did work: a tool call's result without isError, or a listing's tools. */
const served = (answers: Json[]) => answers.filter((a) => (a.result && !a.result.isError && (a.result.structuredContent || a.result.tools)) as boolean)

describe('an MCP batch', () => {
  it('of 50 tool calls under a limit of 3 requests runs 3 (the minimal case: 50 before, and the quota still open)', async () => {
    const { token, accountId } = await newCaller('mcp batch', { perMinute: 1000, perDay: 3 })
    const res = await request('POST', '/mcp', { token, body: Array.from({ length: 50 }, (_, i) => call(i + 1)), headers: MCP_HEADERS })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(50)
    expect(served(res.body)).toHaveLength(3)
    const refused = res.body.filter((a: Json) => a.result?.isError)
    expect(refused).toHaveLength(47)
    expect(refused[0].result.structuredContent).toMatchObject({ status: 429, code: 'RATE_LIMITED' })
    expect(await runsOf(accountId)).toBe(3)
    const after = await request('POST', '/v1/action/search', { token, body: { query: 'after the batch' } })
    expect(after.status).toBe(429)
  })

  it('serves at most the limit of tool calls and listings, whatever its size and mix (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.constantFrom('call', 'list', 'ping'), { minLength: 1, maxLength: 24 }), async (limit, kinds) => {
        const { token, accountId } = await newCaller('mcp batch mix', { perMinute: 1000, perDay: limit })
        const batch = kinds.map((k, i) => (k === 'call' ? call(i + 1) : k === 'list' ? list(i + 1) : ping(i + 1)))
        const res = await request('POST', '/mcp', { token, body: batch, headers: MCP_HEADERS })
        expect(res.status).toBe(200)
        // A batch of one is answered with the one response, not a list.
        const answers: Json[] = Array.isArray(res.body) ? res.body : [res.body]
        const counted = kinds.filter((k) => k !== 'ping').length
        // The HTTP request is counted once whatever it carries; each further call or listing once more.
        expect(served(answers)).toHaveLength(Math.min(counted, limit))
        expect(await runsOf(accountId)).toBeLessThanOrEqual(limit)
        for (const answer of answers.filter((a) => a.error)) expect(answer.error.message).toMatch(/Rate limit exceeded/)
      }),
      { numRuns: 25, seed: 20261129 },
    )
  })
})
