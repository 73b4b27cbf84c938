import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { isLocalUrl } from '../../scripts/lib/admin-token.mjs'

const cli = resolve('scripts/admin.mjs')
let server: Server
let port: number
const seen: { url: string; authorization?: string }[] = []
let dir: string

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization })
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ status: 200, response: [] }))
  })
  // Dual-stack, so the IPv4-mapped and unspecified forms below reach it too.
  await new Promise<void>((r) => server.listen(0, '::', r))
  port = (server.address() as AddressInfo).port
})

afterAll(() => new Promise<void>((r) => server.close(() => r())))

afterEach(() => {
  seen.length = 0
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** A project folder with the given files, as the CLI reads .dev.vars and the deploy secrets from its working folder. */
function project(files: Record<string, string>) {
  dir = mkdtempSync(join(tmpdir(), 'admin-cli-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

function runCli(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { ADMIN_TOKEN: _drop, AGENT_API_URL: _drop2, ...rest } = process.env
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...rest, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (code) => done({ code, stdout, stderr }))
  })
}

const devVars = { '.dev.vars': 'ADMIN_TOKEN=local-dev-admin-token\nENCRYPTION_KEY=x\n' }

describe('the admin CLI sends the local admin token only to this machine', () => {
  it('sends the .dev.vars token to localhost, 127.0.0.0/8 and [::1]', async () => {
    const cwd = project(devVars)
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]']) {
      const r = await runCli(cwd, ['--url', `http://${host}:${port}`, 'accounts', 'list'])
      expect(r.stderr, host).toBe('')
      expect(r.code, host).toBe(0)
    }
    expect(seen.map((s) => s.authorization)).toEqual(Array(4).fill('Bearer local-dev-admin-token'))
  })

  it('refuses any other URL with nothing exported, even one that would reach a local server, and sends nothing', async () => {
    const cwd = project(devVars)
    for (const url of [`http://[::ffff:127.0.0.1]:${port}`, `http://0.0.0.0:${port}`, 'https://agent-action-api.example.workers.dev', `http://localhost@0.0.0.0:${port}`]) {
      const r = await runCli(cwd, ['--url', url, 'accounts', 'list'])
      expect(r.code, url).toBe(1)
      expect(r.stderr, url).toMatch(/export it/)
      expect(r.stderr, url).toContain('ADMIN_TOKEN')
      expect(r.stderr).not.toContain('local-dev-admin-token')
    }
    expect(seen).toEqual([])
  })

  it('sends an exported ADMIN_TOKEN wherever it is pointed', async () => {
    const cwd = project(devVars)
    const r = await runCli(cwd, ['--url', `http://[::ffff:127.0.0.1]:${port}`, 'accounts', 'list'], { ADMIN_TOKEN: 'exported-token' })
    expect(r.code).toBe(0)
    expect(seen).toEqual([{ url: '/v1/admin/accounts', authorization: 'Bearer exported-token' }])
  })

  it('sends the deploy secrets file token only to the Worker URL that file was written for', async () => {
    const worker = `http://[::ffff:127.0.0.1]:${port}`
    const cwd = project({ ...devVars, '.deploy-secrets.env': `WORKER_NAME=agent-action-api\nWORKER_URL=${worker}\nADMIN_TOKEN=deployed-admin-token\n` })
    expect((await runCli(cwd, ['--url', `${worker}/`, 'accounts', 'list'])).code).toBe(0)
    const other = await runCli(cwd, ['--url', `http://0.0.0.0:${port}`, 'accounts', 'list'])
    expect(other.code).toBe(1)
    expect(other.stderr).toContain(`.deploy-secrets.env holds the token of ${worker} only`)
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer deployed-admin-token'])
  })

  it('says how to get a token when a local URL has no .dev.vars either', async () => {
    const r = await runCli(project({}), ['--url', `http://127.0.0.1:${port}`, 'accounts', 'list'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/export it, or run `npm run dev` once/)
  })
})

describe('what counts as a local URL', () => {
  const octet = fc.integer({ min: 0, max: 255 })
  const junk = fc.constantFrom('', 'localhost', '127.0.0.1', '[::1]', 'localhost:80', '@localhost', '#@127.0.0.1')
  const userinfo = fc.oneof(
    fc.constant(''),
    junk.map((j) => `${encodeURIComponent(j) || 'u'}@`),
  )
  const tail = fc.tuple(junk, junk).map(([p, q]) => `/${encodeURIComponent(p)}?q=${encodeURIComponent(q)}`)

  it('accepts exactly localhost, 127.0.0.0/8 and [::1], whatever the user info, path or query say', () => {
    const local = fc.oneof(
      fc.constant('localhost'),
      fc.constant('[::1]'),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
    )
    const remote = fc.oneof(
      fc
        .tuple(octet, octet, octet, octet)
        .filter(([a]) => a !== 127)
        .map((o) => o.join('.')),
      fc.domain().filter((d) => d !== 'localhost' && !d.endsWith('.localhost')),
      fc.constantFrom('[::ffff:127.0.0.1]', '[::]', '[::2]', '0.0.0.0', 'localhost.example.com', '127.0.0.1.example.com', 'xn--localhost-'),
    )
    fc.assert(
      fc.property(fc.boolean(), local, remote, userinfo, tail, fc.constantFrom('http', 'https'), (pickLocal, l, r, u, t, scheme) => {
        const url = `${scheme}://${u}${pickLocal ? l : r}:8787${t}`
        expect(isLocalUrl(url)).toBe(pickLocal)
      }),
      { numRuns: 2000 },
    )
  })

  it('refuses non-http schemes and text that is not a URL', () => {
    for (const u of ['file://localhost/etc/passwd', 'ftp://127.0.0.1/', 'localhost:8787', '', 'javascript:alert(1)']) expect(isLocalUrl(u), u).toBe(false)
  })
})
