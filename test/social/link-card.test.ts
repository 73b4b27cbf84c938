import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fetchLinkCard } from '../../src/providers/atproto/card'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { TEST_DNS, withFakeDns } from '../fake-dns'

/** The guarded client over a page that answers `html`. */
const page = (html: string) =>
  createGuardedFetch({
    userAgent: 'test',
    allowPrivate: false,
    dns: TEST_DNS,
    fetcher: withFakeDns(async () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })),
  })

describe('link cards', () => {
  // Failed before: a title or description cut at its limit could end in half of a surrogate pair,
  // which the post's record then carried to the PDS.
  it('cuts a long title and description between characters, never inside one (300 runs)', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', 'é', '😀', '&amp;', '&#x1F600;', '&#xD800;'), minLength: 250, maxLength: 1100 })
    await fc.assert(
      fc.asyncProperty(text, text, async (title, description) => {
        fc.pre(/[^ ]/.test(title))
        const card = await fetchLinkCard(page(`<html><head><meta property="og:title" content="${title}"><meta name="description" content="${description}"></head></html>`), 'https://example.com/post')
        expect(card).not.toBeNull()
        expect(card!.title.isWellFormed()).toBe(true)
        expect(card!.description.isWellFormed()).toBe(true)
        expect(card!.title.length).toBeLessThanOrEqual(300)
        expect(card!.description.length).toBeLessThanOrEqual(1000)
      }),
      { numRuns: 300 },
    )
  })
})
