import { createScheduledController, env } from 'cloudflare:test'
import worker from '../src/index'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadPublicState } from '../src/agents/public-rank'
import { completeLists } from '../src/agents/relevance'
import { phraseListsQuery, runQuery, type PhraseList } from '../src/db/agents'
import { action, createTeam, newCaller, type Json } from './helpers'
import { bruteForceSearch, insertAgent } from './brute-force-search'
import { seededRandom } from './seeded'

/**
 * Search prunes candidates and joins only rows that can still rank; these tests hold every page to a
 * brute-force ranking of every match (bm25 on all of them, popularity blended, visibility applied),
 * over a generated catalog where common words match hundreds of agents and scores tie in droves.
 */

const AGENTS = 2500
const rand = seededRandom(7)
const SYLLABLES = 'ka lo mi ne ru sa ti vo ze bar cor den fin gal hum lex'.split(' ')
const VOCAB = Array.from({ length: 300 }, (_, i) => SYLLABLES[i % 16] + SYLLABLES[Math.floor(i / 16) % 16] + (i >= 256 ? 'x' : ''))
// Zipf-like: word i drawn with weight 1 / (i + 8).
const weights = VOCAB.map((_, i) => 1 / (i + 8))
const total = weights.reduce((a, b) => a + b, 0)
const word = () => {
  let u = rand() * total
  for (let i = 0; i < VOCAB.length; i++) if ((u -= weights[i]) <= 0) return VOCAB[i]
  return VOCAB[VOCAB.length - 1]
}
const words = (n: number) => Array.from({ length: n }, word).join(' ')

let viewer: { token: string; accountId: string }
let teamId: string

beforeAll(async () => {
  viewer = await newCaller('exact viewer')
  const other = await newCaller('exact other')
  teamId = await createTeam('exact team', [viewer.accountId])
  const otherTeam = await createTeam('exact other team', [other.accountId])
  const insert = insertAgent()
  const rows = []
  for (let i = 0; i < AGENTS; i++) {
    const r = rand()
    const [visibility, owner, team] =
      r < 0.05
        ? ['private', viewer.accountId, null]
        : r < 0.1
          ? ['private', other.accountId, null]
          : r < 0.15
            ? ['team', other.accountId, i % 2 ? teamId : otherTeam]
            : ['public', other.accountId, null]
    // Few distinct execution counts, so popularity ties as well as relevance.
    const executions = [0, 0, 5, 40, 300, 2000][Math.floor(rand() * 6)]
    rows.push(insert.bind(`exact${i}`, words(1 + Math.floor(rand() * 3)), words(4 + Math.floor(rand() * 10)), visibility, owner, team, executions, rand() < 0.3 ? words(2) : ''))
  }
  for (let i = 0; i < rows.length; i += 200) await env.DB.batch(rows.slice(i, i + 200))
})

const bruteForce = (match: string, status: string) => bruteForceSearch(match, status, viewer.accountId, teamId)

async function searchIds(query: string, status: string, limit: number, page: number): Promise<string[]> {
  const res = await action('search', { query, status, limit, page }, viewer.token)
  expect(res.status).toBe(200)
  return (res.body.response as Json[]).map((h) => h.function.metadata.id as string)
}

