/**
 * Embedders for semantic search, chosen by SEARCH_EMBEDDER: `offline` (default: the encoder shipped
 * as static assets, no key, no network), `workers-ai` (the AI binding's embedding model, the better
 * choice when deployed), `openai` (any OpenAI-compatible /embeddings endpoint) or `none` (lexical
 * search only). An embedder's id names its model and the version of the agent text it embeds, so
 * vectors of another model, or of an older agent text, are never compared (and are embedded again).
 */
import type { Env } from '../env'
import { ApiError } from '../http/errors'
import type { GuardedFetch } from '../providers/web/fetch'
import { normalize, offlineEncoder, type AssetFetch } from './encoder'
import { parseJson } from '../lib/json-depth'
import { UpstreamError } from '../providers/errors'
import { record } from '../providers/shape'

export interface Embedder {
  /** `<kind>:<model>#text<version>` (embedderId): stored beside each vector. */
  id: string
  /** Unit-length embeddings, one per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>
}

export const EMBEDDER_KINDS = ['offline', 'workers-ai', 'openai', 'none'] as const
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number]

const ENDPOINT = 'embeddings endpoint'
const DEFAULT_WORKERS_AI_MODEL = '@cf/baai/bge-base-en-v1.5'
const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small'

/**
 * The version of agentText's output, part of every embedder id: when what is embedded for an agent
 * changes, stored vectors of the old text stop counting as current, so the cron and the queue embed
 * every agent again and the vector index and the Vectorize namespace start afresh.
 */
export const AGENT_TEXT_VERSION = 2

/** The id of an embedder of `kind` and `model` (`<kind>:<model>`), with the agent text's version. */
export function embedderId(kind: Exclude<EmbedderKind, 'none'>, model: string): string {
  return `${kind}:${model}#text${AGENT_TEXT_VERSION}`
}

/** A setting that cannot work: 503 naming it (the operator has to fix it). */
const settingError = (message: string) => new ApiError('NOT_CONFIGURED', message)

/** The configured kind; an unknown value is a setting error rather than a silent fallback. */
export function embedderKind(env: Env): EmbedderKind {
  const raw = env.SEARCH_EMBEDDER?.trim() || 'offline'
  if (!(EMBEDDER_KINDS as readonly string[]).includes(raw)) throw settingError(`SEARCH_EMBEDDER must be one of ${EMBEDDER_KINDS.join(', ')}`)
  return raw as EmbedderKind
}

function assetFetch(env: Env): AssetFetch {
  return (path) => {
    if (!env.ASSETS) return Promise.resolve(new Response('no ASSETS binding', { status: 404 }))
    return env.ASSETS.fetch(new Request(`https://assets.invalid/${path}`))
  }
}

/**
 * The embedder the settings choose, or null for `none`. `fetch` is the guarded client, used for the
 * OpenAI-compatible endpoint only.
 */
export function createEmbedder(env: Env, fetch: GuardedFetch): Embedder | null {
  const kind = embedderKind(env)
  switch (kind) {
    case 'none':
      return null
    case 'offline':
      return { id: embedderId('offline', 'use-lite-512-u8'), embed: offlineEncoder(assetFetch(env)).embed }
    case 'workers-ai': {
      const ai = env.AI
      if (!ai) throw settingError('SEARCH_EMBEDDER=workers-ai needs the AI binding')
      const model = env.SEARCH_EMBEDDING_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL
      return {
        id: embedderId('workers-ai', model),
        async embed(texts) {
          if (texts.length === 0) return []
          const out = await ai.run(model as Parameters<Ai['run']>[0], { text: texts } as never)
          return vectorsOf(record(out).data, texts.length, 'Workers AI')
        },
      }
    }
    case 'openai': {
      const base = env.SEARCH_EMBEDDING_BASE_URL?.trim()
      if (!base) throw settingError('SEARCH_EMBEDDER=openai needs SEARCH_EMBEDDING_BASE_URL')
      const model = env.SEARCH_EMBEDDING_MODEL?.trim() || DEFAULT_OPENAI_MODEL
      const key = env.SEARCH_EMBEDDING_API_KEY?.trim()
      return {
        id: embedderId('openai', model),
        async embed(texts) {
          if (texts.length === 0) return []
          const res = await fetch(`${base.replace(/\/+$/, '')}/embeddings`, {
            method: 'POST',
            service: 'embeddings endpoint',
            idempotent: true,
            headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
            body: JSON.stringify({ model, input: texts }),
          })
          if (!res.ok) {
            await res.body?.cancel()
            throw new UpstreamError(ENDPOINT, 'status', `${ENDPOINT} answered HTTP ${res.status}`, res.status)
          }
          let body: unknown
          try {
            body = parseJson(await res.text())
          } catch {
            throw new UpstreamError(ENDPOINT, 'invalid', `${ENDPOINT} answered with a body that is not JSON`)
          }
          return vectorsOf(inInputOrder(record(body).data), texts.length, ENDPOINT)
        },
      }
    }
  }
}

/**
 * An OpenAI-style `data` list's embeddings in the order of the inputs: by each entry's `index` when
 * they are exactly 0..n-1, as given when no entry has one; anything else is malformed (null), since
 * pairing a vector with the wrong text would rank agents by another agent's meaning.
 */
export function inInputOrder(data: unknown): unknown[] | null {
  if (!Array.isArray(data)) return null
  const entries = data as { index?: unknown; embedding?: unknown }[]
  const indexes = entries.map((d) => d?.index)
  if (indexes.every((i) => i === undefined)) return entries.map((d) => d?.embedding)
  const out: unknown[] = new Array(entries.length)
  for (const d of entries) {
    const i = d?.index
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= entries.length || out[i] !== undefined) return null
    out[i] = d.embedding ?? null
  }
  return out
}

