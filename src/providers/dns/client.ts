import type { ActionContext } from '../../runtime/context'
import { UpstreamError } from '../errors'
import { readJson } from '../web/fetch'
import { objectOf } from '../shape'
import { DNS_TYPES, recordsOf, SERVICE, type DnsType, type DohAnswer } from './transform'
import { encodeUriText } from '../../lib/text'

/** Default DNS-over-HTTPS JSON endpoint. */
export const DOH_URL = 'https://cloudflare-dns.com/dns-query'

/** Looks up records of one type over DNS-over-HTTPS; an NXDOMAIN or empty answer is []. */
export async function resolve(ctx: ActionContext, name: string, type: DnsType): Promise<{ records: string[]; url: string }> {
  const url = `${DOH_URL}?name=${encodeUriText(name)}&type=${type}`
  const res = await ctx.fetch(url, { service: SERVICE, headers: { accept: 'application/dns-json' }, timeoutMs: 8000 })
  if (!res.ok) {
    await res.body?.cancel()
    throw new UpstreamError(SERVICE, 'status', `${SERVICE} answered ${res.status} for ${name} ${type}`, res.status)
  }
  const answer = objectOf(await readJson(res, SERVICE), SERVICE) as unknown as DohAnswer
  return { records: answer.Status === 0 ? recordsOf(answer, type) : [], url }
}

export { DNS_TYPES }
