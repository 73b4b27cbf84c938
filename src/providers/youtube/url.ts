/** YouTube video ids: 11 characters of the URL-safe base64 alphabet. */
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/

const WATCH_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com'])
const EMBED_HOSTS = new Set([...WATCH_HOSTS, 'youtube-nocookie.com', 'www.youtube-nocookie.com'])
const PATH_FORMS = ['embed', 'shorts', 'live', 'v', 'e']

/** The accepted URL forms, for error messages and docs. */
export const ACCEPTED_URL_FORMS =
  'https://www.youtube.com/watch?v=<id>, https://youtu.be/<id>, https://www.youtube.com/embed/<id>, https://www.youtube.com/shorts/<id>, https://www.youtube.com/live/<id>'

/**
 * The video id of a YouTube watch, short (youtu.be), embed, shorts or live URL; null for anything
 * else. A missing scheme is tolerated ("youtu.be/abc..."), as people paste links that way.
 * @example videoIdFromUrl('https://youtu.be/GJLlxj_dtq8?t=39') // 'GJLlxj_dtq8'
 */
export function videoIdFromUrl(raw: string): string | null {
  const text = raw.trim()
  let url: URL
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`)
  } catch {
    return null
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null
  if (url.username || url.password) return null
  const host = url.hostname.toLowerCase()
  const segments = url.pathname.split('/').filter(Boolean)
  let id: string | null = null
  if (host === 'youtu.be' || host === 'www.youtu.be') {
    id = segments.length === 1 ? segments[0] : null
  } else if (WATCH_HOSTS.has(host) && segments.length === 1 && segments[0] === 'watch') {
    id = url.searchParams.get('v')
  } else if (EMBED_HOSTS.has(host) && segments.length === 2 && PATH_FORMS.includes(segments[0])) {
    id = segments[1]
  }
  return id !== null && VIDEO_ID.test(id) ? id : null
}
