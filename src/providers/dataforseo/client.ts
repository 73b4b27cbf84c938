import type { ActionContext } from '../../runtime/context'
import { basicAuthorization } from '../../lib/crypto'
import { NotConfiguredError, ProviderError, UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { text } from '../shape'
import { firstTask, SERVICE, type RankedKeywordsResponse } from './transform'
export const RANKED_KEYWORDS_URL = 'https://api.dataforseo.com/v3/dataforseo_labs/google/ranked_keywords/live'

/** The setting(s) DataForSEO lacks, or null when configured. */
export function dataForSeoMissing(env: ActionContext['env']): string | null {
  if (!env.DATAFORSEO_LOGIN) return 'DATAFORSEO_LOGIN'
  if (!env.DATAFORSEO_PASSWORD) return 'DATAFORSEO_PASSWORD'
  return null
}

/** Keywords a domain ranks for in Google (US, English), highest traffic first. */
export async function rankedKeywordsFor(ctx: ActionContext, domain: string, limit = 25): Promise<RankedKeywordsResponse> {
  const missing = dataForSeoMissing(ctx.env)
  if (missing) throw new NotConfiguredError(missing)
  const res = await ctx.fetch(RANKED_KEYWORDS_URL, {
    method: 'POST',
    service: SERVICE,
    idempotent: true,
    timeoutMs: 30_000,
    headers: { authorization: basicAuthorization(ctx.env.DATAFORSEO_LOGIN ?? '', ctx.env.DATAFORSEO_PASSWORD ?? ''), 'content-type': 'application/json' },
    body: JSON.stringify([{ target: domain, location_code: 2840, language_code: 'en', limit, order_by: ['ranked_serp_element.serp_item.etv,desc'] }]),
  })
  if (res.status === 401) {
    await res.body?.cancel()
    throw new ProviderError('unauthorized', 'DataForSEO rejected DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, 'status', `${SERVICE} answered ${res.status}`, res.status)
  }
  const body = await readJson<RankedKeywordsResponse>(res, SERVICE)
  const { status_code, status_message, task } = firstTask(body)
  if (status_code !== 20000 || (task && task.status_code !== 20000 && task.status_code !== 40102)) {
    const said = (task ? text(task.status_message) : null) ?? status_message ?? `status ${String(task?.status_code ?? status_code).slice(0, 20)}`
    throw new UpstreamError(SERVICE, 'status', `${SERVICE}: ${said}`)
  }
  return body
}
