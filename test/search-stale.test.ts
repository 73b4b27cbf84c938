import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { cached, publicRanking } from '../src/agents/search-state'
import { ftsIdf, growthBound } from '../src/agents/stale-lists'
import { indexCheckQuery, parseTotals } from '../src/db/index-changes'
import { action, createTeam, newCaller, type Json } from './helpers'
import { bruteForceRanking, bruteForceRelevance, bruteForceSearch, bruteForceTypoRelevance, insertAgent } from './brute-force-search'
import { seededRandom } from './seeded'

/**
 * Lexical search keeps a relevance list read before agent text changed and bounds how far its values
 * can have moved (src/agents/stale-lists.ts). These tests change text in every way that moves bm25
 * (inserts, deletes, longer and shorter texts, the query's words gained and lost) between searches
 * and hold every page to a brute-force bm25 ranking of the index as it is then.
 */

const AGENTS = 500
const rand = seededRandom(23)
const SYLLABLES = 'ka lo mi ne ru sa ti vo'.split(' ')
const VOCAB = Array.from({ length: 48 }, (_, i) => SYLLABLES[i % 8] + SYLLABLES[Math.floor(i / 8)] + 'r')
const word = () => VOCAB[Math.floor(VOCAB.length * rand() ** 2)]
const words = (n: number) => Array.from({ length: n }, word).join(' ')

let viewer: { token: string; accountId: string }
let other: { token: string; accountId: string }
let teamId: string
let inserted = 0

function agentRow() {
  const r = rand()
  const [visibility, owner, team] = r < 0.08 ? ['private', viewer.accountId, null] : r < 0.16 ? ['team', other.accountId, teamId] : ['public', other.accountId, null]
  const executions = [0, 0, 3, 40, 300, 2000][Math.floor(rand() * 6)]
  return insertAgent().bind(`stale${inserted++}`, words(1 + Math.floor(rand() * 3)), words(2 + Math.floor(rand() * 14)), visibility, owner, team, executions, words(Math.floor(rand() * 3)))
}

beforeAll(async () => {
  viewer = await newCaller('stale viewer')
  other = await newCaller('stale other')
  teamId = await createTeam('stale team', [viewer.accountId])
  const rows = Array.from({ length: AGENTS }, agentRow)
  for (let i = 0; i < rows.length; i += 250) await env.DB.batch(rows.slice(i, i + 250))
})

async function indexVersion(): Promise<string> {
  const v = await env.DB.prepare('SELECT epoch, index_version FROM catalog_version WHERE id = 1').first<{ epoch: string; index_version: number }>()
  return `${v!.epoch}:${v!.index_version}`
}

async function searchIds(query: string, status: string, limit: number, page: number): Promise<string[]> {
  const res = await action('search', { query, status, limit, page }, viewer.token)
  expect(res.status).toBe(200)
  return (res.body.response as Json[]).map((h) => h.function.metadata.id as string)
}

/** One text change of any kind: a new agent, a deleted one, or new text of any length, with or without `keep`'s words. */
async function changeText(kind: number, keep: string): Promise<void> {
  const { results } = await env.DB.prepare("SELECT id FROM agents WHERE id LIKE 'stale%' ORDER BY rowid").all<{ id: string }>()
  const id = results[Math.floor(rand() * results.length)].id
  if (kind === 0) await agentRow().run()
  else if (kind === 1) await env.DB.prepare('DELETE FROM agents WHERE id = ?').bind(id).run()
  else if (kind === 2)
    await env.DB.prepare('UPDATE agents SET description = ? WHERE id = ?')
      .bind(words(1 + Math.floor(rand() * 30)), id)
      .run()
  else if (kind === 3)
    await env.DB.prepare('UPDATE agents SET name = ?, description = ? WHERE id = ?')
      .bind(`${keep} ${keep}`, `${keep} ${words(2)}`, id)
      .run()
  else await env.DB.prepare('UPDATE agents SET name = ?, param_text = ? WHERE id = ?').bind(words(1), words(4), id).run()
}

