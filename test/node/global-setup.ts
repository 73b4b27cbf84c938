/**
 * Starts the Worker once under `wrangler dev` (fresh local D1, migrations applied, the demo catalog
 * loaded) for the Node-side tests, and hands them its URL and a token through `inject('devServer')`.
 */
import type { TestProject } from 'vitest/node'
import { createBenchToken, startDevServer } from '../../scripts/lib/devserver.mjs'
import { buildSeed, renderSql } from '../../scripts/seed/build.mjs'
import agents from '../../scripts/seed/demo-agents.json'

declare module 'vitest' {
  export interface ProvidedContext {
    devServer: { url: string; token: string }
  }
}

export default async function setup(project: TestProject) {
  // Lexical search: embedding the demo catalog with the offline encoder would take minutes of CPU
  // while these tests run (test/hybrid-*.test.ts cover the encoder and hybrid ranking).
  const server = await startDevServer({ name: 'node-tests', sql: [renderSql(buildSeed(agents))], vars: { SEARCH_EMBEDDER: 'none' } })
  try {
    const { token } = await createBenchToken(server, 'node-tests')
    project.provide('devServer', { url: server.url, token })
  } catch (err) {
    await server.stop()
    throw err
  }
  return () => server.stop()
}
