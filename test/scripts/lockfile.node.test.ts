import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { lockEntry, missingOptionalEntries, withEntries } from '../../scripts/lib/lockfile.mjs'

const platformBuilds = { 'bin-darwin': '1.0.0', 'bin-linux': '1.0.0' }

describe('optional platform builds in package-lock.json', () => {
  it('lists every optional dependency of the committed lockfile, so npm ci accepts it on any platform', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
    expect(missingOptionalEntries(lock)).toEqual([])
  })

  it('finds a platform build the registry did not have and hoists it to the top when nothing is in the way', () => {
    const lock = {
      packages: {
        '': { name: 'app' },
        'node_modules/bin': { version: '1.0.0', optionalDependencies: platformBuilds },
        'node_modules/bin-linux': { version: '1.0.0', optional: true },
      },
    }
    expect(missingOptionalEntries(lock)).toEqual([{ name: 'bin-darwin', version: '1.0.0', location: 'node_modules/bin-darwin', from: 'node_modules/bin' }])
  })

  it('nests the build of a nested copy below a top-level build of another version, as npm does', () => {
    const lock = {
      packages: {
        '': { name: 'app' },
        'node_modules/bin': { version: '1.0.0', optionalDependencies: platformBuilds },
        'node_modules/bin-linux': { version: '1.0.0' },
        'node_modules/tool/node_modules/bin': { version: '2.0.0', optionalDependencies: { 'bin-darwin': '2.0.0', 'bin-linux': '2.0.0' } },
        'node_modules/tool/node_modules/bin-linux': { version: '2.0.0' },
      },
    }
    expect(missingOptionalEntries(lock).map((m) => [m.location, m.version])).toEqual([
      ['node_modules/bin-darwin', '1.0.0'],
      ['node_modules/tool/node_modules/bin-darwin', '2.0.0'],
    ])
  })

  it('leaves ranges alone: only pinned versions can be written without asking npm to resolve them', () => {
    const lock = { packages: { '': {}, 'node_modules/a': { version: '1.0.0', optionalDependencies: { b: '^1.0.0' } } } }
    expect(missingOptionalEntries(lock)).toEqual([])
  })

  it('writes entries as npm does and keeps the keys sorted', () => {
    const entry = lockEntry('1.0.0', { os: ['darwin'], cpu: ['arm64'], license: 'MIT', engines: { node: '>=16' } }, { dev: true, integrity: undefined })
    expect(entry).toEqual({ version: '1.0.0', cpu: ['arm64'], dev: true, license: 'MIT', optional: true, os: ['darwin'], engines: { node: '>=16' } })
    const lock = withEntries({ lockfileVersion: 3, packages: { '': {}, 'node_modules/z': {}, 'node_modules/a': {} } }, { 'node_modules/m': entry })
    expect(Object.keys(lock.packages)).toEqual(['', 'node_modules/a', 'node_modules/m', 'node_modules/z'])
  })
})
