/** Anthropic Messages API answers with the `web_search_20250305` server tool, and their reader. */
import { isRecord, objectOf, objectsOf, text } from '../shape'

export const SERVICE = 'Anthropic web search'

export interface WebSearchResultLocation {
  type: 'web_search_result_location'
  url: string
  title?: string | null
  cited_text?: string
  encrypted_index?: string
}

export type MessageBlock =
  | { type: 'text'; text: string; citations?: ({ type: string } | WebSearchResultLocation)[] | null }
  | { type: 'server_tool_use'; id: string; name: string; input?: { query?: string } }
  | {
      type: 'web_search_tool_result'
      tool_use_id: string
      content: { type: 'web_search_result'; url: string; title?: string; page_age?: string | null; encrypted_content?: string }[] | { type: 'web_search_tool_result_error'; error_code: string }
    }
  | { type: string }

export interface MessagesBody {
  id?: string
  type?: string
  role?: string
  model?: string
  content?: MessageBlock[]
  stop_reason?: string | null
  usage?: Record<string, unknown>
  error?: { type?: string; message?: string }
}

/** Request body for one question with the web search server tool (at most `maxUses` searches). */
export function anthropicSearchRequest(model: string, question: string, maxUses = 3): Record<string, unknown> {
  return {
    model,
    max_tokens: 2048,
    system: 'Answer the question concisely using web search, and cite your sources.',
    messages: [{ role: 'user', content: question }],
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: maxUses }],
  }
}

const isHttp = (u: unknown): u is string => typeof u === 'string' && /^https?:\/\//i.test(u)

/**
 * Answer text, cited URLs (the text blocks' `web_search_result_location` citations) and consulted
 * URLs (`web_search_tool_result` blocks). Search errors come back as `errors` (the tool's error codes).
 */
export function readAnthropicSearch(answer: MessagesBody): { text: string; cited: string[]; sources: string[]; errors: string[]; model: string | null } {
  // The declared type is what Anthropic documents; the reads below hold for any JSON it sends.
  const body = objectOf(answer, SERVICE)
  const texts: string[] = []
  // Sets, not list searches: an answer of up to 5 MB may name 80,000 distinct URLs.
  const cited = new Set<string>()
  const sources = new Set<string>()
  const errors: string[] = []
  for (const block of objectsOf(body.content, SERVICE, 'content')) {
    if (block.type === 'text') {
      const said = text(block.text)
      if (said !== null) texts.push(said)
      for (const c of objectsOf(block.citations, SERVICE, 'text.citations')) if (c.type === 'web_search_result_location' && isHttp(c.url)) cited.add(c.url)
    } else if (block.type === 'web_search_tool_result') {
      const content = block.content
      if (Array.isArray(content)) {
        for (const r of content) if (isRecord(r) && r.type === 'web_search_result' && isHttp(r.url)) sources.add(r.url)
      } else if (isRecord(content)) {
        errors.push(text(content.error_code) ?? 'unknown')
      }
    }
  }
  for (const u of cited) sources.add(u)
  return { text: texts.join('').trim(), cited: [...cited], sources: [...sources], errors, model: text(body.model) }
}
