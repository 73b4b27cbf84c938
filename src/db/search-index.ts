/** Upkeep of the agent full-text index. */

/** The FTS5 tables over agent text. */
export const TEXT_INDEXES = ['agents_fts'] as const
export type TextIndex = (typeof TEXT_INDEXES)[number]

/** The index version now and the one whose indexes were last merged. */
export async function readIndexVersions(db: D1Database): Promise<{ index: number; merged: number }> {
  const row = await db.prepare('SELECT index_version AS idx, merged_index_version AS merged FROM catalog_version WHERE id = 1').first<{ idx: number; merged: number }>()
  return { index: row?.idx ?? 0, merged: row?.merged ?? -1 }
}

/**
 * One step of FTS5's incremental optimize: `start` begins merging every segment into one, each step
 * writes at most `pages` leaf pages. True when the step merged something.
 */
export async function mergeStep(db: D1Database, table: TextIndex, pages: number, start: boolean): Promise<boolean> {
  const result = await db
    .prepare(`INSERT INTO ${table}(${table}, rank) VALUES ('merge', ?)`)
    .bind(start ? -pages : pages)
    .run()
  // FTS5 counts the rows a merge writes as changes; a step with nothing to merge changes fewer than 2.
  return (result.meta.changes ?? 0) >= 2
}

export async function markIndexesMerged(db: D1Database, indexVersion: number): Promise<void> {
  await db.prepare('UPDATE catalog_version SET merged_index_version = ? WHERE id = 1').bind(indexVersion).run()
}
