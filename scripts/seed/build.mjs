/**
 * Builds the demo data set (accounts, teams, the agent catalog and its reviews) as SQL statements
 * with parameters. Used by `npm run dev` (rendered to a SQL file for wrangler) and by the tests
 * (bound with D1 prepare/bind), so both see the same catalog.
 */

export const SEED_ACCOUNTS = {
  catalog: { id: 'acc_catalog', name: 'Agent Catalog' },
  demo: { id: 'acc_demo', name: 'Demo Account' },
  acme: { id: 'acc_acme', name: 'Acme Corp' },
}

export const SEED_TEAMS = {
  'demo-growth': { id: 'team_demogrowth', name: 'demo-growth', members: ['demo'] },
  'acme-sales': { id: 'team_acmesales', name: 'acme-sales', members: ['acme'] },
}

const REVIEWERS = 12
const reviewerId = (i) => `acc_seedreviewer${String(i + 1).padStart(2, '0')}`

/**
 * Same text as parameterText() in src/agents/schema.ts (the search index's parameter column);
 * test/seed.test.ts checks the two agree for every seeded agent.
 */
export function parameterText(parameters) {
  return Object.entries(parameters.properties ?? {})
    .map(([name, p]) => [name.replace(/_/g, ' '), p.description, ...(p.enum ?? [])].filter(Boolean).join(' '))
    .join('\n')
}

/** The statements that load the demo data; every one is idempotent (INSERT OR IGNORE). */
export function buildSeed(agents, now = Date.parse('2026-11-01T00:00:00Z')) {
  const out = []
  const add = (sql, params) => out.push({ sql, params })
  for (const a of Object.values(SEED_ACCOUNTS)) {
    add('INSERT OR IGNORE INTO accounts (id, name, created_at) VALUES (?, ?, ?)', [a.id, a.name, now])
  }
  for (let i = 0; i < REVIEWERS; i++) {
    add('INSERT OR IGNORE INTO accounts (id, name, created_at) VALUES (?, ?, ?)', [reviewerId(i), `Seed reviewer ${i + 1}`, now])
  }
  for (const t of Object.values(SEED_TEAMS)) {
    add('INSERT OR IGNORE INTO teams (id, name, created_at) VALUES (?, ?, ?)', [t.id, t.name, now])
    for (const m of t.members) {
      add('INSERT OR IGNORE INTO team_members (team_id, account_id, role, created_at) VALUES (?, ?, ?, ?)', [t.id, SEED_ACCOUNTS[m].id, 'member', now])
    }
  }
  for (const a of agents) {
    const owner = SEED_ACCOUNTS[a.owner]
    if (!owner) throw new Error(`agent ${a.id}: unknown owner ${a.owner}`)
    const team = a.team ? SEED_TEAMS[a.team] : null
    if (a.team && !team) throw new Error(`agent ${a.id}: unknown team ${a.team}`)
    add(
      `INSERT OR IGNORE INTO agents (id, slug, icon, name, description, visibility, owner_account_id, team_id, type, executions, parameters, workflow, param_text, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'studio', ?, ?, ?, ?, ?, ?)`,
      [
        a.id, a.slug, a.icon, a.name, a.description, a.visibility, owner.id, team ? team.id : null, a.executions,
        JSON.stringify(a.parameters), JSON.stringify(a.workflow), parameterText(a.parameters), Date.parse(a.created_at), Date.parse(a.updated_at),
      ],
    )
    a.reviews.slice(0, REVIEWERS).forEach((rating, i) => {
      add('INSERT OR IGNORE INTO agent_reviews (agent_id, account_id, rating, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [a.id, reviewerId(i), rating, now, now])
    })
  }
  // The instance's own catalog is trusted: its agents use a caller's CRM and model keys without a grant
  // (as PUT /v1/admin/agents/:id/trusted would mark them). The demo and Acme accounts' agents are not.
  add('UPDATE agents SET trusted = 1 WHERE owner_account_id = ? AND trusted = 0', [SEED_ACCOUNTS.catalog.id])
  return out
}

/** Renders statements as one SQL script with literal values (for `wrangler d1 execute --file`). */
export function renderSql(statements) {
  const literal = (v) => {
    if (v === null || v === undefined) return 'NULL'
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL'
    return `'${String(v).replace(/'/g, "''")}'`
  }
  return statements
    .map(({ sql, params }) => {
      let i = 0
      return sql.replace(/\?/g, () => literal(params[i++])).replace(/\s+/g, ' ').trim() + ';'
    })
    .join('\n')
}
