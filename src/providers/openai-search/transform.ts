/** OpenAI Responses API answers with the `web_search` tool, and their reader. */
import { UpstreamError } from '../errors'
import { errorMessage, objectOf, objectsOf, record, text } from '../shape'

export const SERVICE = 'OpenAI web search'

export interface UrlCitation {
  type: 'url_citation'
  url: string
  title?: string
  start_index?: number
  end_index?: number
}

export interface ResponsesOutputItem {
  type: string
  id?: string
  status?: string
  role?: string
  /** web_search_call: the search the model ran, with the sources when asked for through `include`. */
  action?: { type?: string; query?: string; sources?: { type?: string; url?: string }[] }
  content?: { type: string; text?: string; annotations?: (UrlCitation | { type: string })[] }[]
}

export interface ResponsesBody {
  id?: string
  object?: string
  model?: string
  status?: string
  error?: { message?: string } | null
  output?: ResponsesOutputItem[]
  usage?: Record<string, unknown>
}

/** Request body for one question: the web search tool, forced, with its consulted sources included. */
export function openAiSearchRequest(model: string, question: string): Record<string, unknown> {
  return {
    model,
    input: question,
    instructions: 'Answer the question concisely using web search, and cite your sources.',
    tools: [{ type: 'web_search' }],
    tool_choice: 'required',
    include: ['web_search_call.action.sources'],
    max_output_tokens: 4000,
    store: false,
  }
}

const isHttp = (u: unknown): u is string => typeof u === 'string' && /^https?:\/\//i.test(u)

/** Answer text, cited URLs (`url_citation` annotations) and consulted URLs (web_search_call sources). */
export function readOpenAiSearch(answer: ResponsesBody): { text: string; cited: string[]; sources: string[]; model: string | null } {
  // The declared type is what OpenAI documents; the reads below hold for any JSON it sends.
  const body = objectOf(answer, SERVICE)
  if (body.status === 'failed') throw new UpstreamError(SERVICE, 'status', `${SERVICE} failed: ${errorMessage(body) ?? 'no reason given'}`)
  const texts: string[] = []
  // Sets, not list searches: an answer of up to 5 MB may name 80,000 distinct URLs.
  const cited = new Set<string>()
  const sources = new Set<string>()
  for (const item of objectsOf(body.output, SERVICE, 'output')) {
    if (item.type === 'web_search_call') {
      for (const s of objectsOf(record(item.action).sources, SERVICE, 'web_search_call.action.sources')) if (isHttp(s.url)) sources.add(s.url)
    }
    if (item.type !== 'message') continue
    for (const part of objectsOf(item.content, SERVICE, 'message.content')) {
      if (part.type !== 'output_text') continue
      const said = text(part.text)
      if (said) texts.push(said)
      for (const a of objectsOf(part.annotations, SERVICE, 'output_text.annotations')) {
        if (a.type === 'url_citation' && isHttp(a.url)) cited.add(stripUtm(a.url))
      }
    }
  }
  for (const u of cited) sources.add(u)
  return { text: texts.join('\n'), cited: [...cited], sources: [...sources], model: text(body.model) }
}

/** OpenAI tags cited links with `utm_source=openai`; the tag is not part of the source. */
function stripUtm(url: string): string {
  try {
    const u = new URL(url)
    if (u.searchParams.get('utm_source') === 'openai') u.searchParams.delete('utm_source')
    return u.toString()
  } catch {
    return url
  }
}
