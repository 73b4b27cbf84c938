import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, Output, type LanguageModel } from 'ai'
import { createWorkersAI } from 'workers-ai-provider'
import type { z } from 'zod'
import type { ActionContext } from '../../runtime/context'
import { toModelError } from './errors'
import { resolveRoute, type ProviderName, type ProviderRoute } from './providers'
import { FAST_MODEL_IDS, MODELS, QUALITY_MODEL_IDS, isModelId, type ModelId, type Tier } from './registry'

export { isModelConfigured } from './providers'
export * from './registry'

/** Token counts of one or more model calls. */
export interface TokenUsage {
  input_tokens: number
  output_tokens: number
  total_tokens: number
}

/** What a structured call asks for. */
export interface StructuredRequest<S extends z.ZodType> {
  /** Zod schema of the answer; sent as JSON schema and validated on return. */
  schema: S
  /** Schema name (letters, digits, underscores), shown to the model. */
  name: string
  description?: string
  system: string
  prompt: string
  maxOutputTokens?: number
}

/** A structured answer with the facts of the call that produced it. */
export interface StructuredResult<T> {
  object: T
  usage: TokenUsage
  model: ModelInfo
  ms: number
}

/** Which model served a call. */
export interface ModelInfo {
  /** The public id asked for. */
  id: ModelId
  provider: ProviderName
  /** The model name sent upstream (differs from `id` on a compatible server or Workers AI). */
  model: string
  key_source: 'account' | 'server'
}

/** A model ready to call: the reusable service every action uses. */
export interface ModelService {
  info: ModelInfo
  /** Generates a JSON object matching `schema`; records token usage on the run. */
  generateObject<S extends z.ZodType>(request: StructuredRequest<S>): Promise<StructuredResult<z.output<S>>>
}

const SERVICE_NAME: Record<ProviderName, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  openai_compatible: 'OpenAI-compatible server',
  workers_ai: 'Workers AI',
}

const DEFAULT_TIMEOUT_MS = 60_000
/** Output cap when a request names none: room for reasoning tokens, but no 128k-token answers. */
const DEFAULT_MAX_OUTPUT_TOKENS = 16_000
/** Model answers are JSON of at most a few hundred KB; the cap only stops runaway bodies. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024

function timeoutOf(ctx: ActionContext): number {
  const n = Number(ctx.env.LLM_TIMEOUT_MS)
  return Number.isFinite(n) && n >= 1000 ? Math.floor(n) : DEFAULT_TIMEOUT_MS
}

/**
 * The SDK's fetch, routed through the guarded client: SSRF checks, per-attempt timeout and the one
 * retry policy (429/5xx, honouring Retry-After). A model POST creates nothing, so it is safe to repeat.
 */
function guardedSdkFetch(ctx: ActionContext, service: string): typeof fetch {
  const timeoutMs = timeoutOf(ctx)
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input
    const base: RequestInit = input instanceof Request ? { method: input.method, headers: input.headers, body: await input.text() } : {}
    const { redirect: _redirect, signal, ...rest } = { ...base, ...init }
    return ctx.fetch(url, {
      ...rest,
      signal: signal ?? ctx.signal,
      service,
      timeoutMs,
      idempotent: true,
      retries: 2,
      maxRetryAfterMs: 20_000,
      maxBytes: MAX_RESPONSE_BYTES,
    })
  }) as typeof fetch
}

function languageModel(ctx: ActionContext, route: ProviderRoute): LanguageModel {
  const service = SERVICE_NAME[route.provider]
  switch (route.provider) {
    case 'openai':
      return createOpenAI({ apiKey: route.apiKey, baseURL: route.baseURL, fetch: guardedSdkFetch(ctx, service) }).responses(route.model)
    case 'anthropic':
      return createAnthropic({ apiKey: route.apiKey, baseURL: route.baseURL, fetch: guardedSdkFetch(ctx, service) })(route.model)
    case 'openai_compatible':
      // Compatible servers (Ollama, vLLM, llama.cpp ...) speak Chat Completions, not the Responses API.
      return createOpenAI({ apiKey: route.apiKey ?? 'none', baseURL: route.baseURL, name: 'openai-compatible', fetch: guardedSdkFetch(ctx, service) }).chat(route.model)
    case 'workers_ai':
      return createWorkersAI({ binding: ctx.env.AI! })(route.model as Parameters<ReturnType<typeof createWorkersAI>>[0])
  }
}

function keyNote(route: ProviderRoute): string {
  if (route.keySource === 'account') return 'the key connected to this account'
  if (route.provider === 'openai') return 'OPENAI_API_KEY'
  if (route.provider === 'anthropic') return 'ANTHROPIC_API_KEY'
  return 'OPENAI_COMPATIBLE_API_KEY'
}

/** A token count the provider reports: a whole number from 0 up; anything else (negative, 1e308) counts 0. */
const count = (n: number | undefined) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : 0)

function serviceFor(ctx: ActionContext, id: ModelId, route: ProviderRoute): ModelService {
  const info: ModelInfo = { id, provider: route.provider, model: route.model, key_source: route.keySource }
  const service = SERVICE_NAME[route.provider]
  const model = languageModel(ctx, route)
  return {
    info,
    async generateObject(request) {
      const started = Date.now()
      try {
        const result = await generateText({
          model,
          system: request.system,
          prompt: request.prompt,
          output: Output.object({ schema: request.schema, name: request.name, description: request.description }),
          maxOutputTokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          // Retries live in the guarded fetch; the SDK's own would multiply them.
          maxRetries: 0,
          abortSignal: ctx.signal,
        })
        const input = count(result.usage.inputTokens)
        const output = count(result.usage.outputTokens)
        const usage: TokenUsage = { input_tokens: input, output_tokens: output, total_tokens: count(result.usage.totalTokens) || input + output }
        ctx.addUsage({ ...usage, model_calls: 1 })
        return { object: result.output as z.output<typeof request.schema>, usage, model: info, ms: Date.now() - started }
      } catch (err) {
        ctx.addUsage({ model_calls: 1, model_errors: 1 })
        throw toModelError(err, service, keyNote(route))
      }
    },
  }
}

/** Per tier, the first model of each vendor: a tier request uses whichever vendor is configured. */
const TIER_CANDIDATES: Record<Tier, ModelId[]> = {
  fast: [FAST_MODEL_IDS[0], FAST_MODEL_IDS.find((m) => MODELS[m].vendor === 'anthropic')!],
  quality: [QUALITY_MODEL_IDS[0], QUALITY_MODEL_IDS.find((m) => MODELS[m].vendor === 'anthropic')!],
}

/**
 * A model service for a public model id, or for a tier (its default model, or the other vendor's
 * model of that tier when only that vendor is configured). Throws NotConfiguredError (503 naming the
 * setting) when nothing can serve it.
 * @example const model = await getModel(ctx, 'fast'); const { object } = await model.generateObject({ schema, name: 'summary', system, prompt })
 */
export async function getModel(ctx: ActionContext, spec: ModelId | Tier): Promise<ModelService> {
  if (isModelId(spec)) return serviceFor(ctx, spec, await resolveRoute(ctx, spec))
  let firstError: unknown
  for (const id of TIER_CANDIDATES[spec]) {
    try {
      return serviceFor(ctx, id, await resolveRoute(ctx, id))
    } catch (err) {
      firstError ??= err
    }
  }
  throw firstError
}
