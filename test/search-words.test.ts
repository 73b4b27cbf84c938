import { env } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { correctionsOf, gramProbe, MAX_CORRECTIONS, nearest } from '../src/agents/corrections'
import { editDistance, phrase, queryTerms } from '../src/agents/query'
import { deleteAgent, insertAgents, LIST_CHUNK, phraseListsQuery, runQuery, updateAgent, type NewAgent } from '../src/db/agents'
import { action, createAccount, newCaller, type Json } from './helpers'

/**
 * The search vocabulary (migrations 0016 and 0018) against brute force: the words its triggers keep
 * equal those of a fresh index over the agents, and typo lookup over it equals scanning every word
 * with `editDistance`.
 */

let owner: string
let searcher: string
let next = 0

beforeAll(async () => {
  owner = await createAccount('vocabulary owner')
  searcher = (await newCaller('vocabulary searcher')).token
})

const agent = (name: string, description: string, paramText = ''): NewAgent => ({
  id: `vocab${next++}`,
  slug: null,
  icon: '/icons/agent.svg',
  name,
  description,
  visibility: 'public',
  owner_account_id: owner,
  team_id: null,
  type: 'studio',
  executions: 0,
  parameters: '{"type":"object","properties":{},"required":[]}',
  workflow: '{"steps":[]}',
  param_text: paramText,
  created_at: 0,
  updated_at: 0,
})

async function removeAll(): Promise<void> {
  await env.DB.prepare('DELETE FROM agents WHERE owner_account_id = ?').bind(owner).run()
}

/** The vocabulary as a fresh unstemmed index over every agent counts it (what the triggers must keep). */
async function freshVocabulary(): Promise<Map<string, number>> {
  await env.DB.batch([
    env.DB.prepare(
      `CREATE VIRTUAL TABLE IF NOT EXISTS vocab_check USING fts5(name, description, param_text, content = 'agents', content_rowid = 'rowid', detail = none, tokenize = 'unicode61 remove_diacritics 2')`,
    ),
    env.DB.prepare(`CREATE VIRTUAL TABLE IF NOT EXISTS vocab_check_terms USING fts5vocab(vocab_check, 'row')`),
    env.DB.prepare(`INSERT INTO vocab_check (vocab_check) VALUES ('rebuild')`),
  ])
  const { results } = await env.DB.prepare('SELECT term, doc FROM vocab_check_terms').all<{ term: string; doc: number }>()
  return new Map(results.map((r) => [r.term, r.doc]))
}

async function storedVocabulary(): Promise<Map<string, number>> {
  const { results } = await env.DB.prepare('SELECT word, agents FROM search_words').all<{ word: string; agents: number }>()
  return new Map(results.map((r) => [r.word, r.agents]))
}

/** The corrections of `term` by scanning every vocabulary word, written apart from corrections.ts. */
function bruteForce(term: string, vocabulary: Map<string, number>): string[] {
  const chars = [...term].length
  if (chars < 4) return []
  const k = chars >= 8 ? 2 : 1
  const near: { w: string; d: number; n: number }[] = []
  for (const [w, n] of vocabulary) {
    const d = editDistance(term, w)
    if (w !== term && w.length >= 3 && d <= k) near.push({ w, d, n })
  }
  const best = Math.min(...near.map((c) => c.d))
  return near
    .filter((c) => c.d === best)
    .sort((a, b) => b.n - a.n || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0))
    .slice(0, MAX_CORRECTIONS)
    .map((c) => c.w)
}

const read = (statements: D1PreparedStatement[]) => env.DB.batch<Record<string, unknown>>(statements)

// Few letters, so random words have many near neighbours; diacritics, capitals and digits too.
const LETTERS = ['a', 'b', 'c', 'd', 'e', 'é', 'r', 's', 'A', 'B', '1', '2']
const word = fc.array(fc.constantFrom(...LETTERS), { minLength: 2, maxLength: 13 }).map((cs) => cs.join(''))
// Now and then a word the typo vocabulary leaves out: one character, or over 50.
const anyWord = fc.oneof({ arbitrary: word, weight: 8 }, { arbitrary: fc.constantFrom('a', 'b', 'é', '1'), weight: 1 }, { arbitrary: fc.stringMatching(/^[ab]{48,56}$/), weight: 1 })
const textOf = (w: fc.Arbitrary<string>) => fc.array(fc.tuple(w, fc.constantFrom(' ', ', ', '-', '. ')), { minLength: 1, maxLength: 8 }).map((ws) => ws.map(([w, sep]) => w + sep).join(''))
const text = textOf(word)
const anyText = textOf(anyWord)

