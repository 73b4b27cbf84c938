/**
 * The company research report as a page: every section of the run's JSON report with its status,
 * sources and fetch time; the timeline and screenshot artifacts shown as images.
 */
import { arr, Badge, ExternalLink, isObject, str, Value, when } from './view'

type Json = Record<string, unknown>

/** Sections whose data points at a stored image (`artifact_id`). */
export const IMAGE_SECTIONS = ['visual_timeline', 'homepage_screenshot'] as const

/** The artifact ids a report's image sections point at, to load them for the page. */
export function artifactIds(report: Json): string[] {
  const sections = isObject(report.sections) ? report.sections : {}
  const ids: string[] = []
  for (const name of IMAGE_SECTIONS) {
    const s = sections[name]
    if (isObject(s) && isObject(s.data) && typeof s.data.artifact_id === 'string') ids.push(s.data.artifact_id)
  }
  return ids
}

const title = (name: string) => name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())

function Section({ name, section, images }: { name: string; section: Json; images: Map<string, string> }) {
  const status = str(section.status) ?? 'unknown'
  const data = section.data
  const sources = arr(section.sources)
  const artifact = isObject(data) && typeof data.artifact_id === 'string' ? data.artifact_id : null
  const image = artifact ? images.get(artifact) : undefined
  const rest = isObject(data) && artifact ? Object.fromEntries(Object.entries(data).filter(([k]) => !['url', 'artifact_id', 'content_type'].includes(k))) : data
  return (
    <section class="card" id={`section-${name}`} aria-labelledby={`h-${name}`} data-status={status}>
      <h2 id={`h-${name}`}>
        {title(name)} <Badge kind={status} />
      </h2>
      <p class="muted">
        Fetched {when(section.fetched_at)}
        {typeof section.duration_ms === 'number' ? ` in ${section.duration_ms} ms` : ''}
        {section.cached === true ? ' (from the cache)' : ''}
      </p>
      {str(section.note) ? <p class={status === 'ok' ? 'note' : 'why'}>{str(section.note)}</p> : null}
      {artifact ? (
        image ? (
          <img src={image} alt={name === 'visual_timeline' ? 'Timeline of the company milestones' : 'Screenshot of the company homepage'} class={`artifact artifact-${name}`} />
        ) : (
          <p class="why">The stored image has expired or is not available to this account.</p>
        )
      ) : null}
      {status === 'ok' && rest !== null && rest !== undefined ? <Value value={rest} /> : null}
      {sources.length ? (
        <details open={sources.length <= 5}>
          <summary>Sources ({String(sources.length)})</summary>
          <ul class="values">
            {sources.map((s) => (
              <li>
                <ExternalLink href={s} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  )
}

/** The body of a company research report page. */
export function ResearchReport({ report, runId, images }: { report: Json; runId: string; images: Map<string, string> }) {
  const sections = isObject(report.sections) ? report.sections : {}
  const entries = Object.entries(sections).filter((e): e is [string, Json] => isObject(e[1]))
  const byStatus = (s: string) => entries.filter(([, v]) => v.status === s)
  const notOk = entries.filter(([, v]) => v.status !== 'ok')
  return (
    <div>
      <section aria-labelledby="title">
        <h1 id="title">Company research: {str(report.domain) ?? ''}</h1>
        <p class="muted">
          Run <code>{runId}</code> · generated {when(report.generated_at)} · {String(byStatus('ok').length)} sections with data, {String(byStatus('unavailable').length)} unavailable,{' '}
          {String(byStatus('error').length)} failed
        </p>
      </section>
      {notOk.length ? (
        <section aria-labelledby="missing-h" id="unavailable">
          <h2 id="missing-h">Sections without data</h2>
          <ul class="checks">
            {notOk.map(([name, v]) => (
              <li>
                <Badge kind={str(v.status) ?? 'unknown'} /> <a href={`#section-${name}`}>{title(name)}</a>: {str(v.note) ?? 'no reason given'}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {entries.map(([name, v]) => (
        <Section name={name} section={v} images={images} />
      ))}
    </div>
  )
}
