import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { fakeDnsAnswer, TEST_DOH_URL } from './test/fake-dns'

/**
 * Two projects, one `npm test`: `worker` runs the suite inside workerd (miniflare); `node` runs the
 * few tests that need Node (an OpenAPI validator that compiles code, Chromium, the MCP SDK client)
 * against the Worker under `wrangler dev`, started once by test/node/global-setup.ts.
 */
export default defineConfig(async () => {
  const migrations = await readD1Migrations('./migrations')
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: './wrangler.toml' },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ADMIN_TOKEN: 'test-admin-token-0123456789',
                  ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
                  WEBHOOK_SIGNING_SECRET: 'test-webhook-secret',
                  QUEUE_RETRY_BASE_SECONDS: '0',
                  QUEUE_WAIT_DEFAULT_SECONDS: '10',
                  // Outbound host names are resolved (the SSRF check) by the fake resolver below.
                  OUTBOUND_DOH_URL: TEST_DOH_URL,
                  // The offline encoder costs seconds of CPU per catalog: only the search tests that
                  // are about it turn it on (with an env of their own), so other files stay lexical.
                  SEARCH_EMBEDDER: 'none',
                },
                // Tests never touch the internet: anything that reaches here, but DNS queries to the
                // fake resolver, was not mocked by a test.
                outboundService: (request: Request) =>
                  fakeDnsAnswer(request) ?? new Response(`unmocked outbound request: ${request.method} ${request.url}`, { status: 599, headers: { 'x-unmocked': '1' } }),
              },
            }),
          ],
          test: {
            name: 'worker',
            include: ['test/**/*.test.ts'],
            exclude: ['test/**/*.node.test.ts'],
            setupFiles: ['./test/setup.ts'],
            testTimeout: 30_000,
            hookTimeout: 30_000,
          },
        },
        {
          test: {
            name: 'node',
            environment: 'node',
            include: ['test/**/*.node.test.ts'],
            globalSetup: ['./test/node/global-setup.ts'],
            testTimeout: 60_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  }
})
