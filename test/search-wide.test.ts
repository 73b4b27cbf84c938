import { env } from 'cloudflare:test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { wideLists } from '../src/agents/relevance'
import { cached } from '../src/agents/search-state'
import { phraseListsQuery, restrictedListQuery, runQuery } from '../src/db/agents'
import { action, createTeam, newCaller, type Json } from './helpers'
import { bruteForceRanking, bruteForceSearch, bruteForceTypoRelevance, insertAgent } from './brute-force-search'
import { seededRandom } from './seeded'

/**
 * Words in half the agents or more (wide: FTS5 floors their idf) are read only for the agents that
 * can reach the page. These tests lower the size a wide word needs to 1 and hold every page of
 * queries with such words to a brute-force ranking of every match.
 */

const AGENTS = 600
const rand = seededRandom(11)
const wideMinBefore = wideLists.min
const SYLLABLES = 'ka lo mi ne ru sa ti vo'.split(' ')
const VOCAB = Array.from({ length: 64 }, (_, i) => SYLLABLES[i % 8] + SYLLABLES[Math.floor(i / 8)] + 'n')
const word = () => VOCAB[Math.floor(VOCAB.length * rand() ** 2)]
const words = (n: number) => Array.from({ length: n }, word).join(' ')

let viewer: { token: string; accountId: string }
let teamId: string
const readBatch = (statements: D1PreparedStatement[]) => env.DB.batch<Record<string, unknown>>(statements)

beforeAll(async () => {
  wideLists.min = 1
  viewer = await newCaller('wide viewer')
  const other = await newCaller('wide other')
  teamId = await createTeam('wide team', [viewer.accountId])
  const insert = insertAgent()
  const rows = []
  for (let i = 0; i < AGENTS; i++) {
    const r = rand()
    const [visibility, owner, team] = r < 0.08 ? ['private', viewer.accountId, null] : r < 0.16 ? ['team', other.accountId, teamId] : ['public', other.accountId, null]
    const executions = [0, 0, 5, 40, 300, 2000][Math.floor(rand() * 6)]
    // "everyn" in every agent, "commonn" in about 70% of them, sometimes twice: both are wide.
    const common = rand() < 0.7 ? (rand() < 0.3 ? 'commonn commonn ' : 'commonn ') : ''
    rows.push(insert.bind(`wide${i}`, words(1 + Math.floor(rand() * 3)), common + words(3 + Math.floor(rand() * 8)), visibility, owner, team, executions, `everyn ${words(Math.floor(rand() * 3))}`))
  }
  for (let i = 0; i < rows.length; i += 200) await env.DB.batch(rows.slice(i, i + 200))
})

afterAll(() => {
  wideLists.min = wideMinBefore
})

const bruteForce = (match: string, status: string) => bruteForceSearch(match, status, viewer.accountId, teamId)

let moves = 0
/**
 * Moves the index version (one agent's text changes), so the next search knows no list: a wide
 * list read whole for one page would otherwise serve every later search.
 */
async function moveIndex(): Promise<void> {
  await env.DB.prepare('UPDATE agents SET description = ? WHERE id = ?')
    .bind(`${VOCAB[moves++ % 8]} commonn`, `wide${AGENTS - 1}`)
    .run()
}

async function searchIds(query: string, status: string, limit: number, page: number): Promise<string[]> {
  const res = await action('search', { query, status, limit, page }, viewer.token)
  expect(res.status).toBe(200)
  return (res.body.response as Json[]).map((h) => h.function.metadata.id as string)
}

async function indexVersion(): Promise<string> {
  const v = await env.DB.prepare('SELECT epoch, index_version FROM catalog_version WHERE id = 1').first<{ epoch: string; index_version: number }>()
  return `${v!.epoch}:${v!.index_version}`
}

