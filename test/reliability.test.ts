import { createMessageBatch, createExecutionContext, env, getQueueResult } from 'cloudflare:test'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { getAction } from '../src/actions/registry'
import { UpstreamError } from '../src/providers/errors'
import { queueHandler } from '../src/runtime/consumer'
import { action, mockFetch, newCaller, request, type Json } from './helpers'
import { deliverFailingRun } from './queue-delivery'
import { alice, FakeAtproto } from './social/fake-pds'
import { VIDEO_ID, yt } from './youtube/fixtures'

const handleQueue = queueHandler(getAction)

/** YouTube answering 503 to the first `failures` watch-page requests, then the recorded payloads. */
function flakyYouTube(failures: number) {
  let watch = 0
  return async (req: Request) => {
    const url = new URL(req.url)
    if (url.hostname !== 'www.youtube.com') return null
    if (url.pathname === '/watch') {
      if (watch++ < failures) return new Response('<html>Service unavailable</html>', { status: 503 })
      return new Response(yt.watchHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } })
    }
    if (url.pathname === '/youtubei/v1/player') return new Response(yt.innertube.ok, { headers: { 'content-type': 'application/json' } })
    if (url.pathname === '/api/timedtext') return new Response(yt.transcriptXml, { headers: { 'content-type': 'text/xml' } })
    return new Response('not found', { status: 404 })
  }
}

const announceAgent = {
  name: 'Announce then transcribe',
  description: 'Posts an announcement, then fetches the video transcript',
  visibility: 'private',
  parameters: {
    type: 'object',
    properties: {
      handle: { type: 'string', description: 'Bluesky handle' },
      app_password: { type: 'string', description: 'Bluesky app password' },
      video_url: { type: 'string', description: 'Video URL' },
    },
    required: ['handle', 'app_password', 'video_url'],
  },
  workflow: {
    steps: [
      { id: 'post', action: 'post_to_social', input: { username: '{{input.handle}}', password: '{{input.app_password}}', content: 'New video is up!' } },
      { id: 'transcript', action: 'get_video_transcript', input: { url: '{{input.video_url}}' } },
    ],
    output: '{{steps.transcript}}',
  },
}

