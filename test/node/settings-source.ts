/**
 * What the source says about the Worker's settings, read with the TypeScript compiler: the members of
 * the `Env` interface (binding, var or secret), every `env.NAME` the code reads, and the fallback a
 * read site takes when the setting is unset (`env.X ?? 'a'`, `env.X?.trim() || DEFAULT_X`,
 * `int(env.X, 4)`, `const n = Number(env.X)` ... `? n : DEFAULT_N`), with constants followed through
 * relative imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import ts from 'typescript'

export type SettingKind = 'binding' | 'var' | 'secret'

/** One member of `interface Env`: string members are vars, or secrets when their JSDoc starts "Secret."; the rest are bindings. */
export interface EnvMember {
  name: string
  kind: SettingKind
  optional: boolean
}

/** One place the code reads `env.NAME` (also `c.env.NAME`, `ctx.env.NAME`). */
export interface SettingRead {
  name: string
  file: string
  line: number
  node: ts.PropertyAccessExpression
  source: ts.SourceFile
}

const sources = new Map<string, ts.SourceFile>()

function sourceFile(path: string): ts.SourceFile {
  const full = resolve(path)
  let sf = sources.get(full)
  if (!sf) {
    sf = ts.createSourceFile(full, readFileSync(full, 'utf8'), ts.ScriptTarget.Latest, true, full.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
    sources.set(full, sf)
  }
  return sf
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node)
  node.forEachChild((child) => walk(child, visit))
}

/** The members of `interface Env` in `path`. */
export function envMembers(path: string): EnvMember[] {
  const sf = sourceFile(path)
  const decl = sf.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Env')
  if (!decl) throw new Error(`no interface Env in ${path}`)
  return decl.members.filter(ts.isPropertySignature).map((m) => {
    const isString = m.type?.kind === ts.SyntaxKind.StringKeyword
    const secret = /^\s*\/\*\*[\s*]*Secret\./.test(m.getFullText(sf))
    return { name: m.name.getText(sf), kind: isString ? (secret ? 'secret' : 'var') : 'binding', optional: m.questionToken !== undefined }
  })
}

/** Every `env.NAME` (upper-case NAME) read under `dir`. */
export function settingReads(dir: string): SettingRead[] {
  const reads: SettingRead[] = []
  for (const file of sourceFiles(dir)) {
    const sf = sourceFile(file)
    walk(sf, (n) => {
      if (!ts.isPropertyAccessExpression(n) || !/^[A-Z][A-Z0-9_]*$/.test(n.name.text)) return
      if (!/(^|\.)env$/.test(n.expression.getText(sf))) return
      reads.push({ name: n.name.text, file, line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, node: n, source: sf })
    })
  }
  return reads
}

/** A literal a fallback evaluates to, or undefined when it is an expression of something else. */
export type Literal = string | number | boolean

/** The module a relative import names (`./x` -> `x.ts`, `x.tsx` or `x/index.ts`). */
function importedFile(from: ts.SourceFile, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = resolve(dirname(from.fileName), specifier)
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => statSync(p, { throwIfNoEntry: false })?.isFile())
}

/** The value of the module-level `const name = <literal>` in `sf`, or of the one it imports under that name. */
function constant(name: string, sf: ts.SourceFile): Literal | undefined {
  for (const s of sf.statements) {
    if (ts.isVariableStatement(s)) {
      const d = s.declarationList.declarations.find((d) => ts.isIdentifier(d.name) && d.name.text === name)
      if (d?.initializer) return literal(d.initializer, sf)
    }
    if (ts.isImportDeclaration(s) && s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings) && ts.isStringLiteral(s.moduleSpecifier)) {
      const spec = s.importClause.namedBindings.elements.find((e) => e.name.text === name)
      const file = spec && importedFile(sf, s.moduleSpecifier.text)
      if (spec && file) return constant((spec.propertyName ?? spec.name).text, sourceFile(file))
    }
  }
  return undefined
}

/** `expr` evaluated when it is a literal, a constant, or arithmetic on them. */
export function literal(expr: ts.Expression, sf: ts.SourceFile): Literal | undefined {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return expr.text
  if (ts.isNumericLiteral(expr)) return Number(expr.text.replace(/_/g, ''))
  if (expr.kind === ts.SyntaxKind.TrueKeyword) return true
  if (expr.kind === ts.SyntaxKind.FalseKeyword) return false
  if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr)) return literal(expr.expression, sf)
  if (ts.isIdentifier(expr)) return constant(expr.text, sf)
  if (ts.isBinaryExpression(expr)) {
    const [a, b] = [literal(expr.left, sf), literal(expr.right, sf)]
    if (typeof a !== 'number' || typeof b !== 'number') return undefined
    switch (expr.operatorToken.kind) {
      case ts.SyntaxKind.AsteriskToken:
        return a * b
      case ts.SyntaxKind.PlusToken:
        return a + b
      case ts.SyntaxKind.MinusToken:
        return a - b
    }
  }
  return undefined
}

/** The function (or file) around `node`. */
function enclosingScope(node: ts.Node): ts.Node {
  let n = node.parent
  while (n && !ts.isFunctionLike(n) && !ts.isSourceFile(n)) n = n.parent
  return n
}

/**
 * The expression a read site falls back to when the setting is unset, or undefined when it has none
 * that this reader recognises (a test such as `env.X === 'none'`, or a read used as it is).
 */
export function fallbackOf(read: SettingRead): ts.Expression | undefined {
  let e: ts.Expression = read.node
  for (;;) {
    const p: ts.Node = e.parent
    // env.X?.trim(), env.X.toLowerCase(): a method called on the value.
    if (ts.isPropertyAccessExpression(p) && p.expression === e && ts.isCallExpression(p.parent) && p.parent.expression === p) e = p.parent
    else if (ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p)) e = p
    else if (ts.isCallExpression(p) && p.arguments[0] === e) {
      // int(env.X, 20), baseUrl(env.X, 'https://...'): a literal second argument is the fallback.
      if (p.arguments.length >= 2) return literal(p.arguments[1], read.source) === undefined ? undefined : p.arguments[1]
      // nonEmpty(env.X), Number(env.X): the value still, transformed.
      e = p
    } else if (ts.isBinaryExpression(p) && p.left === e && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(p.operatorToken.kind)) return p.right
    else if (ts.isVariableDeclaration(p) && p.initializer === e && ts.isIdentifier(p.name)) {
      // const n = Number(env.X); return ok(n) ? n : FALLBACK
      const name = p.name.text
      let found: ts.Expression | undefined
      walk(enclosingScope(p), (n) => {
        if (!found && ts.isConditionalExpression(n) && mentions(n.condition, name)) found = n.whenFalse
      })
      return found
    } else return undefined
  }
}

function mentions(node: ts.Node, name: string): boolean {
  let hit = false
  walk(node, (n) => (hit ||= ts.isIdentifier(n) && n.text === name))
  return hit
}