/** One to three random edits (substitution, insertion, deletion, adjacent swap) of a word. */
const edits = fc.array(fc.tuple(fc.constantFrom('sub', 'ins', 'del', 'swap'), fc.nat(), fc.constantFrom(...LETTERS, 'x', '𝒜')), { minLength: 1, maxLength: 3 })
function applyEdits(w: string, list: [string, number, string][]): string {
  const cs = [...w]
  for (const [op, at, c] of list) {
    const i = at % cs.length
    if (op === 'sub') cs[i] = c
    else if (op === 'ins') cs.splice(i, 0, c)
    else if (op === 'del' && cs.length > 1) cs.splice(i, 1)
    else if (op === 'swap' && i + 1 < cs.length) [cs[i], cs[i + 1]] = [cs[i + 1], cs[i]]
  }
  return cs.join('')
}

describe('search vocabulary', () => {
  it('holds exactly the words of a fresh index over the agents, with their agent counts, through inserts, updates and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(anyText, anyText, fc.option(anyText, { nil: '' })), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.constantFrom('update', 'delete'), fc.nat(), anyText), { maxLength: 8 }),
        async (agents, changes) => {
          await removeAll()
          const made = agents.map(([name, description, params]) => agent(name, description, params))
          await insertAgents(env.DB, made)
          for (const [op, at, t] of changes) {
            const a = made[at % made.length]
            if (op === 'update') await updateAgent(env.DB, owner, a.id, { description: t }, 1)
            else await deleteAgent(env.DB, owner, a.id)
          }
          const stored = await storedVocabulary()
          // Every word, of any length, so that any word entering or leaving moves its version.
          expect(stored).toEqual(await freshVocabulary())
          // Every word is one agents_fts knows (its stem has a relevance list) ...
          for (const w of stored.keys()) {
            const hit = await env.DB.prepare('SELECT count(*) AS n FROM agents_fts WHERE agents_fts MATCH ?').bind(`"${w}"`).first<{ n: number }>()
            expect(hit?.n, w).toBeGreaterThan(0)
          }
          // ... and its trigrams are the ones the lookup probes with.
          const { results } = await env.DB.prepare('SELECT word, gram, pos FROM search_word_grams ORDER BY word, pos').all<{ word: string; gram: string; pos: number }>()
          const grams = new Map<string, [string, number][]>()
          for (const r of results) grams.set(r.word, [...(grams.get(r.word) ?? []), [r.gram, r.pos]])
          // (Only words of 3 to 50 characters have them: typo lookup serves no other length.)
          expect([...grams.keys()].sort()).toEqual([...stored.keys()].filter((w) => [...w].length >= 3 && [...w].length <= 50).sort())
          for (const [w, g] of grams) if ([...w].length >= 4) expect(g, w).toEqual(gramProbe(w)!.grams)
        },
      ),
      { numRuns: 25 },
    )
    await removeAll()
  })

  it('corrects every word exactly as a brute-force scan of the whole vocabulary does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, text), { minLength: 3, maxLength: 20 }), fc.array(fc.tuple(fc.nat(), edits), { minLength: 1, maxLength: 6 }), async (agents, picks) => {
        await removeAll()
        await insertAgents(
          env.DB,
          agents.map(([n, d]) => agent(n, d)),
        )
        const vocabulary = await storedVocabulary()
        const words = [...vocabulary.keys()]
        if (words.length === 0) return
        // Random edits of vocabulary words, as queryTerms makes them (lowercased, NFKC).
        const terms = [...new Set(picks.flatMap(([w, list]) => queryTerms(applyEdits(words[w % words.length], list)).filter((t) => t.length >= 4)))]
        const got = await correctionsOf(env.DB, read, null, terms)
        terms.forEach((t, i) => expect(got[i], t).toEqual(bruteForce(t, vocabulary)))
        // The same words when they come along with the first read of the terms' relevance lists.
        const fetched = await runQuery(
          read,
          phraseListsQuery(
            env.DB,
            terms.map((t) => phrase(t)),
            null,
            LIST_CHUNK,
            terms.map(gramProbe),
          ),
        )
        terms.forEach((t, i) => {
          if (fetched.lists[i].rowids.length > 0) expect(fetched.near[i], t).toBeNull()
          else expect(nearest(t, fetched.near[i]!), t).toEqual(bruteForce(t, vocabulary))
        })
      }),
      { numRuns: 40 },
    )
    await removeAll()
  })

  it('finds corrections of long words two edits away that share few trigrams with them', async () => {
    await removeAll()
    await insertAgents(env.DB, [agent('Restaurant finder', 'Books restaurants'), agent('Abcdefgh', 'x')])
    const vocabulary = await storedVocabulary()
    // Two substitutions in an eight-letter word leave 2 of its 10 padded trigrams.
    for (const t of ['restaurnat', 'rxstaurant', 'abxdexgh', 'bacdefhg']) expect(await correctionsOf(env.DB, read, null, [t])).toEqual([bruteForce(t, vocabulary)])
    expect((await correctionsOf(env.DB, read, null, ['abxdexgh']))[0]).toEqual(['abcdefgh'])
    await removeAll()
  })

  it('corrects a word whose spelling only a few agents hold, however many agents share its trigrams', async () => {
    await removeAll()
    // Forty short agents share every trigram of the typo (and rank first by trigrams) but are three
    // edits away; the one agent holding the right spelling has a long text.
    const decoys = Array.from({ length: 40 }, (_, i) => agent(`Zebrafinshxyz ${i}`, 'zebrafinshxyz zebrafinshxyz'))
    const right = agent('Bird counter', `Counts every zebrafinch in the aviary, ${'with notes on song, feeding and nesting '.repeat(6)}`)
    await insertAgents(env.DB, [...decoys, right])
    const res = await action('search', { query: 'zebrafinsh qqq', limit: 5 }, searcher)
    expect(res.status).toBe(200)
    expect((res.body as Json).response.map((h: Json) => h.function.metadata.name)).toEqual(['Bird counter'])
    await removeAll()
  })

  it('never serves a cached correction once a nearer word enters the vocabulary', async () => {
    await removeAll()
    const names = async (query: string) => {
      const res = await action('search', { query, limit: 5 }, searcher)
      expect(res.status).toBe(200)
      return (res.body as Json).response.map((h: Json) => h.function.metadata.name) as string[]
    }
    await insertAgents(env.DB, [agent('Bird counter', 'Counts birds in the aviary')])
    // Asked twice at one index version: the second answer comes from the cache (no near word).
    expect(await names('zebrafinsh qqq')).toEqual([])
    expect(await names('zebrafinsh qqq')).toEqual([])
    // An agent text change that brings no new word moves the index version, not the vocabulary.
    await updateAgent(env.DB, owner, 'vocab' + (next - 1), { description: 'Counts birds in the aviary birds' }, 1)
    expect(await names('pelicanx qqq')).toEqual([])
    expect(await names('zebrafinsh qqq')).toEqual([])
    // A new word moves both; a search at the new index version reads the new vocabulary version first.
    await insertAgents(env.DB, [agent('Finch log', 'Notes on every zebrafinch')])
    expect(await names('pelicanz qqq')).toEqual([])
    expect(await names('zebrafinsh qqq')).toEqual(['Finch log'])
    // And a word leaving the vocabulary moves it again.
    await env.DB.prepare('DELETE FROM agents WHERE name = ?').bind('Finch log').run()
    expect(await names('pelicany qqq')).toEqual([])
    expect(await names('zebrafinsh qqq')).toEqual([])
    await removeAll()
  })

  it('stops offering a word once no agent holds it', async () => {
    await removeAll()
    const [a, b] = [agent('Zebrafinch tracker', 'Counts birds'), agent('Zebrafinch song', 'Records birds')]
    await insertAgents(env.DB, [a, b])
    const fix = async () => (await correctionsOf(env.DB, read, null, ['zebrafinsh']))[0]
    expect(await fix()).toEqual(['zebrafinch'])
    expect((await storedVocabulary()).get('zebrafinch')).toBe(2)
    await updateAgent(env.DB, owner, a.id, { name: 'Songbird tracker' }, 1)
    expect((await storedVocabulary()).get('zebrafinch')).toBe(1)
    await deleteAgent(env.DB, owner, b.id)
    expect((await storedVocabulary()).has('zebrafinch')).toBe(false)
    expect(await fix()).toEqual([])
    const { results } = await env.DB.prepare(`SELECT 1 FROM search_word_grams WHERE word = 'zebrafinch'`).all()
    expect(results).toEqual([])
    await removeAll()
  })

  it('answers query words of any unicode through the search route without a server error', async () => {
    await removeAll()
    await insertAgents(env.DB, [agent('Invoice chaser', 'Chases unpaid invoices'), agent('Ticket triage', 'Sorts support tickets')])
    const weird = fc.constantFrom('a', 'é', 'e\u0301', '\u0301', '𝒜', '😀', '1', '٣', 'ß', 'İ', 'ﬁ', '"', '*', '^', ':', '(', 'NEAR', 'AND', 'OR', 'NOT', '#', '\u0000', '\u200d', '\ud800', ' ')
    const query = fc.oneof(
      fc.array(weird, { minLength: 1, maxLength: 60 }).map((cs) => cs.join('')),
      fc.string({ unit: 'binary', minLength: 4, maxLength: 60 }),
      fc.array(fc.constantFrom('invocies', 'tikcet', 'triaeg', 'chaesr'), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' ')),
    )
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const res = await action('search', { query: q, limit: 5 }, searcher)
        expect(res.status, JSON.stringify(q)).toBe(200)
        expect(Array.isArray((res.body as Json).response)).toBe(true)
      }),
      { numRuns: 60 },
    )
    await removeAll()
  })
})
