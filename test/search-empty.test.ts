import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { cached } from '../src/agents/search-state'
import { action, createTeam, newCaller, type Json } from './helpers'
import { bruteForceSearch, insertAgent } from './brute-force-search'
import { seededRandom } from './seeded'

/**
 * A query word that matched nothing is known to match nothing at later index versions while no word
 * has entered the index (src/agents/relevance.ts): its list is not read again after every agent
 * write. Any word entering must end that, whatever its length or however it stems: a new word of the
 * typo vocabulary's lengths, a two-letter word that is the stem of the query word ("adding" stems to
 * "ad"), a word of over 50 letters with the query word's stem. Every page is held to brute force.
 */

const rand = seededRandom(31)
const SYLLABLES = 'ka lo mi ne ru sa ti vo'.split(' ')
const VOCAB = Array.from({ length: 24 }, (_, i) => SYLLABLES[i % 8] + SYLLABLES[Math.floor(i / 8)] + 'n')
const words = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(VOCAB.length * rand())]).join(' ')
const LONG = 'ab'.repeat(24)

/** Words no agent holds at first, each with the text that makes it match: itself, or only its stem. */
const ABSENT: [query: string, brings: string][] = [
  ['zubor', 'zubor'],
  ['zubors', 'zubor'],
  ['adding', 'ad'],
  [LONG, `${LONG}ness`],
  ['qi', 'qi'],
]
const QUERIES = [...ABSENT.map(([q]) => q), VOCAB[0], VOCAB[5]]

let viewer: { token: string; accountId: string }
let teamId: string
let inserted = 0

const agentRow = (description = words(3 + Math.floor(rand() * 8))) =>
  insertAgent().bind(`empty${inserted++}`, words(2), description, 'public', viewer.accountId, null, Math.floor(rand() * 50), words(1))

beforeAll(async () => {
  viewer = await newCaller('empty viewer')
  teamId = await createTeam('empty team', [viewer.accountId])
  await env.DB.batch(Array.from({ length: 60 }, () => agentRow()))
})

async function indexVersion(): Promise<string> {
  const v = await env.DB.prepare('SELECT epoch, index_version FROM catalog_version WHERE id = 1').first<{ epoch: string; index_version: number }>()
  return `${v!.epoch}:${v!.index_version}`
}

async function randomAgent(): Promise<string> {
  const { results } = await env.DB.prepare("SELECT id FROM agents WHERE id LIKE 'empty%' ORDER BY rowid").all<{ id: string }>()
  return results[Math.floor(rand() * results.length)].id
}

/**
 * One agent write: text of known words only (kinds 0-4, which may still leave a word out of the
 * index), a word of ABSENT brought in (5, 6, 8) or taken out again (7), a delete (9).
 */
async function write(kind: number, absent: number): Promise<void> {
  const id = await randomAgent()
  const brings = ABSENT[absent % ABSENT.length][1]
  if (kind <= 3)
    await env.DB.prepare('UPDATE agents SET description = ? WHERE id = ?')
      .bind(words(2 + kind), id)
      .run()
  else if (kind === 4) await env.DB.prepare('UPDATE agents SET name = ?, param_text = ? WHERE id = ?').bind(words(2), words(1), id).run()
  else if (kind === 5)
    await env.DB.prepare('UPDATE agents SET description = ? WHERE id = ?')
      .bind(`${words(2)} ${brings}`, id)
      .run()
  else if (kind === 6) await env.DB.prepare('UPDATE agents SET param_text = ? WHERE id = ?').bind(brings, id).run()
  else if (kind === 7)
    await env.DB.prepare("UPDATE agents SET name = ?, description = ?, param_text = '' WHERE instr(description, ?) > 0 OR param_text = ?").bind(words(2), words(3), brings, brings).run()
  else if (kind === 8) await agentRow(`${words(1)} ${brings}`).run()
  else await env.DB.prepare('DELETE FROM agents WHERE id = ?').bind(id).run()
}

/**
 * Searches `query`; when it matches as a word, the page must be the brute-force ranking (a word
 * wrongly taken as matching nothing would be corrected instead). True when an empty list read at an
 * older index version answered it (it was not read again).
 */
