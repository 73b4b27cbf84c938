/**
 * What the Worker needs to rank public agents itself: public agents' executions by rowid, the agents
 * changed since a catalog version (migration 0010), and agent rows by rowid.
 */
import { AGENT_COLUMNS, type AgentRow, type Query } from './agents'
import { changedSinceSql, logReachesSql } from './index-changes'

/** Changes kept in `agent_changes` (migration 0010): an isolate further behind reloads. */
export const CHANGE_LOG_LENGTH = 10_000

/**
 * Public agents per chunk: at most 22 bytes each in the text that carries them, so a chunk stays under
 * D1's 2 MB limit on a value.
 */
export const PUBLIC_CHUNK = 50_000

/** The catalog a read saw: `<epoch>:<index version>` and the catalog version. */
export interface CatalogPoint {
  index: string
  version: number
}

export interface PublicAgentsChunk extends CatalogPoint {
  /** Rowid and executions of each public agent in the chunk, flat: [rowid, executions, rowid, ...]. */
  agents: number[]
}

const POINT = `v.epoch || ':' || v.index_version AS idx, v.version AS version`

/** Up to `chunk` public agents with rowids above `afterRowid`, in rowid order. */
export function publicAgentsQuery(db: D1Database, afterRowid: number, chunk = PUBLIC_CHUNK): Query<PublicAgentsChunk> {
  return {
    statement: db
      .prepare(
        `SELECT ${POINT},
                (SELECT group_concat(rowid || ' ' || executions, ' ') FROM (
                   SELECT rowid, executions FROM agents INDEXED BY agents_public
                    WHERE visibility = 'public' AND rowid > ? ORDER BY rowid LIMIT ${chunk})) AS agents
           FROM catalog_version v WHERE v.id = 1`,
      )
      .bind(afterRowid),
    read: ({ results }) => {
      const row = results[0] as { idx: string; version: number; agents: string | null }
      return { index: row.idx, version: row.version, agents: numbers(row.agents) }
    },
  }
}

export interface AgentChanges extends CatalogPoint {
  /**
   * Each agent updated after the catalog version asked for, inserted or deleted after the index
   * version asked for, as it is now, flat: [rowid, public (1 or 0; 0 once deleted), executions, ...].
   */
  changed: number[]
  /** False when the index change log (migration 0017) no longer reaches back to the index version asked for. */
  complete: boolean
}

/**
 * The agents updated after catalog version `since` (migration 0010) and those whose text entered,
 * changed or left after index version `sinceIndex` (migration 0017), as they are now.
 */
export function agentChangesQuery(db: D1Database, since: number, sinceIndex: number): Query<AgentChanges> {
  if (!Number.isSafeInteger(sinceIndex) || sinceIndex < 0) throw new Error(`not an index version: ${sinceIndex}`)
  return {
    statement: db
      .prepare(
        `SELECT ${POINT},
                ${logReachesSql('?2')} AS complete,
                (SELECT group_concat(c.r || ' ' || coalesce(a.visibility = 'public', 0) || ' ' || coalesce(a.executions, 0), ' ')
                   FROM (SELECT agent_rowid AS r FROM agent_changes WHERE version > ?1
                         UNION ${changedSinceSql('?2')}) c
                   LEFT JOIN agents a ON a.rowid = c.r) AS changed
           FROM catalog_version v WHERE v.id = 1`,
      )
      .bind(since, sinceIndex),
    read: ({ results }) => {
      const row = results[0] as { idx: string; version: number; changed: string | null; complete: number }
      return { index: row.idx, version: row.version, changed: numbers(row.changed), complete: row.complete === 1 }
    },
  }
}

/** Agent rows by rowid, in no particular order; rowids no agent has are left out. */
export function agentsByRowidQuery(db: D1Database, rowids: number[]): Query<AgentRow[]> {
  return {
    statement: db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.rowid IN (SELECT value FROM json_each(?))`).bind(JSON.stringify(rowids)),
    read: ({ results }) => results as unknown as AgentRow[],
  }
}

function numbers(text: string | null): number[] {
  return text ? text.split(' ').map(Number) : []
}
