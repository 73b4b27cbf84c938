/**
 * Pieces shared by the report pages. Everything here reads report data defensively (a field may be
 * missing, of another type, or new) and renders caller-controlled text only as JSX children or
 * attribute values, which hono/jsx escapes; nothing is ever passed as raw HTML.
 */
import type { Child } from 'hono/jsx'
import { cutChars } from '../lib/text'

type Json = unknown

export const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v)
export const arr = (v: Json): Json[] => (Array.isArray(v) ? v : [])
export const str = (v: Json): string | null => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null)
export const num = (v: Json): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** The URL when it is an absolute http(s) URL, else null: only those become links. */
export function httpUrl(v: Json): string | null {
  if (typeof v !== 'string' || v.length > 4096) return null
  try {
    const u = new URL(v)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null
  } catch {
    return null
  }
}

/** A link to a page of an audited or researched site: http(s) only, never followed with our referrer or credit. */
export function ExternalLink({ href, children }: { href: Json; children?: Child }) {
  const url = httpUrl(href)
  const label = children ?? (typeof href === 'string' ? href : '')
  if (!url) return <span class="url">{label}</span>
  return (
    <a href={url} rel="noopener noreferrer nofollow" target="_blank" class="url">
      {label}
    </a>
  )
}

/** "2026-03-01T10:00:00.000Z" as "2026-03-01 10:00 UTC"; anything else as given. */
export function when(v: Json): string {
  const s = str(v)
  if (!s) return '—'
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? s : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

const label = (key: string) => key.replace(/_/g, ' ')

/**
 * Any JSON value as HTML: objects as definition lists, arrays of objects as tables, URLs as safe links.
 * Used for report fields this page has no special view for, so new fields still show.
 */
export function Value({ value, depth = 0 }: { value: Json; depth?: number }): Child {
  if (value === null || value === undefined) return <span class="muted">—</span>
  if (typeof value === 'string') return httpUrl(value) ? <ExternalLink href={value} /> : <span class="text">{value.length > 2000 ? `${cutChars(value, 2000)}…` : value}</span>
  if (typeof value !== 'object') return <span>{String(value)}</span>
  if (depth >= 4) return <code>{cutChars(JSON.stringify(value), 300)}</code>
  if (Array.isArray(value)) {
    if (!value.length) return <span class="muted">none</span>
    const shown = value.slice(0, 100)
    const rest = value.length - shown.length
    if (shown.every(isObject)) {
      const keys = [...new Set(shown.flatMap((o) => Object.keys(o as object)))].slice(0, 8)
      return (
        <div class="scroll">
          <table>
            <TableHead columns={keys.map(label)} />
            <tbody>
              {shown.map((o) => (
                <tr>
                  {keys.map((k) => (
                    <td>
                      <Value value={(o as Record<string, Json>)[k]} depth={depth + 1} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {rest > 0 ? <p class="muted">… and {rest} more</p> : null}
        </div>
      )
    }
    return (
      <ul class="values">
        {shown.map((v) => (
          <li>
            <Value value={v} depth={depth + 1} />
          </li>
        ))}
        {rest > 0 ? <li class="muted">… and {rest} more</li> : null}
      </ul>
    )
  }
  const entries = Object.entries(value as Record<string, Json>)
  if (!entries.length) return <span class="muted">none</span>
  return (
    <dl class="values">
      {entries.slice(0, 60).map(([k, v]) => (
        <div>
          <dt>{label(k)}</dt>
          <dd>
            <Value value={v} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  )
}

/** A status word as a coloured badge (the colour is decoration; the word carries the meaning). */
export function Badge({ kind, children }: { kind: string; children?: Child }) {
  return <span class={`badge badge-${kind.replace(/[^a-z0-9-]/gi, '').toLowerCase() || 'other'}`}>{children ?? kind}</span>
}

/** A table's header row of column names. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col">{c}</th>
        ))}
      </tr>
    </thead>
  )
}

/**
 * The `<head>` of the console and the report pages: the shared same-origin stylesheet and one
 * same-origin script (CSP default-src 'self'), and no referrer for links out of the page.
 */
export function PageHead({ title, script }: { title: string; script: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <title>{title}</title>
      <link rel="stylesheet" href="/console/assets/app.css" />
      <script src={script} defer></script>
    </head>
  )
}

/** The page around a report: same-origin stylesheet and script only (CSP default-src 'self'). */
export function ReportLayout({ title, children }: { title: string; children?: Child }) {
  return (
    <html lang="en">
      <PageHead title={title} script="/console/assets/report.js" />
      <body class="report">
        <header class="top">
          <a href="/console" class="brand">
            Agent Action API console
          </a>
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  )
}
