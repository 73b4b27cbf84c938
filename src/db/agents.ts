/** The agent catalog: rows, visibility-scoped reads, full-text search and reviews. */
import { POPULARITY_WEIGHT, SCORE_K, WORD_WEIGHTS } from '../agents/ranking'
import { INDEX_POINT_SQL, parseTotals, TOTALS_SQL, type FtsTotals } from './index-changes'
import { nearWordsSql, parseNearWords, probeParam, VOCABULARY_POINT_SQL, type GramProbe, type VocabularyWord } from './search-words'

export type Visibility = 'public' | 'private' | 'team'
export type VisibilityFilter = Visibility | 'all'

export interface AgentRow {
  rowid: number
  id: string
  slug: string | null
  icon: string
  name: string
  description: string
  visibility: Visibility
  owner_account_id: string
  team_id: string | null
  type: string
  executions: number
  /** 1 when an operator marked the agent trusted (its workflow unchanged since). */
  trusted: number
  reviews_count: number
  reviews_sum: number
  parameters: string
  workflow: string
  param_text: string
  created_at: number
  updated_at: number
}

export type NewAgent = Omit<AgentRow, 'rowid' | 'reviews_count' | 'reviews_sum' | 'trusted'>

/** Who is looking: an account and the teams it belongs to. */
export interface Viewer {
  accountId: string
  teamIds: string[]
}

/**
 * SQL condition (on alias `a`) for the agents a viewer may see under a filter, with its bindings.
 * Private agents: only their owner. Team agents: members of their team (and their owner).
 */
export function visibilityClause(filter: VisibilityFilter, viewer: Viewer): { sql: string; binds: unknown[] } {
  const teams = JSON.stringify(viewer.teamIds)
  const own = `a.owner_account_id = ?`
  const inTeam = `a.team_id IN (SELECT value FROM json_each(?))`
  switch (filter) {
    case 'public':
      return { sql: `a.visibility = 'public'`, binds: [] }
    case 'private':
      return { sql: `a.visibility = 'private' AND ${own}`, binds: [viewer.accountId] }
    case 'team':
      return { sql: `a.visibility = 'team' AND (${inTeam} OR ${own})`, binds: [teams, viewer.accountId] }
    case 'all':
      return {
        sql: `(a.visibility = 'public' OR ${own} OR (a.visibility = 'team' AND ${inTeam}))`,
        binds: [viewer.accountId, teams],
      }
  }
}

export const AGENT_COLUMNS =
  'a.rowid, a.id, a.slug, a.icon, a.name, a.description, a.visibility, a.owner_account_id, a.team_id, a.type, a.executions, a.trusted, a.reviews_count, a.reviews_sum, a.parameters, a.workflow, a.param_text, a.created_at, a.updated_at'

const INSERT_AGENT = `INSERT INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15`

const agentValues = (a: NewAgent) =>
  [a.id, a.slug, a.icon, a.name, a.description, a.visibility, a.owner_account_id, a.team_id, a.type, a.executions, a.parameters, a.workflow, a.param_text, a.created_at, a.updated_at] as const

/** Inserts agents in one batch: all of them or, when any insert fails, none. */
export async function insertAgents(db: D1Database, agents: NewAgent[]): Promise<void> {
  if (agents.length) await db.batch(agents.map((a) => db.prepare(INSERT_AGENT).bind(...agentValues(a))))
}

/**
 * Inserts one owner's new agents, all or none, unless the owner would then have more than
 * `maxOwned`. The first insert counts the owner's agents in its own WHERE and the others follow only
 * that row, in one batch (one transaction), so concurrent creations cannot pass the cap together.
 * False when refused; a slug the owner already uses still fails the batch on agents_owner_slug.
 */
export async function insertOwnAgents(db: D1Database, agents: NewAgent[], maxOwned: number): Promise<boolean> {
  if (agents.length === 0) return true
  const [first, ...rest] = agents
  const results = await db.batch([
    db.prepare(`${INSERT_AGENT} WHERE (SELECT count(*) FROM agents WHERE owner_account_id = ?7) + ?16 <= ?17`).bind(...agentValues(first), agents.length, maxOwned),
    ...rest.map((a) => db.prepare(`${INSERT_AGENT} WHERE EXISTS (SELECT 1 FROM agents WHERE id = ?16)`).bind(...agentValues(a), first.id)),
  ])
  return results[0].meta.changes > 0
}

