/**
 * Upkeep of the agent full-text indexes, run by the cron. Agents written over time leave each FTS5
 * index in several segments, and every phrase lookup probes each segment: search pays that for each
 * word its isolate has not cached yet. Merging them into one makes those lookups cheaper and changes
 * no score. The work per run is bounded, so a large catalog is merged over a few runs.
 */
import { markIndexesMerged, mergeStep, readIndexVersions, TEXT_INDEXES } from '../db/search-index'

/** Leaf pages (4 KiB) one merge step may write. */
const MERGE_PAGES = 1000
/** Merge steps per run, over every index. */
const MERGE_STEPS = 24

export type IndexUpkeep = 'unchanged' | 'merged' | 'in progress'

export async function maintainTextIndexes(db: D1Database): Promise<IndexUpkeep> {
  const { index, merged } = await readIndexVersions(db)
  if (index === merged) return 'unchanged'
  let steps = 0
  for (const table of TEXT_INDEXES) {
    // The first step (re)starts merging everything into one segment; the next ones carry it on.
    let working = await mergeStep(db, table, MERGE_PAGES, true)
    steps++
    while (working) {
      if (steps >= MERGE_STEPS) return 'in progress'
      working = await mergeStep(db, table, MERGE_PAGES, false)
      steps++
    }
  }
  // Agents written meanwhile leave a newer index version, so the next run merges again.
  await markIndexesMerged(db, index)
  return 'merged'
}