describe('wide words', () => {
  it('come back unread from the list read, and read for some agents equal their whole list there', async () => {
    const fetched = await runQuery(readBatch, phraseListsQuery(env.DB, ['"everyn"', '"commonn"', `"${VOCAB[63]}"`], null, undefined, [], 1))
    expect(fetched.wide).toEqual([true, true, false])
    expect(fetched.lists[0].rowids.length).toBe(0)
    expect(fetched.lists[2].rowids.length).toBeGreaterThan(0)
    // Narrower than the size asked for: read whole.
    const narrow = await runQuery(readBatch, phraseListsQuery(env.DB, ['"everyn"'], null, undefined, [], AGENTS + 1))
    expect(narrow.wide).toEqual([false])
    const whole = await runQuery(readBatch, phraseListsQuery(env.DB, ['"commonn"'], null))
    expect(whole.lists[0].rowids.length).toBeGreaterThan(AGENTS / 2)
    const some = [...whole.lists[0].rowids].filter((_, i) => i % 3 === 0)
    const part = await runQuery(readBatch, restrictedListQuery(env.DB, '"commonn"', [...some, 999_999]))
    expect([...part.rowids]).toEqual(some)
    const value = (l: typeof part, rowid: number) => l.values[l.at[[...l.rowids].indexOf(rowid)]]
    for (const rowid of some) expect(value(part, rowid)).toBe(value(whole.lists[0], rowid))
  })

  it('leave every page equal to a brute-force ranking of every match, for every filter and page', async () => {
    const queries = [
      ...Array.from({ length: 12 }, () => `everyn ${words(1 + Math.floor(rand() * 3))}`),
      ...Array.from({ length: 8 }, () => `${words(1 + Math.floor(rand() * 2))} commonn everyn`),
      'everyn',
      'commonn everyn',
      `everyn ${VOCAB[63]}`,
    ]
    for (const query of queries) {
      const terms = [...new Set(query.split(' '))]
      for (const [limit, page] of [
        [10, 0],
        [7, 3],
        [1, 0],
        [100, 1],
      ]) {
        await moveIndex()
        const expected = await bruteForce(terms.map((t) => `"${t}"`).join(' OR '), 'public')
        expect(await searchIds(query, 'public', limit, page), `${query} ${limit}/${page}`).toEqual(expected.slice(page * limit, page * limit + limit))
      }
    }
    expect(cached.wide(await indexVersion(), '"everyn"')).toBe(true)
    for (const status of ['private', 'team', 'all']) {
      for (const query of queries.slice(0, 6)) {
        const terms = [...new Set(query.split(' '))]
        await moveIndex()
        const expected = await bruteForce(terms.map((t) => `"${t}"`).join(' OR '), status)
        expect(await searchIds(query, status, 5, 1), `${status} ${query}`).toEqual(expected.slice(5, 10))
      }
    }
  })

  it('answer any query text beside wide words with a page, operators and quotes inert', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('"', 'a" OR "b', 'NEAR(x y)', '*', 'description:word', 'commonn^2', 'everyn" AND')),
        fc.constantFrom('everyn', 'commonn everyn', 'everyn commonn'),
        async (text, wide) => {
          await moveIndex()
          const res = await action('search', { query: `${wide} ${text}`, status: 'public', limit: 5, page: 0 }, viewer.token)
          expect(res.status).toBe(200)
          for (const h of res.body.response as Json[]) expect(h.function.metadata.score >= 0 && h.function.metadata.score <= 1).toBe(true)
        },
      ),
      { numRuns: 30 },
    )
  })

  it('keep a completed prefix exact beside a wide word', async () => {
    for (let i = 0; i < 6; i++) {
      const partial = VOCAB[8 + i].slice(0, 3)
      const expected = await bruteForce(`"everyn" OR "${partial}"*`, 'public')
      expect(await searchIds(`everyn ${partial}`, 'public', 10, 0), `everyn ${partial}`).toEqual(expected.slice(0, 10))
    }
  })

  it('count a wide typo correction at half weight, read only where it can matter', async () => {
    // "everyx" and "commonx" are one edit from the wide "everyn" and "commonn" and from no other word.
    const cases: [string, string[], string[]][] = [
      ...Array.from({ length: 6 }, (): [string, string[], string[]] => {
        const w = words(1 + Math.floor(rand() * 2)).split(' ')
        return [`${w.join(' ')} everyx`, [...new Set(w)], ['everyn']]
      }),
      ...Array.from({ length: 4 }, (): [string, string[], string[]] => {
        const w = word()
        return [`commonx ${w}`, [w], ['commonn']]
      }),
      ['everyx', [], ['everyn']],
      ['everyx commonx', [], ['everyn', 'commonn']],
    ]
    for (const [query, exact, corrections] of cases) {
      // Once with the correction unknown to this index version, once after a search marked it wide.
      for (const marked of [false, true]) {
        await moveIndex()
        if (marked) await searchIds(corrections.join(' '), 'public', 1, 0)
        const rels = await bruteForceTypoRelevance(exact, corrections)
        for (const [status, limit, page] of [
          ['public', 10, 0],
          ['public', 7, 2],
          ['all', 5, 1],
          ['private', 10, 0],
        ] as const) {
          const expected = await bruteForceRanking(rels, status, viewer.accountId, teamId)
          expect(await searchIds(query, status, limit, page), `${query} ${status} ${limit}/${page} ${marked}`).toEqual(expected.slice(page * limit, page * limit + limit))
        }
      }
    }
    await moveIndex()
    await searchIds(`${VOCAB[5]} everyx`, 'public', 10, 0)
    expect(cached.wide(await indexVersion(), '"everyn"')).toBe(true)
  })

  it('stay exact after agent text changes move the index version', async () => {
    const id = 'wide3'
    await env.DB.prepare("UPDATE agents SET description = 'commonn commonn commonn kakan' WHERE id = ?").bind(id).run()
    const expected = await bruteForce('"everyn" OR "kakan"', 'public')
    expect(await searchIds('everyn kakan', 'public', 10, 0)).toEqual(expected.slice(0, 10))
    const both = await bruteForce('"commonn" OR "everyn" OR "kakan"', 'public')
    expect(await searchIds('commonn everyn kakan', 'public', 10, 0)).toEqual(both.slice(0, 10))
  })
})
