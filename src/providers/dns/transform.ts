/** A DNS-over-HTTPS JSON answer (RFC 8484 JSON form served by Cloudflare and Google). */
import { objectOf, objectsOf } from '../shape'

export const SERVICE = 'DNS over HTTPS'

export interface DohAnswer {
  Status: number
  Answer?: { name: string; type: number; TTL: number; data: string }[]
}

export const DNS_TYPES = { A: 1, CNAME: 5, MX: 15, TXT: 16, AAAA: 28 } as const
export type DnsType = keyof typeof DNS_TYPES

/** Record data of one type from a DoH answer; TXT strings are unquoted and joined, MX keeps the host. Records without text data are skipped. */
export function recordsOf(answer: DohAnswer, type: DnsType): string[] {
  const code = DNS_TYPES[type]
  // The declared type is what resolvers send; the reads below hold for any JSON one sends.
  return objectsOf(objectOf(answer, SERVICE).Answer, SERVICE, 'Answer')
    .filter((a): a is { type: number; data: string } => a.type === code && typeof a.data === 'string')
    .map((a) => {
      if (type === 'TXT') return a.data.replace(/^"|"$/g, '').replace(/"\s*"/g, '')
      if (type === 'MX') return a.data.split(/\s+/).slice(1).join(' ').toLowerCase()
      return a.data
    })
}