async function check(query: string): Promise<boolean> {
  const expr = `"${query}"`
  const held = cached.latestList(expr)
  const now = await indexVersion()
  const olderEmpty = held !== undefined && held.list.rowids.length === 0 && held.index !== now
  const res = await action('search', { query, status: 'all', limit: 10 }, viewer.token)
  expect(res.status).toBe(200)
  const matches = await env.DB.prepare('SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?').bind(expr).first()
  if (matches) {
    const expected = await bruteForceSearch(expr, 'all', viewer.accountId, teamId)
    expect(
      (res.body.response as Json[]).map((h) => h.function.metadata.id as string),
      query,
    ).toEqual(expected.slice(0, 10))
  }
  return olderEmpty && cached.latestList(expr)?.index === held!.index
}

/** Takes out every word the tests below gave agents: the parameter text, and the agents they added. */
const knownWordsOnly = () => env.DB.batch([env.DB.prepare("UPDATE agents SET param_text = '' WHERE param_text != ''"), env.DB.prepare("DELETE FROM agents WHERE id LIKE 'emptyx%'")])

describe('words that matched nothing', () => {
  it('stay known to match nothing until a word enters the index, of any length or stem', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.record({ write: fc.integer({ min: 0, max: 9 }), absent: fc.nat() }), fc.record({ query: fc.constantFrom(...QUERIES) })), { minLength: 1, maxLength: 16 }),
        async (steps) => {
          // Each run starts with no word of ABSENT in the index.
          for (let i = 0; i < ABSENT.length; i++) await write(7, i)
          for (const step of steps) {
            if ('write' in step) await write(step.write, step.absent)
            else await check(step.query)
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('stay exact for any words the caller asks and any words agents gain, stems shared or not', async () => {
    // Few letters, so that words and their stems collide often ("ad", "ads", "adding", "dad"), and
    // now and then a word past 50 letters, whose stem may be a query word's.
    const short = fc.array(fc.constantFrom('a', 'd', 'i', 'n', 'g', 's', 'e'), { minLength: 1, maxLength: 8 }).map((cs) => cs.join(''))
    const anyWord = fc.oneof({ arbitrary: short, weight: 9 }, { arbitrary: fc.tuple(fc.constantFrom(LONG), fc.constantFrom('', 's', 'ness', 'ing')).map(([w, end]) => w + end), weight: 1 })
    let extra = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ gain: fc.array(anyWord, { minLength: 1, maxLength: 3 }), insert: fc.boolean() }),
            fc.record({ lose: fc.boolean() }),
            fc.record({ ask: anyWord }),
            // A word asked, then gained in the form of its likely stem, then asked again.
            fc.record({ stem: anyWord, end: fc.constantFrom('s', 'es', 'ing', 'ed', 'ness') }),
          ),
          {
            minLength: 1,
            maxLength: 14,
          },
        ),
        async (steps) => {
          // Each run starts from the known words only.
          await knownWordsOnly()
          for (const step of steps) {
            if ('gain' in step && step.insert)
              await insertAgent()
                .bind(`emptyx${extra++}`, words(1), `${words(1)} ${step.gain.join(' ')}`, 'public', viewer.accountId, null, 0, '')
                .run()
            else if ('gain' in step)
              await env.DB.prepare('UPDATE agents SET param_text = ? WHERE id = ?')
                .bind(step.gain.join(' '), await randomAgent())
                .run()
            else if ('lose' in step) await env.DB.prepare("UPDATE agents SET param_text = '' WHERE param_text != ''").run()
            else if ('stem' in step) {
              await check(step.stem + step.end)
              await env.DB.prepare('UPDATE agents SET param_text = ? WHERE id = ?')
                .bind(step.stem, await randomAgent())
                .run()
              await check(step.stem + step.end)
            } else await check(step.ask)
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('are not read again after writes that bring no new word, and are once one does', async () => {
    await knownWordsOnly()
    for (let i = 0; i < ABSENT.length; i++) await write(7, i)
    const id = await randomAgent()
    const { description } = (await env.DB.prepare('SELECT description FROM agents WHERE id = ?').bind(id).first<{ description: string }>())!
    for (const [query] of ABSENT) await check(query)
    // The same words in another order: the index version moves, the vocabulary does not.
    await env.DB.prepare('UPDATE agents SET description = ? WHERE id = ?').bind(description.split(' ').reverse().join(' '), id).run()
    for (const [query] of ABSENT) expect(await check(query), query).toBe(true)
    // "ad" enters (no typo vocabulary word does): "adding", whose stem it is, matches it at once.
    await env.DB.prepare('UPDATE agents SET param_text = ? WHERE id = ?').bind('ad', id).run()
    expect(await check('adding')).toBe(false)
    const res = await action('search', { query: 'adding', status: 'all', limit: 10 }, viewer.token)
    expect((res.body.response as Json[]).map((h) => h.function.metadata.id)).toContain(id)
  })
})
