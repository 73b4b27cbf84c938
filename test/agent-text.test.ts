import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { AGENT_TEXT_VERSION, agentText, createEmbedder, nameWords } from '../src/agents/embedder'
import { embedPending } from '../src/agents/embedding-jobs'
import { quantize } from '../src/agents/vector-index'
import { pendingAgents } from '../src/db/vectors'
import { createLogger } from '../src/runtime/log'
import { hashed, hashedEmbeddings } from './hashed-embeddings'
import { newCaller } from './helpers'

const MODEL = 'hashed-words'
const settings = { ...env, SEARCH_EMBEDDER: 'openai', SEARCH_EMBEDDING_BASE_URL: 'https://embeddings.test/v1', SEARCH_EMBEDDING_MODEL: MODEL }
const log = createLogger({ test: 'agent-text' })

describe('the embedded agent text', () => {
  it('reads identifier-like names as lower-case words before the description and parameters', () => {
    expect(nameWords('ChatOCR')).toBe('Chat OCR')
    expect(nameWords('hackit_web_scanner')).toBe('hackit web scanner')
    expect(nameWords('PDFReader2Go')).toBe('PDF Reader 2 Go')
    expect(nameWords('  Invoice   chaser ')).toBe('Invoice chaser')
    expect(agentText({ name: 'InvoiceChaser', description: 'Sends reminders for unpaid invoices.', param_text: 'customer email Who to remind' })).toBe(
      'invoice chaser: Sends reminders for unpaid invoices. customer email Who to remind',
    )
  })

  it('is pinned together with its version: a change of the text must raise AGENT_TEXT_VERSION', () => {
    // Stored vectors are current only while the embedder id (which carries the version) matches;
    // a text change without a new version would leave every agent on a vector of the old text.
    const probes = [
      { name: 'SummarizeAnything_pr', description: 'Summarize YouTube videos, web pages, and PDF documents.', param_text: 'url Page to read\nlength short long' },
      { name: 'Discovery Call Prep Pack', description: ' Researches the prospect,\n drafts talking points. ', param_text: '' },
    ]
    expect({ version: AGENT_TEXT_VERSION, texts: probes.map(agentText) }).toEqual({
      version: 2,
      texts: [
        'summarize anything pr: Summarize YouTube videos, web pages, and PDF documents. url Page to read length short long',
        'discovery call prep pack: Researches the prospect, drafts talking points.',
      ],
    })
  })

  it('is at most 2,000 characters with single spaces, and keeps the description word for word when it fits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 3000 }), fc.string({ maxLength: 300 }), (name, description, param_text) => {
        const t = agentText({ name, description, param_text })
        expect(t.length).toBeLessThanOrEqual(2000)
        expect(t).toBe(t.trim())
        expect(/\s\s/.test(t)).toBe(false)
        const words = description.replace(/\s+/g, ' ').trim()
        if (name.length + words.length + param_text.length < 1500) expect(t).toContain(words)
      }),
    )
  })

  it('puts the text version in every embedder id', () => {
    const ids = [
      createEmbedder({ ...env, SEARCH_EMBEDDER: 'offline' }, hashedEmbeddings)!.id,
      createEmbedder({ ...env, SEARCH_EMBEDDER: 'workers-ai', AI: {} as Ai }, hashedEmbeddings)!.id,
      createEmbedder(settings, hashedEmbeddings)!.id,
    ]
    expect(ids).toEqual([`offline:use-lite-512-u8#text${AGENT_TEXT_VERSION}`, `workers-ai:@cf/baai/bge-base-en-v1.5#text${AGENT_TEXT_VERSION}`, `openai:${MODEL}#text${AGENT_TEXT_VERSION}`])
  })
})

describe('re-embedding after the agent text changes', () => {
  const names = ['InvoiceChaser', 'VideoTranscriptFetcher', 'crm_lead_scorer']
  const rowids: number[] = []

  beforeAll(async () => {
    const { accountId } = await newCaller('agent text owner')
    const insert = env.DB.prepare(
      `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
       VALUES (?, NULL, '/icons/agent.svg', ?, ?, 'public', ?, NULL, 'studio', 0, '{"type":"object","properties":{},"required":[]}', '{"steps":[]}', '', 0, 0) RETURNING rowid`,
    )
    for (const [i, name] of names.entries()) {
      const row = await insert.bind(`txt${i}`, name, `Agent number ${i} for the text test`, accountId).first<{ rowid: number }>()
      rowids.push(row!.rowid)
    }
    // Vectors as the previous text made them, stored under the id the embedder had then (no text
    // version): what a deployment upgraded to this text holds.
    const stored = await env.DB.prepare('SELECT rowid, name, description, param_text FROM agents WHERE rowid IN (SELECT value FROM json_each(?))')
      .bind(JSON.stringify(rowids))
      .all<{ rowid: number; name: string; description: string; param_text: string }>()
    await env.DB.batch(
      stored.results.map((a) =>
        env.DB.prepare('INSERT INTO agent_vectors (agent_rowid, embedder, vec, seq) VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM agent_vectors))').bind(
          a.rowid,
          `openai:${MODEL}`,
          quantize(hashed(`${a.name}. ${a.description} ${a.param_text}`.slice(0, 2000))),
        ),
      ),
    )
  })

  it('counts vectors of the old text as not current and embeds those agents again with the new text', async () => {
    const embedder = createEmbedder(settings, hashedEmbeddings)!
    const waiting = (await pendingAgents(env.DB, embedder.id, 1000)).map((a) => a.rowid)
    for (const r of rowids) expect(waiting).toContain(r)
    for (let i = 0; i < 20; i++) if (!(await embedPending(settings, hashedEmbeddings, log, 4)).more) break
    expect(await pendingAgents(env.DB, embedder.id, 10)).toEqual([])
    const { results } = await env.DB.prepare(
      'SELECT a.name, a.description, a.param_text, v.embedder, v.vec FROM agents a JOIN agent_vectors v ON v.agent_rowid = a.rowid WHERE a.rowid IN (SELECT value FROM json_each(?))',
    )
      .bind(JSON.stringify(rowids))
      .all<{ name: string; description: string; param_text: string; embedder: string; vec: ArrayBuffer }>()
    expect(results.length).toBe(names.length)
    for (const a of results) {
      expect(a.embedder).toBe(embedder.id)
      expect(Array.from(new Int8Array(a.vec))).toEqual(Array.from(quantize(hashed(agentText(a)))))
    }
  })
})
