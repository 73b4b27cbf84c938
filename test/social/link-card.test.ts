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
    const unit = fc.constantFrom('a', ' ', 'é', '😀', '&amp;', '&#x1F600;', '&#xD800;')
    // Past each limit (300 and 1,000 characters once decoded): fast-check's default size keeps lengths near the minimum.
    const title = fc.string({ unit, minLength: 250, maxLength: 400 })
    const description = fc.string({ unit, minLength: 800, maxLength: 1300 })
    const cut = { title: 0, description: 0 }
    await fc.assert(
      fc.asyncProperty(title, description, async (t, d) => {
        fc.pre(/[^ ]/.test(t))
        const card = await fetchLinkCard(page(`<html><head><meta property="og:title" content="${t}"><meta name="description" content="${d}"></head></html>`), 'https://example.com/post')
        expect(card).not.toBeNull()
        expect(card!.title.isWellFormed()).toBe(true)
        expect(card!.description.isWellFormed()).toBe(true)
        expect(card!.title.length).toBeLessThanOrEqual(300)
        expect(card!.description.length).toBeLessThanOrEqual(1000)
        if (card!.title.endsWith('…')) cut.title++
        if (card!.description.endsWith('…')) cut.description++
      }),
      { numRuns: 300 },
    )
    // Both cuts ran, most of the time.
    expect(cut.title).toBeGreaterThan(150)
    expect(cut.description).toBeGreaterThan(150)
  })
})
