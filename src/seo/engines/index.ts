import { askAnthropicSearch } from '../../providers/anthropic-search/client'
import { resolveRoute } from '../../providers/llm/providers'
import { askOpenAiSearch } from '../../providers/openai-search/client'
import { askPerplexity, PERPLEXITY_BASE } from '../../providers/perplexity/client'
import type { ActionContext } from '../../runtime/context'
import type { AnswerEngine, EngineAccess, EngineAnswer } from './types'
import { cutChars } from '../../lib/text'

export type { AnswerEngine, EngineAccess, EngineAnswer, EngineId } from './types'

const EXCERPT = 400
const excerpt = (text: string) => (text.length > EXCERPT ? `${cutChars(text, EXCERPT)}…` : text)
const nonEmpty = (v: string | undefined) => (v && v.trim() ? v.trim() : undefined)

/**
 * A vendor key through the model layer's key resolution (the account's own key first, then the
 * server key), only when it routes to that vendor itself: a compatible server has no web search tool.
 */
async function vendorAccess(ctx: ActionContext, modelId: 'gpt-5.4-mini' | 'claude-haiku-4-5', vendor: 'openai' | 'anthropic', defaultBase: string): Promise<EngineAccess | null> {
  try {
    const route = await resolveRoute(ctx, modelId)
    if (route.provider !== vendor || !route.apiKey) return null
    return {
      apiKey: route.apiKey,
      baseUrl: (route.baseURL ?? defaultBase).replace(/(?<!\/)\/+$/, ''),
      model: route.model,
      keySource: route.keySource === 'account' ? `the account's ${vendor} key` : vendor === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY',
    }
  } catch {
    return null
  }
}

const wrap = (model: string, r: { text: string; cited: string[]; sources: string[]; model: string | null }): EngineAnswer => ({
  model: r.model ?? model,
  answer_excerpt: excerpt(r.text),
  cited_urls: r.cited,
  source_urls: r.sources,
})

/** Perplexity Sonar through its Chat Completions API. */
export const perplexityEngine: AnswerEngine = {
  id: 'perplexity',
  label: 'Perplexity (Sonar API)',
  setting: 'PERPLEXITY_API_KEY',
  async access(ctx) {
    const key = nonEmpty(ctx.env.PERPLEXITY_API_KEY)
    if (!key) return null
    return { apiKey: key, baseUrl: PERPLEXITY_BASE, model: nonEmpty(ctx.env.PERPLEXITY_MODEL) ?? 'sonar', keySource: 'PERPLEXITY_API_KEY' }
  },
  async ask(ctx, access, question) {
    return wrap(access.model, await askPerplexity(ctx, access, question))
  },
}

/** OpenAI's Responses API with the hosted `web_search` tool. */
export const openAiSearchEngine: AnswerEngine = {
  id: 'openai_web_search',
  label: 'OpenAI (Responses API, web_search tool)',
  setting: 'OPENAI_API_KEY',
  access: (ctx) => vendorAccess(ctx, 'gpt-5.4-mini', 'openai', 'https://api.openai.com/v1'),
  async ask(ctx, access, question) {
    return wrap(access.model, await askOpenAiSearch(ctx, access, question))
  },
}

/** Anthropic's Messages API with the `web_search_20250305` server tool. */
export const anthropicSearchEngine: AnswerEngine = {
  id: 'anthropic_web_search',
  label: 'Anthropic (Messages API, web_search tool)',
  setting: 'ANTHROPIC_API_KEY',
  access: (ctx) => vendorAccess(ctx, 'claude-haiku-4-5', 'anthropic', 'https://api.anthropic.com/v1'),
  async ask(ctx, access, question) {
    return wrap(access.model, await askAnthropicSearch(ctx, access, question))
  },
}

/** Every answer engine, in report order. */
export const ENGINES: readonly AnswerEngine[] = [perplexityEngine, openAiSearchEngine, anthropicSearchEngine]