describe('queued runs under failure', () => {
  it('completes a run exactly once when it fails mid-way after a side effect', async () => {
    const pds = new FakeAtproto()
    // The first delivery posts, then every attempt at the watch page fails (3 tries in the guarded client).
    mockFetch(pds.handle, flakyYouTube(3))
    const { token } = await newCaller('crash')
    const agent = await request('POST', '/v1/agents', { token, body: announceAgent })
    const res = await action('invoke_agent', { id: agent.body.response.id, input: { handle: alice.handle, app_password: alice.password, video_url: `https://youtu.be/${VIDEO_ID}` } }, token, {
      prefer: 'respond-async',
    })
    expect(res.status).toBe(202)
    const runId = res.body.response.run_id
    const done = await request('GET', `/v1/runs/${runId}?wait=30`, { token })
    expect(done.body.response.state, JSON.stringify(done.body.response.error)).toBe('succeeded')
    expect(done.body.response.attempts).toBe(2)
    expect(done.body.response.output.metadata.id).toBe(VIDEO_ID)
    // The post happened once, although the run ran twice.
    expect(pds.records).toHaveLength(1)
    // The app password never reached the run record.
    expect(JSON.stringify(done.body.response)).not.toContain(alice.password)
    expect(done.body.response.input.input.app_password).toBe('[redacted]')
    const stored = await env.DB.prepare('SELECT input, job_input FROM runs WHERE id = ?').bind(runId).first<{ input: string; job_input: string | null }>()
    expect(stored!.input).not.toContain(alice.password)
    expect(stored!.job_input).toBeNull()
  })

  it('ends a run failed with a clear error once its message is dead-lettered', async () => {
    const { accountId, token } = await newCaller('dlq')
    const runId = 'run_deadletter0000000001'
    await env.DB.prepare("INSERT INTO runs (id, account_id, action, state, input, job_input, created_at) VALUES (?, ?, 'search', 'running', '{}', '{}', ?)").bind(runId, accountId, Date.now()).run()
    const batch = createMessageBatch('agent-action-jobs-dlq', [{ id: 'm1', timestamp: new Date(), attempts: 1, body: { runId } }])
    const ctx = createExecutionContext()
    await handleQueue(batch as MessageBatch<{ runId: string }>, env, ctx)
    const result = await getQueueResult(batch, ctx)
    expect(result.explicitAcks).toEqual(['m1'])
    const run = await request('GET', `/v1/runs/${runId}`, { token })
    expect(run.body.response).toMatchObject({ state: 'failed', error: { code: 'INTERNAL', status: 500 } })
    expect(run.body.response.error.message).toMatch(/dead-lettered/)
  })

  it('retries a transient failure with backoff and gives up with the error after the last delivery', async () => {
    const { accountId, token } = await newCaller('giveup')
    mockFetch(flakyYouTube(1000))
    const runId = 'run_giveup00000000000001'
    await env.DB.prepare("INSERT INTO runs (id, account_id, action, state, input, job_input, created_at) VALUES (?, ?, 'get_video_transcript', 'queued', '{}', ?, ?)")
      .bind(runId, accountId, JSON.stringify({ url: `https://youtu.be/${VIDEO_ID}` }), Date.now())
      .run()
    const early = createMessageBatch('agent-action-jobs', [{ id: 'a1', timestamp: new Date(), attempts: 1, body: { runId } }])
    const ctx1 = createExecutionContext()
    await handleQueue(early as MessageBatch<{ runId: string }>, env, ctx1)
    expect((await getQueueResult(early, ctx1)).retryMessages).toEqual([expect.objectContaining({ msgId: 'a1' })])
    expect((await request('GET', `/v1/runs/${runId}`, { token })).body.response.state).toBe('queued')
    const last = createMessageBatch('agent-action-jobs', [{ id: 'a6', timestamp: new Date(), attempts: 6, body: { runId } }])
    const ctx2 = createExecutionContext()
    await handleQueue(last as MessageBatch<{ runId: string }>, env, ctx2)
    expect((await getQueueResult(last, ctx2)).explicitAcks).toEqual(['a6'])
    const run = (await request('GET', `/v1/runs/${runId}`, { token })).body.response as Json
    expect(run.state).toBe('failed')
    expect(run.error.status).toBeGreaterThanOrEqual(500)
    expect(run.attempts).toBe(2)
  })
})

describe('queued runs that fail the same way every time', () => {
  // What JavaScript throws on data it cannot take (bad percent-encoding, an invalid date, a lone
  // surrogate, JSON that does not parse, a property of null) fails every delivery the same way.
  const deterministic: [string, () => unknown][] = [
    ['URIError', () => new URIError('URI malformed')],
    ['RangeError', () => new RangeError('Invalid time value')],
    ['TypeError', () => new TypeError("Cannot read properties of null (reading 'map')")],
    ['SyntaxError', () => new SyntaxError('Unexpected token < in JSON at position 0')],
    ['ReferenceError', () => new ReferenceError('x is not defined')],
  ]
  for (const [name, fail] of deterministic) {
    it(`ends the run failed at its first delivery on a ${name}, without retrying it`, async () => {
      const { accountId, token } = await newCaller(`once-${name}`)
      const runId = `run_once_${name.toLowerCase().padEnd(15, '0')}`
      const { result, deliveries } = await deliverFailingRun(fail, accountId, runId)
      expect(result.retryMessages).toEqual([])
      expect(result.explicitAcks).toEqual(['m1'])
      expect(deliveries).toBe(1)
      const run = (await request('GET', `/v1/runs/${runId}`, { token })).body.response as Json
      expect(run).toMatchObject({ state: 'failed', attempts: 1, error: { code: 'INTERNAL', status: 500 } })
    })
  }

  // The platform's failures are plain Errors (a D1 or KV hiccup, a dropped connection), some marked retryable.
  const transient: [string, () => unknown][] = [
    ['a D1 error', () => new Error('D1_ERROR: Network connection lost.')],
    ['a retryable TypeError', () => Object.assign(new TypeError('Fetch failed'), { retryable: true })],
    ['a TypeError for a lost connection', () => new TypeError('Network connection lost.')],
    ['a thrown string', () => 'storage caused object to be reset'],
  ]
  for (const [name, fail] of transient) {
    it(`retries ${name} with backoff, as before`, async () => {
      const { accountId } = await newCaller(`again-${name.replace(/\W/g, '')}`)
      const runId = `run_again_${name.replace(/\W/g, '').padEnd(14, '0').slice(0, 14)}`
      const { result } = await deliverFailingRun(fail, accountId, runId)
      expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: 'm1' })])
      const state = await env.DB.prepare('SELECT state FROM runs WHERE id = ?').bind(runId).first<{ state: string }>()
      expect(state!.state).toBe('queued')
    })
  }
})

