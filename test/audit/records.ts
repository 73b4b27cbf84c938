import type { PageRecord } from '../../src/crawler/fetch-page'
import { extractHtmlText } from '../../src/providers/web/html'

/** The record a crawl keeps of an HTML page fetched with a plain 200 answer. */
export function htmlRecord(url: string, html: string): PageRecord {
  return {
    url,
    kind: 'html',
    status: 200,
    contentType: 'text/html',
    location: null,
    error: null,
    xRobotsTag: [],
    linkHeaders: [],
    lastModified: null,
    fetchMs: 1,
    parseMs: 1,
    html: extractHtmlText(html, url),
  }
}
