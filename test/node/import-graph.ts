/**
 * The import graph of a TypeScript tree, read with the compiler's own pre-processor (imports,
 * re-exports, type-only imports and dynamic `import()` alike), and its cycles. A type-only import
 * counts: it is a dependency a reader has to follow, and it is how runtime cycles start.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/** Module -> the modules it imports, both as paths relative to the root. */
export type ImportGraph = Map<string, string[]>

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return tsFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The file a relative specifier names (`./x` -> `x.ts` or `x/index.ts`), or null for packages and assets. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) if (candidate.endsWith('.ts') && isFile(candidate)) return candidate
  return null
}

/** The import graph of every `.ts` file under `root`. */
export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map()
  for (const file of tsFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles.map((i) => resolveSpecifier(file, i.fileName)).filter((t): t is string => t !== null)
    graph.set(relative(root, file), [...new Set(targets.map((t) => relative(root, t)))])
  }
  return graph
}

/**
 * The cycles of a graph: its strongly connected components of more than one module, and modules
 * that import themselves (Tarjan's algorithm), each sorted, largest first.
 */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return cycles.sort((a, b) => b.length - a.length)
}
