import { normalize } from '../src/agents/encoder'
import type { GuardedFetch } from '../src/providers/web/fetch'

/** Dimensions of the stand-in embeddings: few, so texts sharing a word are near. */
export const HASHED_DIMS = 24

/** Each word hashed to a dimension: deterministic, texts sharing words are near, and sensitive to how a name is split into words. */
export function hashed(text: string): Float32Array {
  const v = new Float32Array(HASHED_DIMS)
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 7
    for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0
    v[h % HASHED_DIMS] += 1
  }
  return normalize(v)
}

/** An OpenAI-compatible embeddings endpoint answering hashed vectors, in the guarded client's shape. */
export const hashedEmbeddings = (async (_url: string, init?: { body?: string }) => {
  const { input } = JSON.parse(init?.body ?? '{}') as { input: string[] }
  return Response.json({ data: input.map((t, index) => ({ index, embedding: Array.from(hashed(t)) })) })
}) as unknown as GuardedFetch
