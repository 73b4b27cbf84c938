import type { Env } from '../../env'
import { NotConfiguredError } from '../errors'
import type { GuardedFetch, GuardedRequestInit } from '../web/fetch'
import { encodeUriText } from '../../lib/text'

/**
 * The URL actually requested for `target` when YOUTUBE_PROXY_URL is set: the setting with `{url}`
 * replaced by the encoded target, or with `url=<target>` appended when it has no placeholder.
 * @example proxiedUrl('https://yt-proxy.example.com/fetch', 'https://www.youtube.com/watch?v=x') // 'https://yt-proxy.example.com/fetch?url=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3Dx'
 */
export function proxiedUrl(proxy: string, target: string): string {
  if (proxy.includes('{url}')) return proxy.replaceAll('{url}', encodeUriText(target))
  let url: URL
  try {
    url = new URL(proxy)
  } catch {
    throw new NotConfiguredError('YOUTUBE_PROXY_URL', 'The YOUTUBE_PROXY_URL setting is not a valid absolute URL')
  }
  url.searchParams.set('url', target)
  return url.toString()
}

/**
 * Outbound fetch for YouTube. Workers' fetch cannot speak to CONNECT (HTTP tunnelling) proxies, so
 * the proxy is a forwarding endpoint: it receives the target URL, the method, headers and body,
 * makes the request from its own address (following redirects) and returns YouTube's response
 * unchanged, Set-Cookie included. Without the setting, requests go straight out.
 */
export function youtubeFetch(env: Env, fetch: GuardedFetch): GuardedFetch {
  const proxy = env.YOUTUBE_PROXY_URL?.trim()
  if (!proxy) return fetch
  return (target, init: GuardedRequestInit = {}) => {
    const headers = new Headers(init.headers)
    const token = env.YOUTUBE_PROXY_TOKEN?.trim()
    if (token) headers.set('authorization', `Bearer ${token}`)
    // A 3xx relayed by the proxy must not be followed directly, which would bypass the proxy.
    return fetch(proxiedUrl(proxy, String(target)), { ...init, headers, maxRedirects: 0, service: 'YouTube (through YOUTUBE_PROXY_URL)' })
  }
}
