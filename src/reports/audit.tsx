/**
 * The content audit as a page: the run's JSON report (src/audit/build.ts), read field by field with
 * fallbacks, so an audit with more (or fewer) fields than this page knows still renders.
 */
import { BarChart, bucketCounts, Gauge, SCORE_BUCKETS } from './charts'
import { arr, Badge, ExternalLink, isObject, num, str, Value, when, TableHead } from './view'

type Json = Record<string, unknown>

/** Top-level fields this page shows in a view of their own; any other field is listed under "More". */
const KNOWN = new Set([
  'website_url',
  'audit_scope',
  'optimization_focus',
  'scope',
  'summary',
  'scores',
  'site_checks',
  'action_plan',
  'priority_formula',
  'keyword_cannibalization',
  'content_gaps',
  'inventory',
  'generated_at',
])

const PRIORITY_ORDER: Record<string, number> = { high: 0, medium: 1, low: 2 }

/** Plan items by priority score (then priority word, then rank), whatever order they arrived in. */
export function sortPlan(items: Json[]): Json[] {
  return [...items].sort(
    (a, b) =>
      (num(b.priority_score) ?? -1) - (num(a.priority_score) ?? -1) ||
      (PRIORITY_ORDER[str(a.priority) ?? ''] ?? 3) - (PRIORITY_ORDER[str(b.priority) ?? ''] ?? 3) ||
      (num(a.rank) ?? 0) - (num(b.rank) ?? 0),
  )
}

function Summary({ summary }: { summary: Json }) {
  const issues = isObject(summary.issues) ? summary.issues : {}
  const rows: [string, unknown][] = [
    ['URLs crawled', summary.urls_crawled],
    ['HTML pages', summary.html_pages],
    ['Error pages', summary.error_pages],
    ['Redirects', summary.redirects],
    ['Blocked by robots.txt', summary.blocked_by_robots],
    ['Not crawled (page cap)', summary.not_crawled_page_cap],
    ['Average response', num(summary.average_response_ms) === null ? null : `${summary.average_response_ms} ms`],
    ['Issues', `${num(issues.error) ?? 0} errors, ${num(issues.warning) ?? 0} warnings, ${num(issues.notice) ?? 0} notices`],
  ]
  return (
    <dl class="stats">
      {rows.map(([k, v]) => (
        <div>
          <dt>{k}</dt>
          <dd>{str(v) ?? '—'}</dd>
        </div>
      ))}
    </dl>
  )
}

