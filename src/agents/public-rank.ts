/**
 * Public searches ranked in the Worker. A public page depends only on relevance (the cached phrase
 * lists), visibility and executions, so each isolate keeps every public agent's executions by rowid:
 * loaded once, then kept current from the change logs (updates, migration 0010; text inserted,
 * changed or deleted, migration 0017) with one small statement sent along with the search's first
 * read, and loaded again only when the logs no longer reach back to it. D1 then returns just the page's rows,
 * instead of joining every candidate that might rank.
 */
import { runQuery, type Read } from '../db/agents'
import { agentChangesQuery, CHANGE_LOG_LENGTH, PUBLIC_CHUNK, publicAgentsQuery, type AgentChanges, type CatalogPoint } from '../db/public-agents'
import { blendedScore, partFloor, partScore, relevanceFloor } from './ranking'
import { DENSE_ROWIDS, type Matches } from './relevance'
import { indexParts, publicRanking, type PublicState } from './search-state'

export type { PublicState }

/** A load that has not finished by then was abandoned (its request cancelled). */
const LOAD_GIVEN_UP_MS = 30_000

/** `<epoch>:<version>:<index version>` as the token read returns it. */
export function catalogPoint(catalogVersion: string): CatalogPoint | null {
  const [epoch, version, index] = catalogVersion.split(':')
  if (!epoch || !version || !index) return null
  return { index: `${epoch}:${index}`, version: Number(version) }
}

export interface RankedAgent {
  rowid: number
  raw: number
  executions: number
}

/** Is `a` ranked above `b`: score, then executions, then rowid (as the SQL ranking orders). */
function above(raw: number, executions: number, rowid: number, b: RankedAgent): boolean {
  return raw > b.raw || (raw === b.raw && (executions > b.executions || (executions === b.executions && rowid < b.rowid)))
}

/** The best `k` public matches, best first. */
export function rankPublic(m: Matches, executions: Float64Array, k: number): RankedAgent[] {
  const best: RankedAgent[] = []
  if (k <= 0) return best
  // A sorted window of the best k beats sorting every visible match for any page up to the tenth of
  // 100; once it is full, a match whose relevance cannot reach its last score is passed over unscored.
  const windowed = k <= 1000
  const score = m.scale === 'part' ? partScore : blendedScore
  const floorOf = m.scale === 'part' ? partFloor : relevanceFloor
  let floor = -Infinity
  for (let i = 0; i < m.rowids.length; i++) {
    const rel = m.rels[i]
    if (rel < floor) continue
    const rowid = m.rowids[i]
    const e = rowid < executions.length ? executions[rowid] : -1
    if (e < 0) continue
    const raw = score(rel, e)
    if (!windowed) {
      best.push({ rowid, raw, executions: e })
      continue
    }
    if (best.length === k && !above(raw, e, rowid, best[k - 1])) continue
    let j = best.length === k ? k - 1 : best.length
    while (j > 0 && above(raw, e, rowid, best[j - 1])) {
      best[j] = best[j - 1]
      j--
    }
    best[j] = { rowid, raw, executions: e }
    if (best.length === k) floor = floorOf(best[k - 1].raw)
  }
  if (windowed) return best
  return best.sort((a, b) => b.raw - a.raw || b.executions - a.executions || a.rowid - b.rowid).slice(0, k)
}

function grown(executions: Float64Array, rowid: number): Float64Array {
  if (rowid < executions.length) return executions
  const next = new Float64Array(Math.max(rowid + 1, 2 * executions.length)).fill(-1)
  next.set(executions)
  return next
}

/** Every public agent, chunk after chunk; null when the catalog's agents changed meanwhile or rowids run too high. */
export async function loadPublicState(db: D1Database, read: Read, chunk = PUBLIC_CHUNK): Promise<PublicState | null> {
  let executions: Float64Array = new Float64Array(1024).fill(-1)
  let first: CatalogPoint | null = null
  let after = 0
  for (;;) {
    const part = await runQuery(read, publicAgentsQuery(db, after, chunk))
    // Later chunks may be newer than the first: the changes since the first one's version, read
    // next, bring every agent to one version again.
    if (first && part.index !== first.index) return null
    first ??= part
    for (let i = 0; i < part.agents.length; i += 2) {
      const rowid = part.agents[i]
      if (rowid >= DENSE_ROWIDS) return null
      executions = grown(executions, rowid)
      executions[rowid] = part.agents[i + 1]
      after = rowid
    }
    if (part.agents.length < 2 * chunk) return { index: first.index, version: first.version, executions }
  }
}

