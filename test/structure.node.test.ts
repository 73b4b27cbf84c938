import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { importCycles, importGraph, type ImportGraph } from './node/import-graph'

/** Folders of the product's domains: providers (outbound clients) sit below them and import none. */
const DOMAIN_FOLDERS = ['actions', 'agents', 'audit', 'crawler', 'crm', 'interfaces', 'research', 'seo']

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'import-graph-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('the import graph', () => {
  it('finds a cycle through a type-only import, a re-export and an index module', () => {
    const root = tree({
      'a.ts': "import type { B } from './b'\nexport type A = B",
      'b.ts': "export * from './c'\nexport type B = string",
      'c/index.ts': "import { x } from '../a'\nexport const y = x",
      'd.ts': "import { y } from './c'\nimport { z } from 'zod'\nexport const d = [y, z]",
    })
    expect(importCycles(importGraph(root))).toEqual([['a.ts', 'b.ts', 'c/index.ts']])
  })

  it('finds a module that imports itself and no cycle in a chain', () => {
    const graph: ImportGraph = new Map([
      ['self.ts', ['self.ts']],
      ['a.ts', ['b.ts']],
      ['b.ts', []],
    ])
    expect(importCycles(graph)).toEqual([['self.ts']])
  })

  it('has no cycle in src/: imports run one way', () => {
    expect(importCycles(importGraph('src'))).toEqual([])
  })

  it('has providers that import no domain folder', () => {
    const wrong = [...importGraph('src')]
      .filter(([file]) => file.startsWith('providers/'))
      .flatMap(([file, targets]) => targets.filter((t) => DOMAIN_FOLDERS.includes(t.split('/')[0])).map((t) => `${file} -> ${t}`))
    expect(wrong).toEqual([])
  })
})
