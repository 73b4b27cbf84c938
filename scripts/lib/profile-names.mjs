/**
 * Names for the call frames of a DevTools CPU profile, from the source maps the inspector reported
 * (profile:search, which samples the Worker under wrangler dev).
 */
import { readFileSync } from 'node:fs'
import { SourceMapConsumer } from 'source-map-js'

/**
 * Names a profile's call frame "function source:line": frames of a script with a source map on disk
 * (the Worker's bundle) by the map, others (workerd's own modules) by their URL's last part.
 */
export function frameNamer(scripts) {
  const maps = new Map()
  for (const { scriptId, url, sourceMapURL } of scripts) {
    if (!sourceMapURL || !url.startsWith('file:')) continue
    try {
      maps.set(scriptId, new SourceMapConsumer(JSON.parse(readFileSync(new URL(sourceMapURL, url), 'utf8'))))
    } catch {
      // No map to read (an inline data: map, say): that script keeps its bundle names.
    }
  }
  return ({ scriptId, functionName, url, lineNumber, columnNumber }) => {
    const map = maps.get(scriptId)
    const at = map?.originalPositionFor({ line: lineNumber + 1, column: columnNumber })
    if (!at?.source) return url ? `${functionName || '(anonymous)'} ${url.split('/').pop()}${lineNumber >= 0 ? `:${lineNumber + 1}` : ''}` : functionName || '(anonymous)'
    const source = at.source.replace(/^(\.\.\/)+/, '').replace(/^.*?\/(src|node_modules)\//, '$1/')
    return `${at.name || functionName || '(anonymous)'} ${source}:${at.line}`
  }
}

/**
 * The part of the Worker a named frame (frameNamer's "function source:line") belongs to: its source
 * folder (`src/agents`), its package (`hono`), one of V8's own entries ("(idle)", "(program)",
 * "(garbage collector)"), or "workerd built-ins" for frames without a source.
 */
export function areaOf(name) {
  if (/^\((idle|program|garbage collector)\)$/.test(name)) return name
  const at = / (src\/[^/:]+|node_modules\/(?:@[^/]+\/)?[^/:]+)[/:]/.exec(name)
  if (!at) return 'workerd built-ins'
  return at[1].startsWith('src/') ? at[1].replace(/\.[a-z]+$/, '') : at[1].slice('node_modules/'.length)
}
