/**
 * Keeps agent vectors current: agents created or changed (and every agent, after SEARCH_EMBEDDER
 * changes) are embedded off the request path, by a queue message sent on each agent write and by
 * the cron, in bounded batches; a queue run that leaves agents waiting sends itself on. With a
 * VECTORIZE binding each vector is also upserted there.
 */
import { embeddingProgress, pendingAgents, saveVectors } from '../db/vectors'
import type { Env } from '../env'
import type { GuardedFetch } from '../providers/web/fetch'
import { IsolateLease } from '../lib/isolate-lease'
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

/**
 * Runs go one after another in an isolate, so a burst of writes is embedded once; a run waits for the
 * one before it on its own timers (lib/isolate-lease.ts), and takes over from a run silent for 60 s
 * (one batch, 16 texts, takes well under a second on the offline encoder).
 */
const runs = new IsolateLease({ staleMs: 60_000, pollMs: 50 })

/** Embeds up to `batches` batches of agents lacking a current vector. */
export async function embedPending(env: Env, fetch: GuardedFetch, log: Logger, batches: number): Promise<EmbedRun> {
  const lease = (await runs.acquire())!
  try {
    return await embedBatches(env, fetch, log, batches, lease.beat)
  } finally {
    lease.release()
  }
}

async function embedBatches(env: Env, fetch: GuardedFetch, log: Logger, batches: number, beat: () => void): Promise<EmbedRun> {
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
    beat()
  }
  const progress = await embeddingProgress(env.DB, embedder.id)
  log.info('embedding agents', { embedder: embedder.id, ...progress })
  return { embedded, more: progress.embedded < progress.agents }
}