/** Applies the changes since catalog version `since`; false when they cannot bring this state up to date. */
function apply(changes: AgentChanges, since: number, sinceIndex: string): boolean {
  if (!publicRanking.state || indexParts(changes.index).epoch !== indexParts(publicRanking.state.index).epoch) return false
  // Another search of this isolate brought the state further meanwhile.
  if (changes.version <= publicRanking.state.version) return true
  // Older entries may have been dropped from the logs: the state is loaded again.
  if (changes.version - since > CHANGE_LOG_LENGTH || !changes.complete || publicRanking.state.index !== sinceIndex) {
    publicRanking.state = null
    return false
  }
  const c = changes.changed
  for (let i = 0; i < c.length; i += 3) {
    const rowid = c[i]
    if (rowid >= DENSE_ROWIDS) {
      publicRanking.state = null
      return false
    }
    publicRanking.state.executions = grown(publicRanking.state.executions, rowid)
    publicRanking.state.executions[rowid] = c[i + 1] === 1 ? c[i + 2] : -1
  }
  publicRanking.state.version = changes.version
  publicRanking.state.index = changes.index
  return true
}

export interface PublicRanker {
  /** The search's reads; the first also brings the state up to date when it is behind. */
  read: Read
  /** The best `k` public matches, or null once the state cannot rank for this search. */
  rank(m: Matches, k: number): RankedAgent[] | null
  /** True once the state is known to be at least as new as the catalog this search saw. */
  current(): boolean
  /** Every public agent's executions by rowid (-1: not public) once `current`, else null. */
  executions(): Float64Array | null
}

/**
 * A ranker for a search that saw catalog `seen`, loading the state first when this isolate has none
 * for that index version (or is too far behind for the change log); null when search must rank in
 * D1 instead (another search is loading the state, or the catalog cannot be held).
 */
export async function publicRanker(db: D1Database, read: Read, seen: CatalogPoint): Promise<PublicRanker | null> {
  const epoch = indexParts(seen.index).epoch
  if (!publicRanking.state || indexParts(publicRanking.state.index).epoch !== epoch || seen.version - publicRanking.state.version > CHANGE_LOG_LENGTH) {
    if (publicRanking.loadingSince && Date.now() - publicRanking.loadingSince < LOAD_GIVEN_UP_MS) return null
    publicRanking.loadingSince = Date.now()
    try {
      const loaded = await loadPublicState(db, read)
      if (loaded && (!publicRanking.state || loaded.index !== publicRanking.state.index || loaded.version > publicRanking.state.version)) publicRanking.state = loaded
    } finally {
      publicRanking.loadingSince = 0
    }
    if (!publicRanking.state || indexParts(publicRanking.state.index).epoch !== epoch) return null
  }
  // A state at a newer version than the search saw serves it too: agents inserted since are in none of its lists.
  const fits = () => publicRanking.state !== null && indexParts(publicRanking.state.index).epoch === epoch
  // The guess and the page rank the same matches: the second time comes from here unless the state moved.
  let last: { m: Matches; k: number; executions: Float64Array; version: number; ranked: RankedAgent[] } | null = null
  const rank = (m: Matches, k: number) => {
    if (!fits()) return null
    const { executions, version } = publicRanking.state!
    if (last?.m !== m || last.k !== k || last.executions !== executions || last.version !== version) {
      last = { m, k, executions, version, ranked: rankPublic(m, executions, k) }
    }
    return last.ranked
  }
  let upToDate = publicRanking.state.version >= seen.version
  const current = () => upToDate && fits()
  const executions = () => (current() ? publicRanking.state!.executions : null)
  if (upToDate) return { read, rank, current, executions }
  const since = publicRanking.state.version
  const sinceIndex = publicRanking.state.index
  let first = true
  const readWithChanges: Read = async (statements) => {
    if (!first) return read(statements)
    first = false
    const changes = agentChangesQuery(db, since, indexParts(sinceIndex).n)
    const results = await read([...statements, changes.statement])
    upToDate = apply(changes.read(results[results.length - 1]), since, sinceIndex) && publicRanking.state!.version >= seen.version
    return results.slice(0, -1)
  }
  return { read: readWithChanges, rank, current, executions }
}