describe('exact search pages', () => {
  it('equal a brute-force ranking of every match, for every filter and page', async () => {
    const queries = Array.from({ length: 40 }, () => words(1 + Math.floor(rand() * 4)))
    for (const query of queries) {
      const terms = [...new Set(query.split(' '))]
      const expected = await bruteForce(terms.map((t) => `"${t}"`).join(' OR '), 'public')
      for (const [limit, page] of [
        [10, 0],
        [7, 3],
        [1, 0],
        [100, 1],
      ]) {
        expect(await searchIds(query, 'public', limit, page), `${query} ${limit}/${page}`).toEqual(expected.slice(page * limit, page * limit + limit))
      }
      // A word the index does not know adds nothing (the search ranks before it knows that, then checks).
      expect(await searchIds(`${query} qqzz${queries.indexOf(query)}`, 'public', 10, 0)).toEqual(expected.slice(0, 10))
    }
    for (const status of ['private', 'team', 'all']) {
      for (const query of queries.slice(0, 10)) {
        const terms = [...new Set(query.split(' '))]
        const expected = await bruteForce(terms.map((t) => `"${t}"`).join(' OR '), status)
        expect(await searchIds(query, status, 5, 1), `${status} ${query}`).toEqual(expected.slice(5, 10))
      }
    }
  })

  it('equal it when the last word is completed as a prefix', async () => {
    for (let i = 0; i < 10; i++) {
      const [a, b] = [word(), word()]
      const partial = b.slice(0, 3)
      if (VOCAB.includes(partial)) continue
      const expected = await bruteForce(`"${a}" OR "${partial}"*`, 'public')
      expect(await searchIds(`${a} ${partial}`, 'public', 10, 0), `${a} ${partial}`).toEqual(expected.slice(0, 10))
    }
  })

  it('follow changes to agent text and popularity at once', async () => {
    // Relevance lists are cached per phrase until agent text changes; popularity is read fresh.
    expect(await searchIds('zyxwordy', 'public', 10, 0)).toEqual([])
    await env.DB.prepare(`UPDATE agents SET description = description || ' zyxwordy' WHERE id IN ('exact1', 'exact2', 'exact3')`).run()
    await env.DB.prepare(`UPDATE agents SET visibility = 'public', executions = 0 WHERE id IN ('exact1', 'exact2', 'exact3')`).run()
    const before = await searchIds('zyxwordy', 'public', 10, 0)
    expect(before).toEqual(await bruteForce('"zyxwordy"', 'public'))
    expect(before.sort()).toEqual(['exact1', 'exact2', 'exact3'])
    await env.DB.prepare(`UPDATE agents SET executions = 5000 WHERE id = ?`).bind(before[2]).run()
    expect(await searchIds('zyxwordy', 'public', 10, 0)).toEqual(await bruteForce('"zyxwordy"', 'public'))
    await env.DB.prepare(`UPDATE agents SET name = 'Zyxwordy' WHERE id = 'exact2'`).run()
    const renamed = await searchIds('zyxwordy', 'public', 10, 0)
    expect(renamed[0]).toBe('exact2')
    expect(renamed).toEqual(await bruteForce('"zyxwordy"', 'public'))
    await env.DB.prepare(`DELETE FROM agents WHERE id = 'exact2'`).run()
    expect(await searchIds('zyxwordy', 'public', 10, 0)).not.toContain('exact2')
  })

  it('follow visibility and popularity changes made after the isolate read them', async () => {
    // Public pages are ranked from executions each isolate keeps by rowid, brought up to date from
    // the change log: an agent made private must drop out at once, a popular one move up.
    const query = VOCAB.slice(0, 3).join(' ')
    const match = VOCAB.slice(0, 3)
      .map((t) => `"${t}"`)
      .join(' OR ')
    const before = await searchIds(query, 'public', 10, 0)
    expect(before).toEqual((await bruteForce(match, 'public')).slice(0, 10))
    await env.DB.prepare(`UPDATE agents SET visibility = 'private' WHERE id = ?`).bind(before[0]).run()
    await env.DB.prepare(`UPDATE agents SET executions = 1000000 WHERE id = ?`).bind(before[9]).run()
    const after = await searchIds(query, 'public', 10, 0)
    expect(after).not.toContain(before[0])
    expect(after).toEqual((await bruteForce(match, 'public')).slice(0, 10))
    await env.DB.prepare(`UPDATE agents SET visibility = 'public' WHERE id = ?`).bind(before[0]).run()
    expect(await searchIds(query, 'public', 10, 0)).toEqual((await bruteForce(match, 'public')).slice(0, 10))
    expect(await searchIds(query, 'public', 10, 0)).toContain(before[0])
  })

  it('stay exact when more agents changed than the change log keeps', async () => {
    const query = VOCAB.slice(3, 6).join(' ')
    const match = VOCAB.slice(3, 6)
      .map((t) => `"${t}"`)
      .join(' OR ')
    await searchIds(query, 'public', 10, 0)
    // Over 10,000 changes: the isolate cannot catch up from the log and reads every public agent again.
    const rowids = await env.DB.prepare(`SELECT rowid FROM agents WHERE visibility = 'public' ORDER BY rowid`).all<{ rowid: number }>()
    for (let round = 0; round < 5; round++) {
      await env.DB.prepare(`UPDATE agents SET executions = executions + (rowid % 7) * ${round}`).run()
    }
    await env.DB.prepare(`UPDATE agents SET visibility = 'team' WHERE rowid = ?`).bind(rowids.results[0].rowid).run()
    const { n } = (await env.DB.prepare('SELECT count(*) AS n FROM agent_changes').first<{ n: number }>())!
    expect(n).toBe(10_000)
    for (const [limit, page] of [
      [10, 0],
      [25, 2],
    ]) {
      const expected = await bruteForce(match, 'public')
      expect(await searchIds(query, 'public', limit, page)).toEqual(expected.slice(page * limit, page * limit + limit))
    }
  })

  it('stay exact when the cron merges the text indexes, which it does again only after agent text changes', async () => {
    const segments = async (table: string) => (await env.DB.prepare(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).first<{ n: number }>())!.n
    // The cron also embeds agents for hybrid search; this file holds the lexical ranking to bm25
    // (hybrid-search.test.ts holds the fused ranking to its formula), so its cron embeds nothing.
    const cron = () => worker.scheduled(createScheduledController({ cron: '*/15 * * * *' }), { ...env, SEARCH_EMBEDDER: 'none' })
    expect(await segments('agents_fts')).toBeGreaterThan(1)
    await cron()
    expect(await segments('agents_fts')).toBe(1)
    const versions = () => env.DB.prepare('SELECT index_version AS idx, merged_index_version AS merged FROM catalog_version').first<{ idx: number; merged: number }>()
    expect((await versions())!.merged).toBe((await versions())!.idx)
    for (const query of [VOCAB.slice(0, 2).join(' '), VOCAB.slice(7, 10).join(' '), `${VOCAB[4]} ${VOCAB[40].slice(0, 3)}`]) {
      const terms = query.split(' ')
      const match = terms.map((t, i) => (i === terms.length - 1 && !VOCAB.includes(t) ? `"${t}"*` : `"${t}"`)).join(' OR ')
      expect(await searchIds(query, 'public', 10, 1), query).toEqual((await bruteForce(match, 'public')).slice(10, 20))
    }
    // Text written after the merge leaves a new segment and a newer index version: the next run merges it.
    await env.DB.prepare(`UPDATE agents SET description = description || ' merged later' WHERE id = 'exact5'`).run()
    expect(await segments('agents_fts')).toBe(2)
    await cron()
    expect(await segments('agents_fts')).toBe(1)
    expect((await versions())!.merged).toBe((await versions())!.idx)
  })

  it('read a relevance list longer than a chunk chunk by chunk, with the same agents and values', async () => {
    const read = (statements: D1PreparedStatement[]) => env.DB.batch<Record<string, unknown>>(statements)
    const phrases = [`"${VOCAB[0]}"`, `"${VOCAB[1]}"`, `"${VOCAB[299]}"`, '"qqzznothing"']
    const prefix = `"${VOCAB[2].slice(0, 2)}"*`
    const whole = await runQuery(read, phraseListsQuery(env.DB, phrases, { phrase: prefix, unless: '"qqzznothing"' }))
    expect(whole.lists[0].rowids.length).toBeGreaterThan(100)
    expect(whole.fallback!.rowids.length).toBeGreaterThan(100)
    const chunk = 37
    const missing = { phrases, fallback: prefix, query: phraseListsQuery(env.DB, phrases, { phrase: prefix, unless: '"qqzznothing"' }, chunk) }
    const first = await runQuery(read, missing.query)
    expect(first.lists[0].rowids.length).toBe(chunk)
    const chunked = await completeLists(env.DB, read, missing, first, chunk)
    const pairs = (l: PhraseList) => Array.from(l.rowids, (r, i) => [r, l.values[l.at[i]]])
    chunked.lists.forEach((l, i) => expect(pairs(l), phrases[i]).toEqual(pairs(whole.lists[i])))
    expect(pairs(chunked.fallback!)).toEqual(pairs(whole.fallback!))
  })

  it('load the public agents chunk by chunk, every one with its executions', async () => {
    const read = (statements: D1PreparedStatement[]) => env.DB.batch<Record<string, unknown>>(statements)
    const state = await loadPublicState(env.DB, read, 100)
    const { results } = await env.DB.prepare(`SELECT rowid, visibility, executions FROM agents`).all<{ rowid: number; visibility: string; executions: number }>()
    expect(results.filter((r) => r.visibility === 'public').length).toBeGreaterThan(300)
    for (const r of results) expect(state!.executions[r.rowid] ?? -1, String(r.rowid)).toBe(r.visibility === 'public' ? r.executions : -1)
  })
})
