import { readFileSync } from 'node:fs'
import { describe, expect, inject, it } from 'vitest'
import { curlExamples, curlRequest, runExamples, shellCommands } from '../scripts/lib/readme-examples.mjs'

const { url, token } = inject('devServer')
const readme = readFileSync('README.md', 'utf8')

/** Examples that reach the internet (tests never do; a dry-run post still reads its link's card): parsed and checked, not sent. */
const NEEDS_INTERNET =
  /\/v1\/action\/(post_to_social|get_video_transcript|company_research_v2_run_full_research|company_research_v2_start_research|aeo_seo_research_generate_research_action|content_audit_generate_audit_action)$/
/** Examples whose documented answer is an error on a server without that setting. */
const DOCUMENTED_ERRORS: Record<string, { status: number; code: string }> = {
  '/v1/action/meeting_prep_v3_generate_meeting_sections': { status: 503, code: 'NOT_CONFIGURED' },
}

describe("the README's curl examples", () => {
  const examples = curlExamples(readme, { TOKEN: token })

  it('are all understood: a known URL, a token, and JSON bodies that parse', () => {
    expect(examples.length).toBeGreaterThan(20)
    for (const { line, request } of examples) {
      expect(request.url, `README.md:${line}`).toMatch(/^http:\/\/localhost:8787\//)
      expect(request.headers.authorization, `README.md:${line}`).toBe(`Bearer ${token}`)
      if (request.body !== undefined) expect(() => JSON.parse(request.body!), `README.md:${line} ${request.body}`).not.toThrow()
    }
  })

  it('answer as the README says when run in order against the dev server (those that need no internet)', async () => {
    // The research trio's status and report read the run the start call made, which needs the internet.
    const offline = examples.filter((e) => !NEEDS_INTERNET.test(new URL(e.request.url).pathname) && !/company_research_v2_get_(status|report)$/.test(e.request.url))
    expect(offline.length).toBeGreaterThanOrEqual(15)
    const results = await runExamples(offline, { base: url })
    for (const r of results) {
      const where = `README.md:${r.line} ${r.method} ${r.path}: ${JSON.stringify(r.body).slice(0, 300)}`
      const expected = DOCUMENTED_ERRORS[r.path]
      if (expected) {
        expect(r.status, where).toBe(expected.status)
        expect(r.body.code, where).toBe(expected.code)
      } else {
        expect([200, 202], where).toContain(r.status)
      }
    }
    // The workflow example: the queued lookup read back from its run carries the subject stored two steps before.
    const run = results.find((r) => r.path.startsWith('/v1/runs/'))
    expect(run?.body.response).toMatchObject({ state: 'succeeded', output: { identified_by: 'id', properties: { next_meeting: 'Meeting prep: Acme <> Globex quarterly review' } } })
  }, 120_000)
})

describe('reading shell text as the shell does', () => {
  it('joins continued lines, keeps single quotes literal, expands variables in double quotes and bare words, and drops comments', () => {
    const text = `curl -s http://x/y -H "Authorization: Bearer $TOKEN" \\\n  -d '{"a":"$TOKEN"}'   # a comment\nexport X=$(cat f) && echo \${TOKEN}`
    expect(shellCommands(text, { TOKEN: 't0k' })).toEqual([
      ['curl', '-s', 'http://x/y', '-H', 'Authorization: Bearer t0k', '-d', '{"a":"$TOKEN"}'],
      ['export', 'X=$(cat f)'],
      ['echo', 't0k'],
    ])
  })

  it('reads the \'"\'"$VAR"\'"\' splice an unset variable leaves empty', () => {
    const [words] = shellCommands(`curl http://x -d '{"password":"'"$BSKY_APP_PASSWORD"'"}'`, {})
    expect(curlRequest(words).body).toBe('{"password":""}')
  })

  it('refuses a curl option it does not know rather than sending something else', () => {
    expect(() => curlRequest(['curl', '--form', 'a=b', 'http://x'])).toThrow(/--form/)
  })
})
