/**
 * Upstream Retry-After values, read one way for every provider: they decide how long the guarded
 * client waits and what this service's own `retry-after` header tells callers.
 */

/** The longest wait passed on or honoured: a day. Longer values are upstream noise or hostility. */
export const MAX_RETRY_AFTER_SECONDS = 86_400

/**
 * Seconds to wait from a Retry-After value: whole seconds (RFC 9110; a decimal is rounded up, as
 * some services send one) or an HTTP date, capped at a day; undefined for anything else ("0x10",
 * "1e21", "-5", "soon"), so the caller's own backoff applies.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const v = value?.trim()
  if (!v) return undefined
  if (/^\d+(\.\d+)?$/.test(v)) return Math.min(MAX_RETRY_AFTER_SECONDS, Math.ceil(Number(v)))
  // An HTTP date starts with its day's name ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse alone would
  // also read "!0" or "12" as some date.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i.test(v)) return undefined
  const date = Date.parse(v)
  return Number.isFinite(date) ? Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((date - now) / 1000))) : undefined
}

/** Seconds until an epoch-seconds reset time (`ratelimit-reset`), at least 1 and capped at a day. */
export function resetAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const v = value?.trim()
  if (!v || !/^\d+(\.\d+)?$/.test(v)) return undefined
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(Number(v) - now / 1000)))
}
