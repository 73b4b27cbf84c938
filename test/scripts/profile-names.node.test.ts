import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { areaOf, frameNamer, type CallFrame, type ParsedScript } from '../../scripts/lib/profile-names.mjs'

/** A minified bundle, with its source map beside it, of one module whose hot function is on line 3. */
function bundle(dir: string): string {
  mkdirSync(join(dir, 'src'))
  writeFileSync(
    join(dir, 'src', 'busy.ts'),
    [
      '// A function the profiler is sure to catch.',
      'export function sumOfSquaresUpTo(n: number): number {',
      '  let sum = 0',
      '  for (let i = 0; i < n; i++) sum += (i * i) % 7',
      '  return sum',
      '}',
      '',
    ].join('\n'),
  )
  const out = join(dir, 'out', 'index.cjs')
  buildSync({ entryPoints: [join(dir, 'src', 'busy.ts')], bundle: true, minify: true, sourcemap: true, format: 'cjs', platform: 'node', outfile: out, logLevel: 'silent' })
  return out
}

describe("profile:search's frame names", () => {
  it("names a minified function's profile frames by the script's source map, as the inspector reports both", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'profile-names-'))
    const session = new Session()
    session.connect()
    try {
      const file = bundle(dir)
      const scripts: ParsedScript[] = []
      session.on('Debugger.scriptParsed', (m) => scripts.push(m.params))
      await session.post('Debugger.enable')
      const { sumOfSquaresUpTo } = createRequire(import.meta.url)(file) as { sumOfSquaresUpTo: (n: number) => number }
      await session.post('Debugger.disable')
      expect(sumOfSquaresUpTo.name).not.toBe('sumOfSquaresUpTo')
      await session.post('Profiler.enable')
      await session.post('Profiler.setSamplingInterval', { interval: 100 })
      await session.post('Profiler.start')
      const end = Date.now() + 300
      while (Date.now() < end) sumOfSquaresUpTo(1e5)
      const { profile } = await session.post('Profiler.stop')
      const nameOf = frameNamer(scripts)
      const frames = profile.nodes.map((n) => n.callFrame as CallFrame).filter((f) => f.url.endsWith('/out/index.cjs') && f.functionName === sumOfSquaresUpTo.name)
      expect(frames.length).toBeGreaterThan(0)
      for (const f of frames) expect(nameOf(f)).toBe('sumOfSquaresUpTo src/busy.ts:2')
      // Frames of scripts without a map keep their own names, with the script's last path part.
      expect(nameOf({ scriptId: 'none', functionName: 'toJson', url: 'cloudflare-internal:d1-api', lineNumber: 611, columnNumber: 3 })).toBe('toJson cloudflare-internal:d1-api:612')
      expect(nameOf({ scriptId: '0', functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 })).toBe('(idle)')
    } finally {
      session.disconnect()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('puts a named frame in its source folder, its package, or V8 and workerd', () => {
    expect(areaOf('sumLists src/agents/relevance.ts:211')).toBe('src/agents')
    expect(areaOf('loadConfig src/config.ts:3')).toBe('src/config')
    expect(areaOf('dispatch node_modules/hono/dist/compose.js:24')).toBe('hono')
    expect(areaOf('generateText node_modules/@ai-sdk/openai/dist/index.mjs:9')).toBe('@ai-sdk/openai')
    expect(areaOf('(garbage collector)')).toBe('(garbage collector)')
    expect(areaOf('toJson cloudflare-internal:d1-api:612')).toBe('workerd built-ins')
    expect(areaOf('(anonymous)')).toBe('workerd built-ins')
  })
})
