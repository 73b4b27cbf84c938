/**
 * A local fake of the OpenAI (Responses and Chat Completions) and Anthropic (Messages) HTTP APIs.
 * It checks method, path, auth headers and body shape the way the real APIs do, answers their real
 * response shapes (structured output as JSON text, or a `json` tool call for Anthropic), and sends
 * their error bodies. Answers are built from the JSON schema each request carries. Self-contained
 * (no imports) so the benchmark can load it in plain Node as well as tests in workerd.
 */

export type FakeApi = 'openai.responses' | 'openai.chat' | 'anthropic.messages'

/** One request the fake received, parsed. */
export interface FakeCall {
  api: FakeApi
  url: string
  model: string
  /** The meeting section named in the system prompt ("Section: <name>"), or null. */
  section: string | null
  /** System/developer text. */
  system: string
  /** Every user message's text. */
  prompt: string
  /** The JSON schema the request asked for, or null. */
  schema: Record<string, unknown> | null
  schemaName: string | null
  headers: Record<string, string>
  body: Record<string, unknown>
  /** 1 for the first request of this section (or model when there is no section), 2 for a retry ... */
  attempt: number
  receivedAt: number
}

/** What a test wants the fake to do with one call: an error, a given object, or the default sample. */
export type FakeReply = { status: number; body?: unknown; headers?: Record<string, string> } | { object: unknown } | undefined

export interface FakeLlmOptions {
  /** Key each vendor accepts; a request without it gets the vendor's 401. */
  keys?: { openai?: string; anthropic?: string; compatible?: string | null }
  /** API roots the fake answers for. */
  bases?: { openai?: string; anthropic?: string; compatible?: string }
  /** Milliseconds to wait before answering (per call). */
  delayMs?: number | ((call: FakeCall) => number)
  /** Decides the reply; undefined means a valid object sampled from the request's schema. */
  respond?: (call: FakeCall) => FakeReply
  /** Token counts the fake reports (default: about a token per four characters). */
  usage?: (call: FakeCall) => { input: number; output: number }
}

export interface FakeLlm {
  /** A fetch-style handler: answers requests to the fake's bases, null for anything else. */
  handle(req: Request): Promise<Response | null>
  calls: FakeCall[]
}

type Json = Record<string, unknown>

/** A value that satisfies a JSON schema: every property filled, arrays with two items. */
export function sampleFromSchema(schema: unknown, key = 'value', depth = 0): unknown {
  const s = (schema ?? {}) as Json
  if (depth > 12) return null
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0]
  if ('const' in s) return s.const
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined
  if (Array.isArray(variants)) {
    const pick = variants.find((v) => (v as Json).type !== 'null') ?? variants[0]
    return sampleFromSchema(pick, key, depth + 1)
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined)
  switch (type) {
    case 'object': {
      const out: Json = {}
      for (const [k, v] of Object.entries((s.properties ?? {}) as Json)) out[k] = sampleFromSchema(v, k, depth + 1)
      return out
    }
    case 'array':
      return [sampleFromSchema(s.items, `${key}_1`, depth + 1), sampleFromSchema(s.items, `${key}_2`, depth + 1)]
    case 'integer':
    case 'number':
      return 1
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return `Sample ${key}`
  }
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4))

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof (p as Json).text === 'string' ? ((p as Json).text as string) : '')).join('\n')
  return ''
}

function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

function openaiError(status: number, message: string, type: string, code: string | null): Response {
  return jsonResponse({ error: { message, type, param: null, code } }, status)
}

function anthropicError(status: number, type: string, message: string): Response {
  return jsonResponse({ type: 'error', error: { type, message } }, status, { 'request-id': 'req_fake' })
}

let counter = 0
const nextId = (prefix: string) => `${prefix}_fake${(++counter).toString(36).padStart(8, '0')}`

