import { env } from 'cloudflare:test'
import agents from '../scripts/seed/demo-agents.json'
import { buildSeed, SEED_ACCOUNTS, SEED_TEAMS } from '../scripts/seed/build.mjs'

export { agents as demoAgents, SEED_ACCOUNTS, SEED_TEAMS }

/** Loads the demo catalog (the one `npm run dev` seeds) into the test D1. */
export async function seedDemoCatalog(): Promise<void> {
  const statements = buildSeed(agents)
  for (let i = 0; i < statements.length; i += 50) {
    await env.DB.batch(statements.slice(i, i + 50).map((s: { sql: string; params: unknown[] }) => env.DB.prepare(s.sql).bind(...s.params)))
  }
}
