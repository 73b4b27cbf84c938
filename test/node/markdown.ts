/**
 * Just enough Markdown for checking the README's reference tables: sections by heading, table rows
 * as cells, and the `code spans` of a text.
 */

/** The text under the heading `heading` (e.g. `## Settings`), up to the next heading of that level or above. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n')
  const start = lines.findIndex((l) => l.trim() === heading)
  if (start < 0) throw new Error(`no "${heading}" heading`)
  const level = heading.indexOf(' ')
  let fenced = false
  const end = lines.findIndex((l, i) => {
    if (l.startsWith('```')) fenced = !fenced
    // A `# comment` in a fenced shell block is no heading.
    return i > start && !fenced && /^#+ /.test(l) && l.indexOf(' ') <= level
  })
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n')
}

/** A table line's cells, split on `|` outside code spans (`{a | b}` stays one cell). */
export function cells(line: string): string[] {
  const out: string[] = []
  let cell = ''
  let inCode = false
  for (const ch of line.trim().replace(/^\|/, '').replace(/\|$/, '')) {
    if (ch === '`') inCode = !inCode
    if (ch === '|' && !inCode) {
      out.push(cell.trim())
      cell = ''
    } else cell += ch
  }
  out.push(cell.trim())
  return out
}

/** The body rows of the first table in `text` (header and `|---|` line left out), as cells. */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.startsWith('|'))
  if (start < 0) throw new Error('no table')
  const rows: string[][] = []
  for (let i = start + 2; i < lines.length && lines[i].startsWith('|'); i++) rows.push(cells(lines[i]))
  return rows
}

/** The contents of the `code spans` in `text`, in order. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1])
}
