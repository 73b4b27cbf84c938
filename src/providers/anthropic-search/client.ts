import type { ActionContext } from '../../runtime/context'
import type { EngineAccess } from '../engine-access'
import { ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { errorMessage } from '../shape'
import { anthropicSearchRequest, readAnthropicSearch, SERVICE, type MessagesBody } from './transform'

export const ANTHROPIC_VERSION = '2023-06-01'

/** Asks the Anthropic Messages API one question with the web search tool; returns the answer and its citations. */
export async function askAnthropicSearch(ctx: ActionContext, access: EngineAccess, question: string) {
  const res = await ctx.fetch(`${access.baseUrl}/messages`, {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 60_000,
    retries: 1,
    headers: { 'x-api-key': access.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json' },
    body: JSON.stringify(anthropicSearchRequest(access.model, question)),
  })
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', `Anthropic rejected the key (${access.keySource}), status ${res.status}`)
  }
  const body = await readJson<MessagesBody>(res, SERVICE)
  if (!res.ok) {
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}: ${errorMessage(body) ?? ''}`.trim(), res.status)
  }
  const read = readAnthropicSearch(body)
  if (read.cited.length === 0 && read.sources.length === 0 && read.errors.length) {
    throw new UpstreamError(SERVICE, 'status', `${SERVICE}: the search failed (${read.errors.join(', ')})`)
  }
  return read
}
