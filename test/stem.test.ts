import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { porterStem } from '../src/agents/stem'
import { action, createAccount, newCaller } from './helpers'
import { bruteForceRelevance, bruteForceTypoRelevance, documentedScore, insertAgent } from './brute-force-search'

/**
 * porterStem against SQLite's own: each word goes into two scratch FTS5 tables, one tokenized as
 * agents_fts is (porter over unicode61, diacritics removed) and one without the stemmer (the
 * search_words vocabulary's tokens), and every token's stem must be the one FTS5 stored for it.
 */
async function fts5Stems(words: string[]): Promise<{ token: string; stem: string }[]> {
  await env.DB.batch([
    env.DB.prepare(`CREATE VIRTUAL TABLE IF NOT EXISTS stem_p USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2')`),
    env.DB.prepare(`CREATE VIRTUAL TABLE IF NOT EXISTS stem_u USING fts5(t, tokenize = 'unicode61 remove_diacritics 2')`),
    env.DB.prepare(`CREATE VIRTUAL TABLE IF NOT EXISTS stem_pv USING fts5vocab(stem_p, 'instance')`),
    env.DB.prepare(`CREATE VIRTUAL TABLE IF NOT EXISTS stem_uv USING fts5vocab(stem_u, 'instance')`),
    env.DB.prepare(`DELETE FROM stem_p`),
    env.DB.prepare(`DELETE FROM stem_u`),
    env.DB.prepare(`INSERT INTO stem_p (rowid, t) SELECT key + 1, value FROM json_each(?)`).bind(JSON.stringify(words)),
    env.DB.prepare(`INSERT INTO stem_u (rowid, t) SELECT key + 1, value FROM json_each(?)`).bind(JSON.stringify(words)),
  ])
  const { results } = await env.DB.prepare(`SELECT u.term AS token, p.term AS stem FROM stem_uv u JOIN stem_pv p ON p.doc = u.doc AND p.col = u.col AND p.offset = u.offset`).all<{
    token: string
    stem: string
  }>()
  return results
}

/** A stem that split a character (stem.ts keeps its bytes behind a NUL) as SQLite hands it back: lossy. */
const asStored = (stem: string) => (stem.startsWith('\0') ? new TextDecoder().decode(Uint8Array.from(stem.slice(1), (c) => c.charCodeAt(0))) : stem)

const SUFFIXES =
  'ing ed eed s es ies sses ss y ational tional enci anci izer logi bli alli entli eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize e ll at bl iz'.split(
    ' ',
  )

const LETTERS = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz', ...'aeiouyaeiouy', 'll', 'ss', 'tt', '7', 'é', 'ß', 'ж', 'ø', 'ı', '中', '\u1041')

/**
 * Words built to reach the stemmer's rules: letters (vowels and y often), digits, other scripts,
 * then a suffix; short ones, and long ones around the 64 bytes past which a token is kept as it is.
 */
const word = fc
  .tuple(fc.oneof(fc.array(LETTERS, { maxLength: 10 }), fc.array(LETTERS, { minLength: 25, maxLength: 60 })), fc.constantFrom(...SUFFIXES, ''))
  .map(([letters, suffix]) => letters.join('') + suffix)
  .filter((w) => w.length > 0)

describe('porterStem', () => {
  it('stems every token exactly as FTS5 porter tokenizer does', async () => {
    const classic =
      'caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll generalizations oscillators ated bled ized yyyying x\u1041\u1041ing ab ss'.split(
        ' ',
      )
    const check = async (words: string[]) => {
      const stems = await fts5Stems(words)
      expect(stems.length).toBeGreaterThanOrEqual(words.length)
      for (const { token, stem } of stems) expect(asStored(porterStem(token)), token).toBe(stem)
    }
    await check(classic)
    await fc.assert(
      fc.asyncProperty(fc.array(word, { minLength: 1, maxLength: 300 }), async (words) => check(words)),
      { numRuns: 40 },
    )
  })
})

describe('typo corrections', () => {
  let owner: string
  let searcher: string
  beforeAll(async () => {
    owner = await createAccount('stem owner')
    searcher = (await newCaller('stem searcher')).token
  })

  const scoreOf = async (query: string) => {
    const res = await action('search', { query, status: 'public', limit: 5, page: 0 }, searcher)
    expect(res.status).toBe(200)
    return (res.body.response as { function: { metadata: { score: number } } }[]).map((h) => h.function.metadata.score)
  }
  /** The documented scores of the agents the corrections match (executions 0), best first, rounded as hits are. */
  const expectedScores = async (corrections: string[]) =>
    [...(await bruteForceTypoRelevance([], corrections)).values()].map((rel) => Math.round(documentedScore(rel, 0) * 1e6) / 1e6).sort((x, y) => y - x)

  it('count each stem once: two stems whose lists happen to be equal both count, two spellings of one stem once', async () => {
    // Enough other agents that a word in one of them has a real idf.
    for (let i = 0; i < 30; i++) await insertAgent().bind(`stem-filler-${i}`, `Filler ${i}`, `Keeps ledger ${i} tidy`, 'public', owner, null, 0, '').run()
    await insertAgent().bind('stem-a', 'Quorbaxe quorbaxi', 'Files quorbaxe quorbaxi notes', 'public', owner, null, 0, '').run()
    await insertAgent().bind('stem-b', 'Plimkettle plimkettles', 'Keeps plimkettle records', 'public', owner, null, 0, '').run()
    // "quorbaxo" is one edit from "quorbaxe" and "quorbaxi" (two stems, each in stem-a alone, as often).
    expect(porterStem('quorbaxe')).not.toBe(porterStem('quorbaxi'))
    expect(await bruteForceRelevance('"quorbaxi"')).toEqual(await bruteForceRelevance('"quorbaxe"'))
    expect(await scoreOf('quorbaxo')).toEqual(await expectedScores(['quorbaxe', 'quorbaxi']))
    // "plimkettlex" is one edit from "plimkettle" and "plimkettles", one stem: its list counts once.
    expect(porterStem('plimkettle')).toBe(porterStem('plimkettles'))
    expect(await scoreOf('plimkettlex')).toEqual(await expectedScores(['plimkettle']))
  })
})