/** A page and the brute-force ranking of the index as it is now, and whether the query's first word was answered from an older list. */
async function check(query: string, status: string, limit: number, page: number): Promise<boolean> {
  const terms = [...new Set(query.split(' '))]
  const match = terms.map((t) => `"${t}"`).join(' OR ')
  // A word no agent holds any more would be corrected or read as a prefix: not what this compares.
  for (const t of terms) if (!(await env.DB.prepare('SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?').bind(`"${t}"`).first())) return false
  const before = cached.latestList(`"${terms[0]}"`)?.index
  const now = await indexVersion()
  const expected = await bruteForceSearch(match, status, viewer.accountId, teamId)
  expect(await searchIds(query, status, limit, page), `${query} ${status} ${limit}/${page}`).toEqual(expected.slice(page * limit, page * limit + limit))
  return before !== undefined && before !== now && cached.latestList(`"${terms[0]}"`)?.index === before
}

describe('lists read before agent text changed', () => {
  it('leave every page equal to a brute-force ranking of the index as it is now', async () => {
    const queries = [...Array.from({ length: 10 }, () => words(1 + Math.floor(rand() * 3))), VOCAB[0], `${VOCAB[1]} ${VOCAB[40]}`]
    for (const q of queries) await searchIds(q, 'public', 10, 0)
    let staleUsed = 0
    for (let round = 0; round < 12; round++) {
      const keep = queries[round % queries.length].split(' ')[0]
      for (let c = 0; c < 1 + (round % 3); c++) await changeText(round % 5, keep)
      for (const q of queries) {
        for (const [status, limit, page] of [
          ['public', 10, 0],
          ['public', 3, 2],
          ['all', 7, 1],
          ['private', 5, 0],
        ] as const) {
          if (await check(q, status, limit, page)) staleUsed++
        }
      }
    }
    // Most pages came from the older lists, bounded (else this would test only the ordinary read).
    expect(staleUsed).toBeGreaterThan(100)
  })

  it('stay exact under any mix of text changes and searches', async () => {
    let staleUsed = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ change: fc.integer({ min: 0, max: 4 }) }),
            fc.record({
              words: fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 3 }),
              status: fc.constantFrom('public', 'all', 'team'),
              limit: fc.integer({ min: 1, max: 12 }),
              page: fc.integer({ min: 0, max: 3 }),
            }),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          for (const step of steps) {
            if ('change' in step) await changeText(step.change, VOCAB[Math.floor(rand() * 8)])
            else if (await check(step.words.map((i) => VOCAB[i]).join(' '), step.status, step.limit, step.page)) staleUsed++
          }
        },
      ),
      { numRuns: 25 },
    )
    expect(staleUsed).toBeGreaterThan(10)
  })

  it("keep typo corrections' lists too, every page equal to the documented relevance of the index as it is now", async () => {
    // A word's last letter changed: one edit from that word alone. "kakor": one edit from "kakar" and "kalor".
    const typo = (w: string) => `${w.slice(0, -1)}x`
    const cases: [string, string[], string[]][] = [
      [typo(VOCAB[0]), [], [VOCAB[0]]],
      [`${VOCAB[2]} ${typo(VOCAB[1])}`, [VOCAB[2]], [VOCAB[1]]],
      [`${typo(VOCAB[3])} ${VOCAB[0]}`, [VOCAB[0]], [VOCAB[3]]],
      ['kakor', [], ['kakar', 'kalor']],
    ]
    for (const [query] of cases) await searchIds(query, 'public', 10, 0)
    let staleUsed = 0
    for (let round = 0; round < 10; round++) {
      for (let c = 0; c < 1 + (round % 2); c++) await changeText(round % 5, VOCAB[round % 4])
      for (const [query, exact, corrections] of cases) {
        // A correction no agent holds any more is not one: not what this compares.
        if ((await Promise.all(corrections.map((w) => bruteForceRelevance(`"${w}"`)))).some((r) => r.size === 0)) continue
        const rels = await bruteForceTypoRelevance(exact, corrections)
        for (const [status, limit, page] of [
          ['public', 10, 0],
          ['public', 4, 2],
          ['all', 6, 1],
        ] as const) {
          const before = cached.latestList(`"${corrections[0]}"`)?.index
          const now = await indexVersion()
          const expected = await bruteForceRanking(rels, status, viewer.accountId, teamId)
          expect(await searchIds(query, status, limit, page), `${query} ${status} ${limit}/${page}`).toEqual(expected.slice(page * limit, page * limit + limit))
          if (before !== undefined && before !== now && cached.latestList(`"${corrections[0]}"`)?.index === before) staleUsed++
        }
      }
    }
    // Most pages came from correction lists read before the changes (else this tests only fresh reads).
    expect(staleUsed).toBeGreaterThan(40)
  })

  it('keep the public ranking state across inserts and deletes, from the change logs, exact', async () => {
    const query = `${VOCAB[0]} ${VOCAB[3]}`
    await check(query, 'public', 10, 0)
    const state = publicRanking.state
    expect(state).not.toBeNull()
    for (let i = 0; i < 6; i++) {
      // A new public agent holding the query's words, gone again every other time; and any other change.
      await insertAgent()
        .bind(`stale${inserted++}`, `${VOCAB[0]} ${VOCAB[0]}`, `${VOCAB[3]} ${VOCAB[0]}`, 'public', other.accountId, null, 2000 + i, '')
        .run()
      await check(query, 'public', 10, 0)
      if (i % 2)
        await env.DB.prepare('DELETE FROM agents WHERE id = ?')
          .bind(`stale${inserted - 1}`)
          .run()
      await changeText(i % 5, VOCAB[0])
      await check(query, 'public', 3, 1)
    }
    // Brought up to date in place: never loaded again.
    expect(publicRanking.state).toBe(state)
    expect(publicRanking.state!.index).toBe(await indexVersion())
  })

  it('reads the index totals FTS5 ranks with, and bounds how far an unchanged agent can move', async () => {
    const totals = parseTotals((await env.DB.prepare('SELECT hex(block) AS h FROM agents_fts_data WHERE id = 1').first<{ h: string }>())!.h)
    const rows = await env.DB.prepare('SELECT count(*) AS n FROM agents_fts_docsize').first<{ n: number }>()
    expect(totals!.rows).toBe(rows!.n)
    // bm25 of a one-word phrase for a fixed agent, from FTS5 itself, before and after other agents change.
    const probe = VOCAB[2]
    const agent = await env.DB.prepare("SELECT rowid AS r FROM agents_fts WHERE agents_fts MATCH ? AND rowid IN (SELECT rowid FROM agents WHERE id LIKE 'stale%') LIMIT 1")
      .bind(`"${probe}"`)
      .first<{ r: number }>()
    // D1 binds a JavaScript number as REAL, and FTS5 ignores `rowid = <real>` (every match comes back): cast it.
    const value = async () =>
      (await env.DB.prepare('SELECT -bm25(agents_fts, 2.0, 1.0, 0.25) AS v FROM agents_fts WHERE agents_fts MATCH ? AND rowid = CAST(? AS INTEGER)')
        .bind(`"${probe}"`, agent!.r)
        .first<{ v: number }>())!.v
    const holders = async () =>
      (
        await env.DB.prepare("SELECT a.id FROM agents_fts f JOIN agents a ON a.rowid = f.rowid WHERE agents_fts MATCH ? AND a.rowid <> ? AND a.id LIKE 'stale%'")
          .bind(`"${probe}"`, agent!.r)
          .all<{ id: string }>()
      ).results
    // Values grow (a holder of the word gone, texts longer without it) and shrink (more holders, texts shorter); each move is bounded.
    const moves = [
      async () => {
        await env.DB.prepare('DELETE FROM agents WHERE id = ?')
          .bind((await holders())[0].id)
          .run()
        await env.DB.prepare("UPDATE agents SET description = ? WHERE id = (SELECT id FROM agents WHERE id LIKE 'stale%' AND rowid <> ? ORDER BY rowid DESC LIMIT 1)")
          .bind(`${VOCAB[47]} `.repeat(60), agent!.r)
          .run()
      },
      async () => {
        await agentRow().run()
        await env.DB.prepare("UPDATE agents SET name = ?, description = ? WHERE id = (SELECT id FROM agents WHERE id LIKE 'stale%' AND rowid <> ? ORDER BY rowid LIMIT 1)")
          .bind(probe, probe, agent!.r)
          .run()
      },
    ]
    const seen = { grew: 0, shrank: 0 }
    for (let i = 0; i < 6; i++) {
      const check = indexCheckQuery(env.DB, Number((await indexVersion()).split(':')[1]), [`"${probe}"`])
      const [before] = await env.DB.batch<Record<string, unknown>>([check.statement])
      const then = check.read(before)
      const v0 = await value()
      await moves[i % 2]()
      const [after] = await env.DB.batch<Record<string, unknown>>([check.statement])
      const now = check.read(after)
      const v1 = await value()
      expect(now.changed).not.toContain(agent!.r)
      const bound = growthBound({ ...then.totals!, hits: then.counts[0] }, { ...now.totals!, hits: now.counts[0] })!
      expect(v1).toBeLessThanOrEqual(v0 * bound)
      // The bound is tight: the idf factor alone, at most the length factor less.
      const lengths = now.totals!.tokens / now.totals!.rows / (then.totals!.tokens / then.totals!.rows)
      expect(v1).toBeGreaterThanOrEqual((v0 * Math.min(1, lengths) * ftsIdf(now.totals!.rows, now.counts[0])) / ftsIdf(then.totals!.rows, then.counts[0]) / (1 + 1e-9))
      if (v1 > v0) seen.grew++
      if (v1 < v0) seen.shrank++
    }
    expect(seen.grew).toBeGreaterThan(0)
    expect(seen.shrank).toBeGreaterThan(0)
  })

  it('bounds every unchanged agent of a word, over any text changes, common words included', async () => {
    let checked = 0
    for (let i = 0; i < 60; i++) {
      // The commonest words are in about half the agents, where idf is most sensitive to their count.
      const probe = VOCAB[i % 8]
      const check = indexCheckQuery(env.DB, Number((await indexVersion()).split(':')[1]), [`"${probe}"`])
      const then = check.read((await env.DB.batch<Record<string, unknown>>([check.statement]))[0])
      const before = await bruteForceRelevance(`"${probe}"`)
      await changeText(i % 5, probe)
      if (i % 3 === 0) await changeText((i + 2) % 5, VOCAB[(i + 1) % 8])
      const now = check.read((await env.DB.batch<Record<string, unknown>>([check.statement]))[0])
      const bound = growthBound({ ...then.totals!, hits: then.counts[0] }, { ...now.totals!, hits: now.counts[0] })!
      for (const [rowid, v1] of await bruteForceRelevance(`"${probe}"`)) {
        if (now.changed!.includes(rowid) || !before.has(rowid)) continue
        expect(v1, `${probe} ${i} ${rowid}`).toBeLessThanOrEqual(before.get(rowid)! * bound)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(5000)
  })

  it('parses any averages record without throwing, and only well-formed ones', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.uint8Array({ maxLength: 40 }).map((b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')),
        ),
        (hex) => {
          const t = parseTotals(hex)
          if (t) expect(Number.isSafeInteger(t.rows) && Number.isSafeInteger(t.tokens)).toBe(true)
        },
      ),
    )
    expect(parseTotals('868D2092A7608186A3409EC220')).toEqual({ rows: 100_000, tokens: 3_000_000 })
    expect(parseTotals(null)).toBeNull()
  })
})