/** Which of `slugs` the account's own agents already use: slug -> agent id. */
export async function ownSlugs(db: D1Database, ownerId: string, slugs: string[]): Promise<Map<string, string>> {
  if (!slugs.length) return new Map()
  const { results } = await db
    .prepare('SELECT id, slug FROM agents WHERE owner_account_id = ? AND slug IN (SELECT value FROM json_each(?))')
    .bind(ownerId, JSON.stringify(slugs))
    .all<{ id: string; slug: string }>()
  return new Map(results.map((r) => [r.slug, r.id]))
}

/** How many agents an account owns. */
export async function countOwnAgents(db: D1Database, accountId: string): Promise<number> {
  const row = await db.prepare('SELECT count(*) AS n FROM agents WHERE owner_account_id = ?').bind(accountId).first<{ n: number }>()
  return row?.n ?? 0
}

/**
 * An agent by id or slug, if the viewer may see it. Slugs are unique per owner, so several visible
 * agents may share one: an id wins, then the viewer's own agent, then the earliest created of the
 * others the viewer may see (a later agent never takes over a slug callers already use).
 */
export async function getVisibleAgent(db: D1Database, viewer: Viewer, idOrSlug: string): Promise<AgentRow | null> {
  return visibleAgent<AgentRow>(db, viewer, idOrSlug, false)
}

/** An agent to run, with the viewer's grant to it: the granted integrations' JSON text, null when none. */
export type RunnableAgent = AgentRow & { grant_integrations: string | null }

/**
 * The agent getVisibleAgent finds, with the viewer's grant to it read in the same statement: an
 * invocation checks the grant before its run and again as the run starts, and both use this read.
 */
export async function getRunnableAgent(db: D1Database, viewer: Viewer, idOrSlug: string): Promise<RunnableAgent | null> {
  return visibleAgent<RunnableAgent>(db, viewer, idOrSlug, true)
}

function visibleAgent<T>(db: D1Database, viewer: Viewer, idOrSlug: string, withGrant: boolean): Promise<T | null> {
  const vis = visibilityClause('all', viewer)
  const grant = withGrant
    ? { columns: ', g.integrations AS grant_integrations', join: ' LEFT JOIN agent_grants g ON g.account_id = ? AND g.agent_id = a.id', binds: [viewer.accountId] }
    : { columns: '', join: '', binds: [] }
  return db
    .prepare(
      `SELECT ${AGENT_COLUMNS}${grant.columns} FROM agents a${grant.join} WHERE (a.id = ? OR a.slug = ?) AND ${vis.sql}
        ORDER BY a.id = ? DESC, a.owner_account_id = ? DESC, a.rowid LIMIT 1`,
    )
    .bind(...grant.binds, idOrSlug, idOrSlug, ...vis.binds, idOrSlug, viewer.accountId)
    .first<T>()
}

/** Does the owner already have another agent with this slug? (Other accounts' slugs never count.) */
export async function slugTaken(db: D1Database, ownerId: string, slug: string, exceptId: string | null): Promise<boolean> {
  const row = await db
    .prepare('SELECT 1 FROM agents WHERE owner_account_id = ? AND slug = ? AND id != ?')
    .bind(ownerId, slug, exceptId ?? '')
    .first()
  return row !== null
}

export async function listOwnAgents(db: D1Database, accountId: string, limit: number, afterRowid: number): Promise<AgentRow[]> {
  const { results } = await db.prepare(`SELECT ${AGENT_COLUMNS} FROM agents a WHERE a.owner_account_id = ? AND a.rowid > ? ORDER BY a.rowid LIMIT ?`).bind(accountId, afterRowid, limit).all<AgentRow>()
  return results
}

export type AgentPatch = Partial<Pick<AgentRow, 'slug' | 'icon' | 'name' | 'description' | 'visibility' | 'team_id' | 'parameters' | 'workflow' | 'param_text'>>

