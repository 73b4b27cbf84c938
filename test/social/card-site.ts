import type { FetchHandler } from '../helpers'

/** A tiny PNG (its signature and the start of a header): what the card page's og:image answers. */
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])

/** A web page with an Open Graph card, and its image. */
export const sitePages: FetchHandler = (req) => {
  const url = new URL(req.url)
  if (url.origin !== 'https://example.com') return null
  if (url.pathname === '/notes') {
    return new Response(
      `<!doctype html><html><head><title>Fallback title</title>
       <meta property="og:title" content="Release notes &amp; more">
       <meta property="og:description" content="Everything new in 2.0">
       <meta property="og:image" content="/card.png"></head><body>hi</body></html>`,
      { headers: { 'content-type': 'text/html; charset=utf-8' } },
    )
  }
  if (url.pathname === '/card.png') return new Response(PNG, { headers: { 'content-type': 'image/png' } })
  if (url.pathname === '/plain') return new Response('just text', { headers: { 'content-type': 'text/plain' } })
  return new Response('missing', { status: 404 })
}
