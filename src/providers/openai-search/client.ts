import type { ActionContext } from '../../runtime/context'
import type { EngineAccess } from '../engine-access'
import { ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { errorMessage } from '../shape'
import { openAiSearchRequest, readOpenAiSearch, SERVICE, type ResponsesBody } from './transform'

/** Asks the OpenAI Responses API one question with the web search tool; returns the answer and its citations. */
export async function askOpenAiSearch(ctx: ActionContext, access: EngineAccess, question: string) {
  const res = await ctx.fetch(`${access.baseUrl}/responses`, {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 60_000,
    retries: 1,
    headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(openAiSearchRequest(access.model, question)),
  })
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', `OpenAI rejected the key (${access.keySource}), status ${res.status}`)
  }
  const body = await readJson<ResponsesBody>(res, SERVICE)
  if (!res.ok) {
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}: ${errorMessage(body) ?? ''}`.trim(), res.status)
  }
  return readOpenAiSearch(body)
}