/**
 * Dimensions a vector may have: twice the largest embedding models' 4,096. An agent's vector is one
 * D1 value (a byte a dimension), and an endpoint answering 5 MiB of zeros for one text gives 2.6
 * million, past the 2,000,000 bytes D1 stores: the batch of vectors saved with it failed, and the
 * same agents were sent again on every run.
 */
export const MAX_EMBEDDING_DIMENSIONS = 8192

/** Checked, unit-length vectors of an embeddings answer; another shape is an `invalid` UpstreamError naming the service. */
export function vectorsOf(data: unknown, count: number, service: string): Float32Array[] {
  const invalid = (what: string) => new UpstreamError(service, 'invalid', `${service} returned ${what}`)
  if (!Array.isArray(data) || data.length !== count) throw invalid(`${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`)
  const dims = Array.isArray(data[0]) ? data[0].length : 0
  if (dims > MAX_EMBEDDING_DIMENSIONS) throw invalid(`vectors of ${dims} dimensions, more than the ${MAX_EMBEDDING_DIMENSIONS} agent search stores`)
  return data.map((v) => {
    if (!Array.isArray(v) || v.length === 0 || v.length !== dims || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw invalid('a malformed vector')
    }
    // Scaled into [-1, 1] in double precision before narrowing to 32 bits, where a finite double past
    // the 32-bit range would become Infinity (and the vector NaN once normalized).
    const largest = (v as number[]).reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1
    return normalize(Float32Array.from(v as number[], (x) => x / largest))
  })
}

/** An identifier-like name as words: camelCase, snake_case, kebab-case and letter/digit runs split. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/(\d)([A-Za-z])/g, '$1 $2')
    .replace(/[_\-\s]+/g, ' ')
    .trim()
}

/**
 * The text of an agent that is embedded: what a caller would read to choose it, the name as
 * lower-case words ("ChatOCR" -> "chat ocr: ..."). On the MetaTool dev half the offline encoder
 * matches task requests clearly better than with the name as typed (`npm run eval:search --
 * --tune-text` prints the variants tried). Changing what this returns needs AGENT_TEXT_VERSION
 * raised, so stored vectors are made again.
 */
export function agentText(a: { name: string; description: string; param_text: string }): string {
  return `${nameWords(a.name).toLowerCase()}: ${a.description} ${a.param_text}`.replace(/\s+/g, ' ').trim().slice(0, 2000)
}
