/**
 * The generated catalog the search benchmarks use: deterministic agent texts whose words follow
 * Zipf's law, and agent vectors as the cron would leave them but made cheaply (each the normalized
 * sum of the offline encoder's vectors of its words: embedding 100,000 texts with the encoder takes
 * hours on 2 cores; throughput and memory depend on the dimension, not on the values).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { nodeEncoder } from './node-encoder.mjs'

/** A deterministic generator (mulberry32) of random numbers, words and phrases. */
export function generator(initial = 42) {
  let seed = initial
  const rand = () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const word = () => {
    const u = rand()
    let lo = 0
    let hi = WORDS.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid] < u) lo = mid + 1
      else hi = mid
    }
    return WORDS[lo]
  }
  const phrase = (n) => Array.from({ length: n }, word).join(' ')
  return { rand, word, phrase }
}

export const title = (s) => s.replace(/\b\w/g, (c) => c.toUpperCase())

const VOCAB = `account analytics audit blog brief calendar campaign candidate churn competitor content contract crm customer dashboard
deal digest domain email enrichment event expense finance forecast funding growth hiring invoice keyword lead linkedin meeting
metrics newsletter note onboarding outreach pipeline podcast pricing product prospect quarterly recap recruiting renewal report
research revenue review roadmap sales schedule screening security seo sentiment social sprint summary support survey ticket
timeline transcript trend video webinar website weekly writer youtube bluesky backlink citation answer engine crawl inventory
schema markup headline caption thread hashtag launch press release investor board memo budget payroll tax receipt vendor
procurement compliance policy incident postmortem changelog release deploy repository issue pull request code review test
coverage latency uptime monitor alert oncall runbook translation localization glossary persona interview feedback nps`.split(/\s+/)
// Word frequencies follow Zipf's law (p ~ 1/rank) as in real text. Ranks below 100 are function
// words, which search drops as stop words, so names and descriptions draw from ranks 100 and up:
// the commonest content word then appears in a few percent of agents, as in a real catalog.
const SYLLABLES = 'ka lo mi ne ru sa ti vo ze bar cor den fin gal hum lex mor nix pol quin rex sol tor vex'.split(' ')
const synthetic = Array.from({ length: 6000 }, (_, i) => SYLLABLES[i % 24] + SYLLABLES[Math.floor(i / 24) % 24] + (i >= 576 ? SYLLABLES[Math.floor(i / 576) % 24] : ''))
const WORDS = [...VOCAB, ...synthetic]
const FIRST_RANK = 100
const harmonic = WORDS.reduce((sum, _, i) => sum + 1 / (FIRST_RANK + i), 0)
const cumulative = []
WORDS.reduce((acc, _, i) => (cumulative[i] = acc + 1 / (FIRST_RANK + i) / harmonic), 0)

/** The offline encoder's vector of every distinct word of `texts`, and the encoder (`embed(texts)`). */
export async function wordVectors(texts) {
  const embed = await nodeEncoder()
  const vocab = [
    ...new Set(
      texts
        .join(' ')
        .toLowerCase()
        .match(/[a-z]+/g),
    ),
  ]
  const vectors = new Map()
  ;(await embed(vocab)).forEach((v, i) => vectors.set(vocab[i], v))
  return { vectors, embed }
}

/** A text's vector as stored int8 codes: the normalized sum of its words' vectors. */
export function textCodes(text, vectors) {
  const v = new Float32Array(512)
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const wv = vectors.get(w)
    if (wv) for (let d = 0; d < 512; d++) v[d] += wv[d]
  }
  const norm = Math.hypot(...v) || 1
  return Int8Array.from(v, (x) => Math.max(-127, Math.min(127, Math.round((127 * x) / norm))))
}

/** MetaTool's distinct labelled queries (real request text), in file order. */
export function metatoolQueries() {
  const csv = readFileSync(join('..', 'shared', 'benchmarks', 'metatool', 'all_clean_data.csv'), 'utf8')
  const all = csv
    .split('\n')
    .slice(1)
    .map((line) => (line.startsWith('"') ? line.slice(1, line.indexOf('",')) : line.slice(0, line.lastIndexOf(','))).replace(/""/g, '"').trim())
    .filter(Boolean)
  return [...new Set(all)]
}

/**
 * bench:search's write mix: `withWrites(make)` is a request maker that, for every 100 requests it
 * makes, sends `updates` agent updates (1 unless asked: a new description, which moves the index
 * version and clears that agent's vector) and ten invocations (which move popularity), and searches
 * (`make`) otherwise. One counter is shared by every maker it wraps, as the bench's routes share it.
 */
export function writeMix({ url, headers, ownerHeaders, agents, rand, phrase, updates = 1 }) {
  if (!Number.isInteger(updates) || updates < 0 || updates > 90) throw new Error(`updates per 100 requests must be 0-90, not ${updates}`)
  let n = 0
  return (make) => () => {
    const k = n++
    if (k % 100 < updates) {
      const id = `bench${Math.floor(rand() * agents)}`
      return fetch(`${url}/v1/agents/${id}`, { method: 'PATCH', headers: ownerHeaders, body: JSON.stringify({ description: `${title(phrase(12))}. ${phrase(10)}.` }) })
    }
    if (k % 100 < updates + 10) {
      const id = `bench${Math.floor(rand() * agents)}`
      return fetch(`${url}/v1/action/invoke_agent`, { method: 'POST', headers, body: JSON.stringify({ id, input: { topic: phrase(2) } }) })
    }
    return make()
  }
}