function Plan({ items }: { items: Json[] }) {
  if (!items.length) return <p>No issues to fix: every check passed.</p>
  return (
    <div class="scroll">
      <table id="action-plan">
        <caption class="sr-only">Action plan, highest priority first</caption>
        <TableHead columns={['#', 'Priority', 'Issue', 'Category', 'Pages', 'Fix']} />
        <tbody>
          {items.map((item, i) => {
            const pages = arr(item.pages)
            const examples = arr(item.examples)
            return (
              <tr data-priority={str(item.priority) ?? ''}>
                <td>{str(item.rank) ?? String(i + 1)}</td>
                <td>
                  <Badge kind={str(item.priority) ?? 'other'} /> <span class="muted">{str(item.priority_score) ?? ''}</span>
                </td>
                <td>
                  <strong>{str(item.issue) ?? str(item.check) ?? 'Issue'}</strong>
                  <div class="muted">{str(item.why_it_matters) ?? ''}</div>
                </td>
                <td>
                  {(str(item.category) ?? '').toUpperCase()} · {str(item.severity) ?? ''}
                </td>
                <td>
                  {str(item.pages_affected) ?? String(pages.length)}
                  {pages.length || examples.length ? (
                    <details>
                      <summary>pages</summary>
                      <ul class="values">
                        {pages.map((p) => (
                          <li>
                            <ExternalLink href={p} />
                          </li>
                        ))}
                      </ul>
                      {examples.length ? (
                        <ul class="values muted">
                          {examples.map((e) => (
                            <li>{str(e) ?? ''}</li>
                          ))}
                        </ul>
                      ) : null}
                    </details>
                  ) : null}
                </td>
                <td>{str(item.fix) ?? ''}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

function Cannibalization({ groups }: { groups: Json[] }) {
  if (!groups.length) return <p>No two pages compete for the same key phrase.</p>
  return (
    <div>
      {groups.map((g) => (
        <article class="card">
          <h3>“{str(g.keyphrase) ?? ''}”</h3>
          <p>{str(g.recommendation) ?? ''}</p>
          <div class="scroll">
            <table>
              <TableHead columns={['Page', 'Title', 'Score', 'Evidence']} />
              <tbody>
                {arr(g.pages)
                  .filter(isObject)
                  .map((p) => {
                    const ev = isObject(p.evidence) ? p.evidence : {}
                    const where = [ev.in_title === true ? 'title' : '', ev.in_h1 === true ? 'H1' : '', ev.in_url === true ? 'URL' : ''].filter(Boolean)
                    const other = Object.fromEntries(Object.entries(ev).filter(([k]) => !['in_title', 'in_h1', 'in_url', 'body_mentions'].includes(k)))
                    return (
                      <tr>
                        <td>
                          <ExternalLink href={p.url} />
                        </td>
                        <td>{str(p.title) ?? ''}</td>
                        <td>{str(p.score) ?? ''}</td>
                        <td>
                          {where.length ? `in ${where.join(', ')}` : ''}
                          {num(ev.body_mentions) !== null ? `; ${ev.body_mentions} mentions in the text` : ''}
                          {Object.keys(other).length ? <Value value={other} depth={2} /> : null}
                        </td>
                      </tr>
                    )
                  })}
              </tbody>
            </table>
          </div>
        </article>
      ))}
    </div>
  )
}

function Inventory({ rows }: { rows: Json[] }) {
  const kinds = [...new Set(rows.map((r) => str(r.kind) ?? 'other'))].sort()
  return (
    <div>
      <form id="inventory-filters" class="filters" role="search" aria-controls="inventory">
        <label>
          Search <input type="search" name="q" placeholder="URL or title" />
        </label>
        <label>
          Kind{' '}
          <select name="kind">
            <option value="">all</option>
            {kinds.map((k) => (
              <option value={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          SEO score below <input type="number" name="max_seo" min="0" max="101" placeholder="any" />
        </label>
        <label>
          <input type="checkbox" name="issues" /> with issues only
        </label>
        <output id="inventory-count" aria-live="polite">{`${rows.length} of ${rows.length} URLs`}</output>
      </form>
      <div class="scroll">
        <table id="inventory">
          <caption class="sr-only">Page inventory</caption>
          <TableHead columns={['URL', 'Kind', 'Status', 'Title', 'Words', 'SEO', 'AEO', 'Issues']} />
          <tbody>
            {rows.map((r) => {
              const issues = arr(r.issues).filter(isObject)
              return (
                <tr data-kind={str(r.kind) ?? 'other'} data-seo={str(r.seo_score) ?? ''} data-issues={String(issues.length)} data-text={`${str(r.url) ?? ''} ${str(r.title) ?? ''}`.toLowerCase()}>
                  <td>
                    <ExternalLink href={r.url} />
                  </td>
                  <td>{str(r.kind) ?? ''}</td>
                  <td>{str(r.status) ?? '—'}</td>
                  <td>{str(r.title) ?? ''}</td>
                  <td>{str(r.word_count) ?? '—'}</td>
                  <td>{str(r.seo_score) ?? '—'}</td>
                  <td>{str(r.aeo_score) ?? '—'}</td>
                  <td>
                    {issues.length ? (
                      <details>
                        <summary>{String(issues.length)}</summary>
                        <ul class="values">
                          {issues.map((i) => (
                            <li>
                              <Badge kind={str(i.severity) ?? 'other'} /> {str(i.message) ?? str(i.check) ?? ''}
                            </li>
                          ))}
                        </ul>
                      </details>
                    ) : (
                      '0'
                    )}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </div>
  )
}

/** The body of an audit report page. */
export function AuditReport({ audit, runId }: { audit: Json; runId: string }) {
  const scores = isObject(audit.scores) ? audit.scores : {}
  const summary = isObject(audit.summary) ? audit.summary : {}
  const inventory = arr(audit.inventory).filter(isObject)
  const seoScores = inventory.map((r) => num(r.seo_score)).filter((n): n is number => n !== null)
  const aeoScores = inventory.map((r) => num(r.aeo_score)).filter((n): n is number => n !== null)
  const plan = sortPlan(arr(audit.action_plan).filter(isObject))
  const siteChecks = arr(audit.site_checks).filter(isObject)
  const gaps = isObject(audit.content_gaps) ? audit.content_gaps : null
  const extra = Object.entries(audit).filter(([k]) => !KNOWN.has(k))
  return (
    <div>
      <section aria-labelledby="title">
        <h1 id="title">
          Content audit of <ExternalLink href={audit.website_url} />
        </h1>
        <p class="muted">
          Run <code>{runId}</code> · {str(audit.audit_scope) ?? ''} · focus {str(audit.optimization_focus) ?? ''} · generated {when(audit.generated_at)}
        </p>
      </section>
      <section aria-labelledby="scores-h" id="scores">
        <h2 id="scores-h">Scores</h2>
        <div class="gauges">
          <Gauge id="g-seo" label="SEO" score={num(scores.seo)} />
          <Gauge id="g-aeo" label="AEO" score={num(scores.aeo)} />
          <Gauge id="g-overall" label="Overall" score={num(scores.overall)} />
        </div>
        {str(scores.formula) ? (
          <details>
            <summary>How the scores are computed</summary>
            <p class="formula">{str(scores.formula)}</p>
          </details>
        ) : null}
        <Summary summary={summary} />
      </section>
      <section aria-labelledby="dist-h">
        <h2 id="dist-h">Score distribution across pages</h2>
        <BarChart
          id="c-dist"
          title={`Pages per score range (${seoScores.length} scored pages)`}
          buckets={SCORE_BUCKETS}
          series={[
            { name: 'SEO', color: '#1d4ed8', counts: bucketCounts(seoScores) },
            { name: 'AEO', color: '#7e22ce', counts: bucketCounts(aeoScores) },
          ]}
        />
      </section>
      <section aria-labelledby="plan-h">
        <h2 id="plan-h">Action plan</h2>
        {str(audit.priority_formula) ? <p class="muted formula">{str(audit.priority_formula)}</p> : null}
        <Plan items={plan} />
      </section>
      {siteChecks.length ? (
        <section aria-labelledby="site-h">
          <h2 id="site-h">Site checks</h2>
          <ul class="checks">
            {siteChecks.map((s) => (
              <li>
                <Badge kind={s.passed === true ? 'ok' : 'error'}>{s.passed === true ? 'passed' : 'failed'}</Badge> <strong>{str(s.title) ?? str(s.check) ?? ''}</strong>
                {str(s.message) ? ` — ${str(s.message)}` : ''}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="cannibal-h">
        <h2 id="cannibal-h">Keyword cannibalization</h2>
        <Cannibalization groups={arr(audit.keyword_cannibalization).filter(isObject)} />
      </section>
      {gaps ? (
        <section aria-labelledby="gaps-h">
          <h2 id="gaps-h">Content gaps</h2>
          <Value value={gaps} />
        </section>
      ) : null}
      <section aria-labelledby="inv-h">
        <h2 id="inv-h">Page inventory</h2>
        <Inventory rows={inventory} />
      </section>
      {extra.length ? (
        <section aria-labelledby="more-h">
          <h2 id="more-h">More from the report</h2>
          <Value value={Object.fromEntries(extra)} />
        </section>
      ) : null}
    </div>
  )
}