/** Applies a patch to an agent its owner changes; false when no such agent of that owner. */
export async function updateAgent(db: D1Database, ownerId: string, id: string, patch: AgentPatch, now: number): Promise<boolean> {
  const keys = Object.keys(patch) as (keyof AgentPatch)[]
  const sets = [...keys.map((k) => `${k} = ?`), 'updated_at = ?']
  const res = await db
    .prepare(`UPDATE agents SET ${sets.join(', ')} WHERE id = ? AND owner_account_id = ?`)
    .bind(...keys.map((k) => patch[k] ?? null), now, id, ownerId)
    .run()
  return res.meta.changes > 0
}

export async function deleteAgent(db: D1Database, ownerId: string, id: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM agents WHERE id = ? AND owner_account_id = ?').bind(id, ownerId).run()
  return res.meta.changes > 0
}

/** Counts one execution of the agent (a statement, so a run written at its end can send it with its record). */
export function countExecution(db: D1Database, id: string): D1PreparedStatement {
  return db.prepare('UPDATE agents SET executions = executions + 1 WHERE id = ?').bind(id)
}

/** Sets the viewer's 1-5 rating (insert or update); triggers keep the agent's aggregates exact. */
export async function putReview(db: D1Database, agentId: string, accountId: string, rating: number, now: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO agent_reviews (agent_id, account_id, rating, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(agent_id, account_id) DO UPDATE SET rating = excluded.rating, updated_at = excluded.updated_at`,
    )
    .bind(agentId, accountId, rating, now, now)
    .run()
}

export async function deleteReview(db: D1Database, agentId: string, accountId: string): Promise<boolean> {
  const res = await db.prepare('DELETE FROM agent_reviews WHERE agent_id = ? AND account_id = ?').bind(agentId, accountId).run()
  return res.meta.changes > 0
}

/** One scored search hit. */
export type ScoredAgent = AgentRow & { score: number }

// Popularity as rankCandidatesQuery adds it: the expression of ranking.ts's partScore.
const popularity = '(a.executions * 1.0 / (a.executions + 1000))'

/** Agents a viewer may see, most executed first (the listing for an empty query). */
export function listByPopularityQuery(db: D1Database, q: { viewer: Viewer; filter: VisibilityFilter; limit: number; offset: number }): Query<ScoredAgent[]> {
  const vis = visibilityClause(q.filter, q.viewer)
  return {
    statement: db
      .prepare(
        `SELECT ${AGENT_COLUMNS}, round(${popularity}, 6) AS score FROM agents a WHERE ${vis.sql}
          ORDER BY a.executions DESC, a.rowid LIMIT ? OFFSET ?`,
      )
      .bind(...vis.binds, q.limit, q.offset),
    read: ({ results }) => results as unknown as ScoredAgent[],
  }
}

/**
 * The agents one FTS5 phrase matches, by rowid ascending, with that phrase's bm25 relevance for each.
 * A phrase's relevance depends only on an agent's word count and how often the phrase occurs in each
 * column, so a list holds few distinct values: each agent keeps an index into them, which makes a
 * list about a third of the size of rowid and relevance pairs (lists are cached per isolate).
 */
export interface PhraseList {
  rowids: Uint32Array | Float64Array
  /** The list's distinct relevance values. */
  values: Float64Array
  /** Per agent, the index of its relevance in `values`. */
  at: Uint8Array | Uint16Array | Uint32Array
}

export const listBytes = (l: PhraseList) => l.rowids.byteLength + l.values.byteLength + l.at.byteLength

/**
 * Agents per chunk of a relevance list: at most about 35 bytes each in the text that carries them, so
 * a chunk stays under D1's 2 MB limit on a value. A longer list (a word in more than 50,000 agents)
 * is read chunk after chunk.
 */
export const LIST_CHUNK = 50_000

/**
 * bm25 of a phrase for up to `chunk` agents it matches past rowid `after`, as one text value: far
 * cheaper to carry out of D1 than thousands of rows. Agents are grouped by relevance ("rel:rowid
 * rowid ...;rel:rowid ..."), since a list holds few distinct values: each is formatted once
 * (`%!.17g` keeps every double exact), which saves about a fifth of the SQL time of formatting each
 * agent's. bm25 takes its statistics from the whole index, so a chunk's values are the list's.
 */
const relevanceList = (param: string, after: string | null, chunk: number) =>
  `(WITH x AS MATERIALIZED (SELECT rowid AS r, -bm25(agents_fts, ${WORD_WEIGHTS}) AS s FROM agents_fts
      WHERE agents_fts MATCH ${param}${after === null ? '' : ` AND rowid > ${after}`} ORDER BY rowid LIMIT ${chunk})
    ${groupedText})`

/** The text of relevance list `x` (rowid `r`, relevance `s`), as parseList reads it. */
const groupedText = `SELECT coalesce(group_concat(printf('%!.17g', s) || ':' || ids, ';'), '') FROM (SELECT s, group_concat(r, ' ') AS ids FROM x GROUP BY s)`

/**
 * Reads a list as the relevance list query carries it ("rel:rowid rowid ...;rel:...", groups and
 * rowids in any order) into rowid order. SQLite hands each group's rowids over ascending and a
 * list has few groups, so they are merged as they are read; any other text is sorted (sortList).
 */
export function parseList(text: string | null): PhraseList {
  const runs = text ? readRuns(text) : null
  return runs ? mergeRuns(runs) : sortList(text)
}

/** Past this many groups, merging (a pass over the groups an agent) costs more than sorting. */
const MERGE_GROUPS = 8

/** A list's groups: their values, and their rowids one after another from `start[j]`. */
interface Runs {
  values: Float64Array
  ids: Float64Array
  start: Uint32Array
}

/**
 * The groups of a list text whose rowids are plain digits, ascending in each group and below 2^53,
 * in at most MERGE_GROUPS groups; else null. Rowids are read from the characters, not cut out.
 */
function readRuns(text: string): Runs | null {
  const len = text.length
  let g = 1
  let n = 1
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i)
    if (c === 59) {
      g++
      n++
    } else if (c === 32) n++
  }
  if (g > MERGE_GROUPS) return null
  const values = new Float64Array(g)
  const ids = new Float64Array(n)
  const start = new Uint32Array(g + 1)
  let i = 0
  let k = 0
  for (let j = 0; j < g; j++) {
    const colon = text.indexOf(':', i)
    if (colon < 0) return null
    values[j] = Number(text.slice(i, colon))
    i = colon + 1
    start[j] = k
    let id = 0
    let digits = 0
    let prev = -1
    for (;;) {
      const c = i < len ? text.charCodeAt(i) : 59
      i++
      if (c >= 48 && c <= 57) {
        id = id * 10 + (c - 48)
        digits++
      } else if ((c === 32 || c === 59) && digits > 0 && id > prev && id < Number.MAX_SAFE_INTEGER) {
        ids[k++] = prev = id
        id = digits = 0
        if (c === 59) break
      } else return null
    }
  }
  start[g] = k
  return k === n ? { values, ids, start } : null
}

/** The groups merged into rowid order. */
function mergeRuns({ values, ids, start }: Runs): PhraseList {
  const g = values.length
  const n = ids.length
  // Each group ascends, so the largest rowid ends one of them: it tells which array holds them all.
  let largest = 0
  for (let j = 0; j < g; j++) largest = Math.max(largest, ids[start[j + 1] - 1])
  const rowids = largest < 2 ** 32 ? new Uint32Array(n) : new Float64Array(n)
  const at = new Uint8Array(n)
  const pos = start.slice(0, g)
  for (let k = 0; k < n; k++) {
    let best = 0
    let least = Infinity
    for (let j = 0; j < g; j++) {
      if (pos[j] < start[j + 1] && ids[pos[j]] < least) {
        least = ids[pos[j]]
        best = j
      }
    }
    rowids[k] = least
    at[k] = best
    pos[best]++
  }
  return { rowids, values, at }
}

/**
 * Any list text read into rowid order: each agent keyed as rowid · groups + group, exact below 2^53,
 * so one numeric sort orders them.
 */
function sortList(text: string | null): PhraseList {
  const groups = text ? text.split(';') : []
  const g = groups.length
  const values = new Float64Array(g)
  const idLists: string[][] = []
  let n = 0
  for (let j = 0; j < g; j++) {
    const colon = groups[j].indexOf(':')
    values[j] = Number(groups[j].slice(0, colon))
    idLists.push(groups[j].slice(colon + 1).split(' '))
    n += idLists[j].length
  }
  const keys = new Float64Array(n)
  let i = 0
  for (let j = 0; j < g; j++) for (const id of idLists[j]) keys[i++] = Number(id) * g + j
  if (keys.some((key) => key >= Number.MAX_SAFE_INTEGER)) {
    const pairs = idLists.flatMap((ids, j) => ids.map((id) => [Number(id), values[j]] as const)).sort((a, b) => a[0] - b[0])
    return buildList(
      Float64Array.from(pairs, (p) => p[0]),
      Float64Array.from(pairs, (p) => p[1]),
    )
  }
  keys.sort()
  const ids = new Float64Array(n)
  const at = values.length <= 256 ? new Uint8Array(n) : values.length <= 65536 ? new Uint16Array(n) : new Uint32Array(n)
  for (let k = 0; k < n; k++) {
    let rowid = Math.floor(keys[k] / g)
    if (rowid * g > keys[k]) rowid--
    else if (keys[k] - rowid * g >= g) rowid++
    ids[k] = rowid
    at[k] = keys[k] - rowid * g
  }
  return { rowids: n === 0 || ids[n - 1] < 2 ** 32 ? Uint32Array.from(ids) : ids, values, at }
}

/** One list of the chunks of a list, in order. */
export function joinLists(parts: PhraseList[]): PhraseList {
  if (parts.length === 1) return parts[0]
  const n = parts.reduce((sum, l) => sum + l.rowids.length, 0)
  const ids = new Float64Array(n)
  const rels = new Float64Array(n)
  let i = 0
  for (const l of parts) {
    for (let j = 0; j < l.rowids.length; j++, i++) {
      ids[i] = l.rowids[j]
      rels[i] = l.values[l.at[j]]
    }
  }
  return buildList(ids, rels)
}

function buildList(ids: Float64Array, rels: Float64Array): PhraseList {
  const n = ids.length
  const index = new Map<number, number>()
  const values: number[] = []
  const at = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const rel = rels[i]
    let k = index.get(rel)
    if (k === undefined) {
      k = values.length
      index.set(rel, k)
      values.push(rel)
    }
    at[i] = k
  }
  return {
    // Ascending, so the last is the largest.
    rowids: n === 0 || ids[n - 1] < 2 ** 32 ? Uint32Array.from(ids) : ids,
    values: Float64Array.from(values),
    at: values.length <= 256 ? Uint8Array.from(at) : values.length <= 65536 ? Uint16Array.from(at) : at,
  }
}

/** A statement and how to read its result, so callers can send several in one round trip. */
export interface Query<T> {
  statement: D1PreparedStatement
  read: (result: D1Result<Record<string, unknown>>) => T
}

/**
 * Runs statements in one round trip: a D1 batch (in order, in one transaction), or an action's
 * `ctx.read`, which may add the request's rate-limit count to it.
 */
export type Read = (statements: D1PreparedStatement[]) => Promise<D1Result<Record<string, unknown>>[]>

export async function runQuery<T>(read: Read, q: Query<T>): Promise<T> {
  const [result] = await read([q.statement])
  return q.read(result)
}

/** Two queries in one round trip. */
export async function runQueries<A, B>(read: Read, a: Query<A>, b: Query<B>): Promise<[A, B]> {
  const [ra, rb] = await read([a.statement, b.statement])
  return [a.read(ra), b.read(rb)]
}

export interface FetchedLists {
  lists: PhraseList[]
  /** Per phrase: true when it was left unread as wide (see phraseListsQuery); its list is then empty. */
  wide?: boolean[]
  fallback: PhraseList | null
  /** Per phrase, the vocabulary words near its word when it was probed and matches nothing, else null. */
  near: (VocabularyWord[] | null)[]
  /** The vocabulary point (`VOCABULARY_POINT_SQL`) the lists (and near words) were read at. */
  vocabulary?: string | null
  /** The index the lists were read at (`<epoch>:<index version>`) and its FTS5 totals, when read. */
  read?: { index: string; totals: FtsTotals | null }
}

/**
 * Relevance lists of `phrases`, the first `chunk` agents of each. bm25 of an OR query is the sum over
 * its phrases of exactly these values (each phrase's idf and length normalization do not depend on
 * the others). With `fallback`, its list is read too, but only when the `unless` phrase matches
 * nothing (CASE is lazy, so a short prefix is never expanded needlessly); else it is null. A list of
 * `chunk` agents may go on: read the rest with `listChunkQuery`. A phrase with a probe (`probes`,
 * by position) that matches nothing also brings the vocabulary words near it (search-words.ts), so
 * typo lookup needs no round trip of its own; again CASE is lazy, so a phrase that matches costs
 * no lookup. The vocabulary point comes back with the lists, so an empty one is known to stay empty
 * while the vocabulary stands (relevance.ts).
 */
export function phraseListsQuery(
  db: D1Database,
  phrases: string[],
  fallback: { phrase: string; unless: string } | null,
  chunk = LIST_CHUNK,
  probes: (GramProbe | null)[] = [],
  wideMin: number | null = null,
): Query<FetchedLists> {
  const list = (param: string) => (wideMin === null ? relevanceList(param, null, chunk) : `CASE WHEN ${wideSql(param, wideMin)} THEN '${WIDE}' ELSE ${relevanceList(param, null, chunk)} END`)
  const columns = phrases.map((_, i) => `${list(`?${i + 3}`)} AS l${i}`)
  columns.push(`CASE WHEN ?1 IS NULL OR EXISTS (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?2) THEN NULL ELSE ${relevanceList('?1', null, chunk)} END AS fallback`)
  const probeBinds: string[] = []
  phrases.forEach((_, i) => {
    const probe = probes[i]
    if (!probe) return
    probeBinds.push(probeParam(probe))
    const param = `?${phrases.length + 2 + probeBinds.length}`
    columns.push(`CASE WHEN EXISTS (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ?${i + 3}) THEN NULL ELSE ${nearWordsSql(param, probe)} END AS n${i}`)
  })
  columns.push(`${VOCABULARY_POINT_SQL} AS vocabulary`)
  columns.push(`${INDEX_POINT_SQL} AS idx, ${TOTALS_SQL} AS totals`)
  return {
    statement: db.prepare(`SELECT ${columns.join(', ')}`).bind(fallback?.phrase ?? null, fallback?.unless ?? '', ...phrases, ...probeBinds),
    read: ({ results }) => {
      const row = results[0] as Record<string, string | null> | undefined
      return {
        lists: phrases.map((_, i) => (row?.[`l${i}`] === WIDE ? parseList(null) : parseList(row?.[`l${i}`] ?? null))),
        wide: phrases.map((_, i) => row?.[`l${i}`] === WIDE),
        fallback: row?.fallback === null || row?.fallback === undefined ? null : parseList(row.fallback),
        near: phrases.map((_, i) => {
          const near = row?.[`n${i}`]
          return near === null || near === undefined ? null : parseNearWords(near)
        }),
        vocabulary: row?.vocabulary ?? null,
        read: row ? { index: String(row.idx), totals: parseTotals(row.totals) } : undefined,
      }
    },
  }
}

/** What a list column holds in place of a wide phrase's list (a list is numbers, ':', ';' and spaces, or ''). */
const WIDE = '*'

/**
 * True for a phrase (SQL parameter `param`) in at least `min` agents and at least half of them. For
 * such a phrase FTS5's bm25 floors the idf (log((N - n + 0.5) / (n + 0.5)) <= 0) to 1e-6, so it adds
 * less than WIDE_BOUND to any agent's relevance, yet its list is the longest to score and carry. The
 * first count stops at `min`, so a narrower phrase costs next to nothing more; the row count is
 * FTS5's own (one docsize row per indexed agent), the N of its idf.
 */
const wideSql = (param: string, min: number) => {
  if (!Number.isSafeInteger(min) || min < 1) throw new Error(`not a positive integer: ${min}`)
  return `(SELECT count(*) FROM (SELECT 1 FROM agents_fts WHERE agents_fts MATCH ${param} LIMIT ${min})) >= ${min}
      AND 2 * (SELECT count(*) FROM agents_fts WHERE agents_fts MATCH ${param}) >= (SELECT count(*) FROM agents_fts_docsize)`
}

/**
 * What a phrase whose idf FTS5 floors adds to an agent's relevance, at most: 1e-6 · F(k1 + 1) / (F +
 * k1(1 - b + b·D/avgdl)) < 1e-6 · (k1 + 1), with FTS5's k1 = 1.2 and b = 0.75 and every column
 * weight positive.
 */
export const WIDE_BOUND = 2.2e-6

/**
 * A phrase's relevance for just the agents `rowids` (rowid ascending; those it does not match left
 * out), equal to its full list's values there. The unary + keeps SQLite from handing the rowids to
 * FTS5 one by one (each would be a query of its own, idf counted again): the phrase's agents are
 * scanned once and only the asked ones scored.
 */
export function restrictedListQuery(db: D1Database, phrase: string, rowids: ArrayLike<number>): Query<PhraseList> {
  return {
    statement: db
      .prepare(
        `SELECT (WITH x AS MATERIALIZED (SELECT rowid AS r, -bm25(agents_fts, ${WORD_WEIGHTS}) AS s FROM agents_fts
                  WHERE agents_fts MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2)))
                ${groupedText}) AS l`,
      )
      .bind(phrase, JSON.stringify(Array.from(rowids))),
    read: ({ results }) => parseList((results[0] as { l: string | null } | undefined)?.l ?? null),
  }
}

/** The next `chunk` agents of a phrase's relevance list past rowid `after`. */
export function listChunkQuery(db: D1Database, phrase: string, after: number, chunk = LIST_CHUNK): Query<PhraseList> {
  return {
    statement: db.prepare(`SELECT ${relevanceList('?1', '?2', chunk)} AS l`).bind(phrase, after),
    read: ({ results }) => parseList((results[0] as { l: string | null } | undefined)?.l ?? null),
  }
}

/**
 * Agents to rank: [rowid, relevance] pairs, or (when there are too many to send) the FTS5 OR
 * expression whose bm25 gives the same relevance, with a floor.
 */
export type Candidates = { pairs: [number, number][]; parts?: boolean } | { match: string; minRel: number }

export interface RankedPage {
  rows: (ScoredAgent & { raw: number })[]
  /** Visible candidates in all (the page is a slice of them). */
  ranked: number
}

/**
 * Ranks candidate agents (rowid and relevance) for a viewer: visibility applied, popularity blended,
 * ordered as the search promises. Only the narrow rows are sorted; the wide columns are read for the
 * page alone.
 */
export function rankCandidatesQuery(db: D1Database, q: { viewer: Viewer; filter: VisibilityFilter; candidates: Candidates; limit: number; offset: number }): Query<RankedPage> {
  const vis = visibilityClause(q.filter, q.viewer)
  const c = q.candidates
  const source =
    'pairs' in c
      ? { sql: `c AS MATERIALIZED (SELECT j.value ->> 0 AS rid, j.value ->> 1 AS rel FROM json_each(?) j)`, binds: [JSON.stringify(c.pairs)] }
      : {
          sql: `s AS MATERIALIZED (SELECT rowid AS rid, -bm25(agents_fts, ${WORD_WEIGHTS}) AS rel FROM agents_fts WHERE agents_fts MATCH ?),
                c AS MATERIALIZED (SELECT rid, rel FROM s WHERE rel >= ?)`,
          binds: [c.match, c.minRel],
        }
  // With parts, the relevance part was computed in the Worker (hybrid search); else it is bm25's.
  const relevanceSql = 'pairs' in c && c.parts ? 'c.rel' : `${1 - POPULARITY_WEIGHT} * c.rel / (c.rel + ${SCORE_K})`
  const statement = db
    .prepare(
      `WITH ${source.sql},
       page AS MATERIALIZED (
         SELECT c.rid, ${relevanceSql} + ${POPULARITY_WEIGHT} * ${popularity} AS raw,
                a.executions AS executions, count(*) OVER () AS ranked
           FROM c JOIN agents a ON a.rowid = c.rid
          WHERE ${vis.sql}
          ORDER BY raw DESC, a.executions DESC, c.rid LIMIT ? OFFSET ?)
       SELECT ${AGENT_COLUMNS}, page.raw, page.ranked FROM page JOIN agents a ON a.rowid = page.rid
        ORDER BY page.raw DESC, page.executions DESC, page.rid`,
    )
    .bind(...source.binds, ...vis.binds, q.limit, q.offset)
  return {
    statement,
    read: ({ results }) => {
      const rows = (results as unknown as (ScoredAgent & { raw: number; ranked: number })[]).map(({ ranked: _r, ...row }) => ({
        ...row,
        score: Math.round(row.raw * 1e6) / 1e6,
      }))
      return { rows, ranked: (results[0]?.ranked as number | undefined) ?? 0 }
    },
  }
}