describe('queued runs an upstream refuses', () => {
  // An upstream's 4xx (a bad request, a rejected key, not found) answers the same request the same way
  // every time; a 5xx, a timeout (408), too early (425) or rate limited (429) may pass.
  const transientStatus = (status: number) => status >= 500 || status === 408 || status === 425 || status === 429
  let n = 0
  it('ends the run at its first delivery on a 4xx that repeats, and retries the statuses that can pass', async () => {
    const { accountId, token } = await newCaller('upstream-status')
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 400, max: 599 }), async (status) => {
        const runId = `run_upstream_${String(n++).padStart(12, '0')}`
        const { result, deliveries } = await deliverFailingRun(() => new UpstreamError('Peer', 'status', `Peer answered ${status}`, status), accountId, runId)
        expect(deliveries).toBe(1)
        if (transientStatus(status)) {
          expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: 'm1' })])
          return
        }
        expect(result.retryMessages).toEqual([])
        expect(result.explicitAcks).toEqual(['m1'])
        const run = (await request('GET', `/v1/runs/${runId}`, { token })).body.response as Json
        expect(run).toMatchObject({ state: 'failed', attempts: 1, error: { code: 'UPSTREAM_FAILED', status: 502 } })
      }),
      { numRuns: 40, examples: [[401], [404], [408], [429], [503]] },
    )
  })
})

describe('idempotency and progress of queued runs', () => {
  it('answers a duplicate with the same run while the first is still running, and shows progress', async () => {
    const pds = new FakeAtproto()
    mockFetch(pds.handle, flakyYouTube(0))
    const { token } = await newCaller('dup-running')
    const agent = await request('POST', '/v1/agents', { token, body: announceAgent })
    const body = { id: agent.body.response.id, input: { handle: alice.handle, app_password: alice.password, video_url: `https://youtu.be/${VIDEO_ID}` } }
    const headers = { prefer: 'respond-async', 'idempotency-key': 'announce-1' }
    const [first, second] = await Promise.all([action('invoke_agent', body, token, headers), action('invoke_agent', body, token, headers)])
    expect(first.status).toBe(202)
    expect(second.status).toBe(202)
    expect(second.body.response.run_id).toBe(first.body.response.run_id)
    const done = await request('GET', `/v1/runs/${first.body.response.run_id}?wait=30`, { token })
    expect(done.body.response.state).toBe('succeeded')
    expect(done.body.response.progress).toMatchObject({ agent: agent.body.response.id, step: 'transcript', steps_total: 2 })
    expect(pds.records).toHaveLength(1)
    const third = await action('invoke_agent', body, token, { 'idempotency-key': 'announce-1' })
    expect(third.status).toBe(200)
    expect(third.body.response.metadata.id).toBe(VIDEO_ID)
  })
})
