/** Perplexity Chat Completions response (Sonar models) and its reader. */
import { isRecord, listOf, objectOf, record, objectsOf, text } from '../shape'

export const SERVICE = 'Perplexity'

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

const uniq = (xs: unknown[]) => [...new Set(xs.filter((x): x is string => typeof x === 'string' && /^https?:\/\//i.test(x)))]

/** Answer text, cited URLs (`citations`) and consulted URLs (`search_results`). */
export function readPerplexity(answer: PerplexityResponse): { text: string; cited: string[]; sources: string[]; model: string | null } {
  // The declared type is what Perplexity documents; the reads below hold for any JSON it sends.
  const body = objectOf(answer, SERVICE)
  const choice = listOf(body.choices, SERVICE, 'choices')[0]
  const answerText = text(record(isRecord(choice) ? choice.message : null).content) ?? ''
  const sources = uniq(objectsOf(body.search_results, SERVICE, 'search_results').map((r) => r.url))
  // Older answers carry only `citations`; newer ones both. Cited = the [n] targets.
  const cited = body.citations === undefined || body.citations === null ? sources : uniq(listOf(body.citations, SERVICE, 'citations'))
  return { text: answerText, cited, sources: sources.length ? sources : cited, model: text(body.model) }
}
