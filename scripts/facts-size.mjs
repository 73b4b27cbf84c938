#!/usr/bin/env node
/**
 * `node scripts/facts-size.mjs`: the stored size of a page's facts for 3 MB pages (the crawler's
 * cap) of one field as long as the page allows (test/fixtures/hostile-facts.ts: a title,
 * description, heading, canonical, JSON-LD block, image src, link text, word ...), with the
 * extractor before the facts were bounded (test/fixtures/before-facts/html.ts) and with the shipped
 * one, side by side in one run; then pages of every field at once, and the facts of the real HTML
 * pages found on this machine (unchanged, and the largest). Options (env): FACTS_PAGE_BYTES
 * (default 3,000,000).
 * Last line: `facts max_bytes before=<x> after=<y> bound=<z>`.
 */
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { importTs } from './lib/import-ts.mjs'

const PAGE = Number(process.env.FACTS_PAGE_BYTES ?? 3_000_000)
const { now, old, hostile, limits } = await importTs({
  now: 'src/providers/web/html.ts',
  old: 'test/fixtures/before-facts/html.ts',
  hostile: 'test/fixtures/hostile-facts.ts',
  limits: 'src/providers/web/fact-limits.ts',
})
const URL_ = 'https://hostile.test/page'
const encoder = new TextEncoder()
const bytes = (facts) => encoder.encode(JSON.stringify(facts)).length
const fmt = (n) => n.toLocaleString('en-US')

let maxBefore = 0
let maxAfter = 0
const measure = (name, html) => {
  const b = bytes(old.extractHtmlText(html, URL_))
  const a = bytes(now.extractHtmlText(html, URL_))
  maxBefore = Math.max(maxBefore, b)
  maxAfter = Math.max(maxAfter, a)
  console.log(`${name.padEnd(22)} html ${fmt(encoder.encode(html).length).padStart(11)}  facts before ${fmt(b).padStart(11)}  after ${fmt(a).padStart(8)}`)
}

console.log(`pages of ${fmt(PAGE)} bytes, one field filled with "a"; facts as stored (JSON, UTF-8 bytes):`)
const fields = Object.keys(hostile.HOSTILE_FIELDS)
for (const name of fields) measure(name, hostile.hostilePageOfSize([name], PAGE))
// Every field at once, in CJK text (3 bytes each) and in control characters (6 bytes of JSON each).
measure(`all ${fields.length} fields (語)`, hostile.hostilePageOfSize(fields, PAGE, '語'))
measure('all fields (\\u0001)', hostile.hostilePageOfSize(fields, PAGE, '\u0001'))

// Real pages: the HTML documents on this machine (documentation sets), if any.
const files = execSync("find / -xdev -name '*.html' -size +20k 2>/dev/null | head -400", { encoding: 'utf8' }).split('\n').filter(Boolean)
let real = 0
let realFile = ''
let same = 0
for (const f of files) {
  const html = readFileSync(f, 'utf8')
  const url = `https://docs.test/${f.split('/').slice(-2).join('/')}`
  const a = JSON.stringify(now.extractHtmlText(html, url))
  if (a === JSON.stringify(old.extractHtmlText(html, url))) same++
  if (encoder.encode(a).length > real) [real, realFile] = [encoder.encode(a).length, f]
}
console.log(`real pages: ${files.length} HTML files over 20 KB on this machine; facts unchanged on ${same}; largest facts ${fmt(real)} bytes (${realFile})`)
console.log(`facts max_bytes before=${maxBefore} after=${maxAfter} bound=${limits.HTML_FACTS_MAX_BYTES}`)