/** Builds a fake; pass `fake.handle` to mockFetch, or serve it from a Node http server. */
export function createFakeLlm(options: FakeLlmOptions = {}): FakeLlm {
  const keys = { openai: 'sk-test-openai', anthropic: 'sk-ant-test', compatible: null, ...options.keys }
  const bases = {
    openai: 'https://api.openai.com/v1',
    anthropic: 'https://api.anthropic.com/v1',
    compatible: 'http://fake-compatible.invalid/v1',
    ...options.bases,
  }
  const calls: FakeCall[] = []
  const attempts = new Map<string, number>()

  function route(url: string): { api: FakeApi; vendor: 'openai' | 'anthropic' | 'compatible' } | null {
    for (const [vendor, base] of Object.entries(bases) as ['openai' | 'anthropic' | 'compatible', string][]) {
      if (!url.startsWith(base.replace(/\/$/, '') + '/')) continue
      const path = url.slice(base.replace(/\/$/, '').length)
      if (vendor === 'anthropic' && path === '/messages') return { api: 'anthropic.messages', vendor }
      if (vendor !== 'anthropic' && path === '/responses') return { api: 'openai.responses', vendor }
      if (vendor !== 'anthropic' && path === '/chat/completions') return { api: 'openai.chat', vendor }
    }
    return null
  }

  async function handle(req: Request): Promise<Response | null> {
    const target = route(req.url)
    if (!target) return null
    const { api, vendor } = target
    const headers: Record<string, string> = {}
    req.headers.forEach((v, k) => (headers[k] = v))
    if (req.method !== 'POST') {
      return vendor === 'anthropic' ? anthropicError(405, 'invalid_request_error', 'Method not allowed') : openaiError(405, 'Method not allowed', 'invalid_request_error', null)
    }
    // Auth first, as the real APIs do.
    if (vendor === 'anthropic') {
      if (headers['x-api-key'] !== keys.anthropic) return anthropicError(401, 'authentication_error', 'invalid x-api-key')
      if (!headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
    } else {
      const expected = vendor === 'openai' ? keys.openai : keys.compatible
      if (expected !== null && headers.authorization !== `Bearer ${expected}`) {
        return openaiError(401, 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key')
      }
    }
    if (!(headers['content-type'] ?? '').includes('application/json')) return openaiError(415, 'Content-Type must be application/json', 'invalid_request_error', null)
    let body: Json
    try {
      body = (await req.json()) as Json
    } catch {
      return vendor === 'anthropic'
        ? anthropicError(400, 'invalid_request_error', 'There was an error parsing the body of your request')
        : openaiError(400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null)
    }
    if (typeof body.model !== 'string' || !body.model) {
      return vendor === 'anthropic'
        ? anthropicError(400, 'invalid_request_error', 'model: Field required')
        : openaiError(400, "Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter')
    }

    let system = ''
    let prompt = ''
    let schema: Json | null = null
    let schemaName: string | null = null
    let anthropicJsonTool = false
    if (api === 'openai.responses') {
      if (!Array.isArray(body.input) && typeof body.input !== 'string') return openaiError(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter')
      const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as Json[])
      for (const m of input) (m.role === 'system' || m.role === 'developer' ? (s: string) => (system += s) : (s: string) => (prompt += s))(textOf(m.content))
      if (typeof body.instructions === 'string') system += body.instructions
      const format = ((body.text as Json | undefined)?.format ?? null) as Json | null
      if (format && format.type === 'json_schema') {
        if (typeof format.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(format.name)) return openaiError(400, "Invalid 'text.format.name'.", 'invalid_request_error', 'invalid_value')
        schema = format.schema as Json
        schemaName = format.name
      }
    } else if (api === 'openai.chat') {
      if (!Array.isArray(body.messages)) return openaiError(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter')
      for (const m of body.messages as Json[]) (m.role === 'system' || m.role === 'developer' ? (s: string) => (system += s) : (s: string) => (prompt += s))(textOf(m.content))
      const format = (body.response_format ?? null) as Json | null
      if (format && format.type === 'json_schema') {
        const js = format.json_schema as Json
        schema = js.schema as Json
        schemaName = js.name as string
      }
    } else {
      if (typeof body.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
      if (!Array.isArray(body.messages)) return anthropicError(400, 'invalid_request_error', 'messages: Field required')
      system = textOf(body.system)
      for (const m of body.messages as Json[]) prompt += textOf(m.content)
      const format = ((body.output_config as Json | undefined)?.format ?? null) as Json | null
      if (format && format.type === 'json_schema') schema = format.schema as Json
      const tool = Array.isArray(body.tools) ? (body.tools as Json[]).find((t) => t.name === 'json') : undefined
      if (!schema && tool) {
        schema = tool.input_schema as Json
        anthropicJsonTool = true
      }
    }

    const section = /Section: ([a-z_]+)/.exec(system)?.[1] ?? null
    const attemptKey = `${api}:${section ?? body.model}`
    const attempt = (attempts.get(attemptKey) ?? 0) + 1
    attempts.set(attemptKey, attempt)
    const call: FakeCall = { api, url: req.url, model: body.model, section, system, prompt, schema, schemaName, headers, body, attempt, receivedAt: Date.now() }
    calls.push(call)

    const delay = typeof options.delayMs === 'function' ? options.delayMs(call) : (options.delayMs ?? 0)
    if (delay > 0) {
      // A client that gives up (timeout, abort) cancels the wait, as a closed connection would.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, delay)
        req.signal?.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(req.signal.reason ?? new Error('aborted'))
        })
      })
    }

    const reply = options.respond?.(call)
    if (reply && 'status' in reply) return jsonResponse(reply.body ?? {}, reply.status, reply.headers)
    const object = reply && 'object' in reply ? reply.object : schema ? sampleFromSchema(schema) : { text: 'Sample answer' }
    // A reply of no object at all is a model that answered with no text.
    const text = object === undefined ? '' : JSON.stringify(object)
    const reported = options.usage?.(call)
    const inputTokens = reported?.input ?? tokens(system + prompt)
    const outputTokens = reported?.output ?? tokens(text)
    const created = Math.floor(Date.now() / 1000)

    if (api === 'openai.responses') {
      return jsonResponse({
        id: nextId('resp'),
        object: 'response',
        created_at: created,
        status: 'completed',
        error: null,
        incomplete_details: null,
        model: body.model,
        output: [{ id: nextId('msg'), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] }],
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        },
      })
    }
    if (api === 'openai.chat') {
      return jsonResponse({
        id: nextId('chatcmpl'),
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      })
    }
    return jsonResponse({
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: anthropicJsonTool ? [{ type: 'tool_use', id: nextId('toolu'), name: 'json', input: object }] : [{ type: 'text', text }],
      stop_reason: anthropicJsonTool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    })
  }

  return { handle, calls }
}
