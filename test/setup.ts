import { applyD1Migrations, env } from 'cloudflare:test'
import { afterAll, expect } from 'vitest'
import { captureLogs, scanStorage } from './secret-scan'

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS)
captureLogs()

// Every test file's storage and logs are searched for every secret its tests handed to the Worker.
afterAll(async () => {
  const file = (expect.getState().testPath ?? 'unknown file').replace(/^.*\/test\//, 'test/')
  const r = await scanStorage()
  console.info(`secret scan: ${file}: ${r.secrets} secrets in ${r.tables} D1 tables (${r.rows} rows), ${r.kvKeys} KV keys, ${r.logLines} log lines; ${r.found.length} found`)
  expect(r.problems, 'the secret scan could not be trusted').toEqual([])
  expect(r.found, `secrets stored or logged in plain text by ${file}`).toEqual([])
}, 120_000)
