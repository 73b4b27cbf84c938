import type { ActionContext } from '../../runtime/context'
import type { EngineAccess } from '../engine-access'
import { ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { perplexityRequest, readPerplexity, SERVICE, type PerplexityResponse } from './transform'

export const PERPLEXITY_BASE = 'https://api.perplexity.ai'

/** Asks Perplexity's Chat Completions API one question; returns the answer and its citations. */
export async function askPerplexity(ctx: ActionContext, access: EngineAccess, question: string) {
  const res = await ctx.fetch(`${access.baseUrl}/chat/completions`, {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 45_000,
    retries: 1,
    headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(perplexityRequest(access.model, question)),
  })
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', `Perplexity rejected the key (${access.keySource}), status ${res.status}`)
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, res.status === 429 ? 'rate_limited' : 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  return readPerplexity(await readJson<PerplexityResponse>(res, SERVICE))
}
