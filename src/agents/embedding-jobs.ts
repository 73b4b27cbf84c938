/**
 * Keeps agent vectors current: agents created or changed (and every agent, after SEARCH_EMBEDDER
 * changes) are embedded off the request path, by a queue message sent on each agent write and by
 * the cron, in bounded batches; a queue run that leaves agents waiting sends itself on. With a
 * VECTORIZE binding each vector is also upserted there.
 */
import { embeddingProgress, pendingAgents, saveVectors } from '../db/vectors'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import type { Logger } from '../runtime/log'
import { agentText, createEmbedder } from './embedder'
import { quantize } from './vector-index'
import { upsertAgentVectors } from './vectorize'

/** Agents embedded per call to the embedder. */
const BATCH = 16

export interface EmbedRun {
  embedded: number
  /** True when agents still wait for a vector after this run's batches. */
  more: boolean
}

/** The run of this isolate in progress: runs go one after another, so a burst of writes is embedded once. */
let running: Promise<unknown> = Promise.resolve()

/** Embeds up to `batches` batches of agents lacking a current vector. */
export function embedPending(env: Env, fetch: GuardedFetch, log: Logger, batches: number): Promise<EmbedRun> {
  const run = running.then(() => embedBatches(env, fetch, log, batches))
  running = run.catch(() => {})
  return run
}

async function embedBatches(env: Env, fetch: GuardedFetch, log: Logger, batches: number): Promise<EmbedRun> {
  const embedder = createEmbedder(env, fetch)
  if (!embedder) return { embedded: 0, more: false }
  let embedded = 0
  for (let b = 0; b < batches; b++) {
    const pending = await pendingAgents(env.DB, embedder.id, BATCH)
    if (pending.length === 0) return { embedded, more: false }
    const vectors = await embedder.embed(pending.map(agentText))
    // Vectorize first: an agent whose D1 vector is saved is not embedded again, so a failed upsert
    // must leave it pending (the run fails and the next one tries again).
    if (env.VECTORIZE)
      await upsertAgentVectors(
        env.VECTORIZE,
        embedder.id,
        pending.map((a, i) => ({ rowid: a.rowid, vec: vectors[i] })),
      )
    await saveVectors(
      env.DB,
      embedder.id,
      pending.map((agent, i) => ({ agent, vec: quantize(vectors[i]) })),
    )
    embedded += pending.length
  }
  const progress = await embeddingProgress(env.DB, embedder.id)
  log.info('embedding agents', { embedder: embedder.id, ...progress })
  return { embedded, more: progress.embedded < progress.agents }
}
