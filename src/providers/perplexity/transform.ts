/** Perplexity Chat Completions response (Sonar models) and its reader. */

export interface PerplexityResponse {
  id?: string
  model?: string
  created?: number
  object?: string
  usage?: Record<string, unknown>
  /** URLs the answer's [n] markers refer to, in order. */
  citations?: string[] | null
  /** Search results behind the answer, with titles and dates. */
  search_results?: { title?: string; url: string; date?: string | null; last_updated?: string | null; snippet?: string }[] | null
  choices?: { index: number; finish_reason?: string | null; message?: { role: string; content: string | null } }[]
}

/** Request body for one question. */
export function perplexityRequest(model: string, question: string): Record<string, unknown> {
  return {
    model,
    messages: [
      { role: 'system', content: 'Answer the question concisely and cite your sources.' },
      { role: 'user', content: question },
    ],
    max_tokens: 700,
  }
}

const uniq = (xs: string[]) => [...new Set(xs.filter((x) => typeof x === 'string' && /^https?:\/\//i.test(x)))]

/** Answer text, cited URLs (`citations`) and consulted URLs (`search_results`). */
export function readPerplexity(body: PerplexityResponse): { text: string; cited: string[]; sources: string[]; model: string | null } {
  const text = body.choices?.[0]?.message?.content ?? ''
  const sources = uniq((body.search_results ?? []).map((r) => r.url))
  // Older answers carry only `citations`; newer ones both. Cited = the [n] targets.
  const cited = uniq(body.citations ?? sources)
  return { text, cited, sources: sources.length ? sources : cited, model: body.model ?? null }
}
