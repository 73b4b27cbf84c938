/**
 * Embedders for semantic search, chosen by SEARCH_EMBEDDER: `offline` (default: the encoder shipped
 * as static assets, no key, no network), `workers-ai` (the AI binding's embedding model, the better
 * choice when deployed), `openai` (any OpenAI-compatible /embeddings endpoint) or `none` (lexical
 * search only). An embedder's id names its model, so vectors of another model are never compared.
 */
import type { Env } from '../env'
import { ApiError } from '../http/errors'
import type { GuardedFetch } from '../providers/web/fetch'
import { normalize, offlineEncoder, type AssetFetch } from './encoder'

export interface Embedder {
  /** `<kind>:<model>`: stored beside each vector. */
  id: string
  /** Unit-length embeddings, one per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>
}

export const EMBEDDER_KINDS = ['offline', 'workers-ai', 'openai', 'none'] as const
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number]

const DEFAULT_WORKERS_AI_MODEL = '@cf/baai/bge-base-en-v1.5'
const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small'

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
      return { id: 'offline:use-lite-512-u8', embed: offlineEncoder(assetFetch(env)).embed }
    case 'workers-ai': {
      const ai = env.AI
      if (!ai) throw settingError('SEARCH_EMBEDDER=workers-ai needs the AI binding')
      const model = env.SEARCH_EMBEDDING_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL
      return {
        id: `workers-ai:${model}`,
        async embed(texts) {
          if (texts.length === 0) return []
          const out = (await ai.run(model as Parameters<Ai['run']>[0], { text: texts } as never)) as { data?: number[][] }
          return vectorsOf(out.data, texts.length, 'Workers AI')
        },
      }
    }
    case 'openai': {
      const base = env.SEARCH_EMBEDDING_BASE_URL?.trim()
      if (!base) throw settingError('SEARCH_EMBEDDER=openai needs SEARCH_EMBEDDING_BASE_URL')
      const model = env.SEARCH_EMBEDDING_MODEL?.trim() || DEFAULT_OPENAI_MODEL
      const key = env.SEARCH_EMBEDDING_API_KEY?.trim()
      return {
        id: `openai:${model}`,
        async embed(texts) {
          if (texts.length === 0) return []
          const res = await fetch(`${base.replace(/\/+$/, '')}/embeddings`, {
            method: 'POST',
            service: 'embeddings endpoint',
            idempotent: true,
            headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
            body: JSON.stringify({ model, input: texts }),
          })
          if (!res.ok) throw new Error(`embeddings endpoint answered HTTP ${res.status}`)
          const body = (await res.json()) as { data?: { index?: number; embedding?: number[] }[] }
          const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding ?? [])
          return vectorsOf(data, texts.length, 'embeddings endpoint')
        },
      }
    }
  }
}

/** Checked, unit-length vectors of an embeddings answer. */
export function vectorsOf(data: unknown, count: number, service: string): Float32Array[] {
  if (!Array.isArray(data) || data.length !== count) throw new Error(`${service} returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`)
  const dims = (data[0] as unknown[] | undefined)?.length ?? 0
  return data.map((v) => {
    if (!Array.isArray(v) || v.length === 0 || v.length !== dims || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`${service} returned a malformed vector`)
    }
    return normalize(Float32Array.from(v as number[]))
  })
}

/** The text of an agent that is embedded: what a caller would read to choose it. */
export function agentText(a: { name: string; description: string; param_text: string }): string {
  return `${a.name}. ${a.description} ${a.param_text}`.slice(0, 2000)
}
