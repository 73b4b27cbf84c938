import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'

describe('the Worker bundle', () => {
  it('stays at most 1 MiB gzipped with its WebAssembly, the search encoder weights left out (they are static assets)', () => {
    const out = mkdtempSync(join(tmpdir(), 'bundle-'))
    try {
      const r = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', out], { encoding: 'utf8', env: { ...process.env, CI: 'true' } })
      expect(r.status, r.stderr).toBe(0)
      // Every module uploaded: the JavaScript and the WASM backend's binary.
      const js = readdirSync(out).filter((f) => /\.(m?js|wasm)$/.test(f))
      expect(js.some((f) => f.endsWith('.wasm'))).toBe(true)
      const gz = js.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0)
      expect(gz).toBeGreaterThan(0)
      expect(gz).toBeLessThanOrEqual(2 ** 20)
      // The weights (7 MB) are not inlined: no file of the upload comes near their size.
      // (Source maps stay local: wrangler uploads them only with upload_source_maps, which is off.)
      for (const f of readdirSync(out).filter((name) => !name.endsWith('.map'))) expect(readFileSync(join(out, f)).length, f).toBeLessThan(6 * 2 ** 20)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 180_000)
})
