import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { organizationByDomain } from '../../src/providers/crunchbase/client'
import type { ActionContext } from '../../src/runtime/context'
import { json } from '../helpers'

describe('Crunchbase: a permalink the autocomplete answers is one segment of the entity URL', () => {
  it('reads each hit at /entities/organizations/<permalink> or skips it', async () => {
    const permalink = fc.oneof(
      fc.constantFrom('.', '..', '%2e%2e', 'a/../b', 'a?x=1', 'a#b', 'acme', '', 42, null, undefined, '\ud800'),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      // Lone surrogates, which JSON allows and encodeURIComponent throws on ('binary' draws none).
      fc.string({ unit: fc.constantFrom('\ud800', '\udfff', 'a', '/', '.'), maxLength: 6 }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(permalink, { maxLength: 3 }), async (permalinks) => {
        const seen: URL[] = []
        const fetch = async (input: string | URL) => {
          const url = new URL(input)
          seen.push(url)
          if (url.pathname.endsWith('/autocompletes')) return json({ entities: permalinks.map((p) => ({ identifier: p === undefined ? undefined : { permalink: p } })) })
          return json({ properties: { website_url: 'https://other.example' } })
        }
        const ctx = { env: { CRUNCHBASE_API_KEY: 'cb-key' }, fetch } as unknown as ActionContext
        await organizationByDomain(ctx, 'acme.example')
        const reads = seen.slice(1)
        for (const url of reads) {
          expect(url.origin).toBe('https://api.crunchbase.com')
          const s = url.pathname.split('/').slice(1)
          expect(s.slice(0, -1)).toEqual(['api', 'v4', 'entities', 'organizations'])
          expect(permalinks.map(String)).toContain(decodeURIComponent(s[s.length - 1]))
          expect([...url.searchParams.keys()]).toEqual(['field_ids', 'card_ids'])
        }
      }),
      { numRuns: 200, examples: [[['..']], [[undefined]], [['\ud800', 'acme']]] },
    )
  })
})
