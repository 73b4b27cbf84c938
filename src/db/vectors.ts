/** Agent embeddings (migration 0015): which agents need one, storing them, and reading changes. */

/** An agent's text waiting for its vector. */
export interface PendingAgent {
  rowid: number
  name: string
  description: string
  param_text: string
  updated_at: number
}

/** Agents without a current vector from `embedder` (new, changed, or embedded by another model). */
export async function pendingAgents(db: D1Database, embedder: string, limit: number): Promise<PendingAgent[]> {
  const { results } = await db
    .prepare(
      `SELECT a.rowid, a.name, a.description, a.param_text, a.updated_at FROM agents a
         LEFT JOIN agent_vectors v ON v.agent_rowid = a.rowid
        WHERE v.vec IS NULL OR v.embedder != ? ORDER BY a.rowid LIMIT ?`,
    )
    .bind(embedder, limit)
    .all<PendingAgent>()
  return results
}

/** How many agents have a current vector from `embedder`, of how many. */
export async function embeddingProgress(db: D1Database, embedder: string): Promise<{ embedded: number; agents: number }> {
  const row = await db
    .prepare(
      `SELECT (SELECT count(*) FROM agents) AS agents,
              (SELECT count(*) FROM agent_vectors v JOIN agents a ON a.rowid = v.agent_rowid WHERE v.vec IS NOT NULL AND v.embedder = ?) AS embedded`,
    )
    .bind(embedder)
    .first<{ agents: number; embedded: number }>()
  return { embedded: row?.embedded ?? 0, agents: row?.agents ?? 0 }
}

/**
 * Stores vectors, each only if its agent is unchanged since its text was read (same updated_at), so
 * a vector of old text never lands over a newer change.
 */
export async function saveVectors(db: D1Database, embedder: string, rows: { agent: PendingAgent; vec: Int8Array }[]): Promise<void> {
  if (rows.length === 0) return
  await db.batch(
    rows.map(({ agent, vec }) =>
      db
        .prepare(
          `INSERT INTO agent_vectors (agent_rowid, embedder, vec, seq)
           SELECT a.rowid, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM agent_vectors) FROM agents a
            WHERE a.rowid = ? AND a.updated_at = ? AND a.name = ? AND a.description = ? AND a.param_text = ?
           ON CONFLICT (agent_rowid) DO UPDATE SET embedder = excluded.embedder, vec = excluded.vec, seq = excluded.seq`,
        )
        .bind(embedder, vec, agent.rowid, agent.updated_at, agent.name, agent.description, agent.param_text),
    ),
  )
}

export interface VectorChange {
  rowid: number
  embedder: string
  /** The stored int8 codes, or null when the agent's vector was cleared. */
  vec: Int8Array | null
  seq: number
}

/**
 * Clears an agent's vector (kept as a change, as the triggers do), so the agent counts as waiting
 * for one: embedded, and written to Vectorize, again if it is still there.
 */
export async function clearVector(db: D1Database, rowid: number): Promise<void> {
  await db.prepare('UPDATE agent_vectors SET vec = NULL, seq = (SELECT coalesce(max(seq), 0) + 1 FROM agent_vectors) WHERE agent_rowid = ? AND vec IS NOT NULL').bind(rowid).run()
}

/** Vector writes after `afterSeq`, oldest first, at most `limit`. */
export async function vectorChanges(db: D1Database, afterSeq: number, limit: number): Promise<VectorChange[]> {
  const { results } = await db
    .prepare('SELECT agent_rowid, embedder, vec, seq FROM agent_vectors WHERE seq > ? ORDER BY seq LIMIT ?')
    .bind(afterSeq, limit)
    .all<{ agent_rowid: number; embedder: string; vec: ArrayBuffer | number[] | null; seq: number }>()
  return results.map((r) => ({
    rowid: r.agent_rowid,
    embedder: r.embedder,
    vec: r.vec === null ? null : r.vec instanceof ArrayBuffer ? new Int8Array(r.vec) : Int8Array.from(r.vec),
    seq: r.seq,
  }))
}

/** The current int8 codes from `embedder` of the given agents (agents without one are left out). */
export async function vectorCodes(db: D1Database, embedder: string, rowids: number[]): Promise<Map<number, Int8Array>> {
  const out = new Map<number, Int8Array>()
  if (rowids.length === 0) return out
  // One statement whatever the count: the ids travel as one JSON parameter (D1 binds at most 100).
  const { results } = await db
    .prepare(
      `SELECT v.agent_rowid, v.vec FROM json_each(?) j JOIN agent_vectors v ON v.agent_rowid = j.value
        WHERE v.vec IS NOT NULL AND v.embedder = ?`,
    )
    .bind(JSON.stringify(rowids), embedder)
    .all<{ agent_rowid: number; vec: ArrayBuffer | number[] }>()
  for (const r of results) out.set(r.agent_rowid, r.vec instanceof ArrayBuffer ? new Int8Array(r.vec) : Int8Array.from(r.vec))
  return out
}
