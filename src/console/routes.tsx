import { Router } from '../http/route-table'
import { actions } from '../actions/registry'
import { REPORT_ACTIONS, renderDocument } from '../reports/routes'
import { PageHead, TableHead } from '../reports/view'
import { CONSOLE_JS, REPORT_JS } from './script'
import { APP_CSS } from './styles'

/** The console's CSP: nothing but this origin (its script and stylesheet are files of this Worker). */
export const CONSOLE_CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** The console shell: static markup the script fills with the account's data once a token is given. */
function ConsolePage({ actionNames }: { actionNames: string[] }) {
  return (
    <html lang="en">
      <PageHead title="Console · Agent Action API" script="/console/assets/console.js" />
      <body data-report-actions={REPORT_ACTIONS.join(',')}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a href="/console" class="brand">
            Agent Action API console
          </a>
          <nav id="nav" aria-label="Console sections" hidden>
            <a href="#runs">Runs</a>
            <a href="#agents">Agents</a>
            <a href="#tokens">Tokens</a>
            <a href="#integrations">Integrations</a>
          </nav>
          <span id="who" class="who"></span>
          <button id="signout" type="button" class="secondary" hidden>
            Sign out
          </button>
        </header>
        <main id="main">
          <p id="status" role="status" aria-live="polite"></p>
          <section id="signin" class="panel" aria-labelledby="signin-h">
            <h1 id="signin-h">Sign in with an API token</h1>
            <p>
              The token stays in this browser tab only (sessionStorage) and is sent as a bearer header to this service; closing the tab forgets it. Get one from <code>npm run dev</code> (
              <code>.wrangler/dev-token</code>), <code>npm run admin -- tokens create</code> or <code>POST /v1/tokens</code>.
            </p>
            <form id="signin-form">
              <label for="token">API token</label>
              <input id="token" name="token" type="password" autocomplete="off" placeholder="aak_…" required />
              <button type="submit">Sign in</button>
            </form>
          </section>
          <div id="app" hidden>
            <section id="view-runs" aria-labelledby="runs-h" hidden>
              <h1 id="runs-h">Runs</h1>
              <form id="runs-filter" class="filters" role="search" aria-label="Filter runs">
                <label for="filter-action">Action</label>
                <select id="filter-action" name="action">
                  <option value="">any</option>
                  {actionNames.map((n) => (
                    <option value={n}>{n}</option>
                  ))}
                </select>
                <label for="filter-state">State</label>
                <select id="filter-state" name="state">
                  <option value="">any</option>
                  <option value="queued">queued</option>
                  <option value="running">running</option>
                  <option value="succeeded">succeeded</option>
                  <option value="failed">failed</option>
                </select>
                <button type="submit">Filter</button>
              </form>
              <div class="scroll">
                <table>
                  <caption class="sr-only">Runs of this account, newest first</caption>
                  <TableHead columns={['Run', 'Action', 'State', 'Created', 'Duration', 'Attempts']} />
                  <tbody id="runs-body"></tbody>
                </table>
              </div>
              <p id="runs-empty" class="muted" hidden>
                No runs match.
              </p>
              <button id="runs-more" type="button" class="secondary" hidden>
                More runs
              </button>
              <section id="run-detail" class="panel" aria-labelledby="run-title" hidden></section>
            </section>
            <section id="view-agents" aria-labelledby="agents-h" hidden>
              <h1 id="agents-h">Agents</h1>
              <div class="grid2">
                <div>
                  <h2>Your agents</h2>
                  <ul id="agents-own" class="values"></ul>
                  <h2>Agents you can see</h2>
                  <form id="agent-search" class="filters" role="search" aria-label="Search agents">
                    <label for="agent-query">Search</label>
                    <input id="agent-query" name="query" type="search" placeholder="e.g. youtube transcript" />
                    <button type="submit">Search</button>
                  </form>
                  <ul id="agents-visible" class="values"></ul>
                </div>
                <section id="agent-detail" class="panel" aria-label="Agent" hidden></section>
              </div>
            </section>
            <section id="view-tokens" aria-labelledby="tokens-h" hidden>
              <h1 id="tokens-h">Tokens</h1>
              <form id="token-create" class="filters" aria-label="Create a token">
                <label for="new-token-name">Name</label>
                <input id="new-token-name" name="name" required maxlength={100} />
                <label for="new-token-days">Expires in days (optional)</label>
                <input id="new-token-days" name="expires_in_days" type="number" min="1" max="3650" />
                <button type="submit">Create token</button>
              </form>
              <div id="new-token" class="panel" hidden>
                <label for="new-token-value">New token: copy it now, it is shown once</label>
                <input id="new-token-value" class="token-once" readonly />
              </div>
              <div class="scroll">
                <table>
                  <caption class="sr-only">Tokens of this account</caption>
                  <TableHead columns={['Name', 'Starts with', 'Created', 'Expires', 'Last used', 'Revoke']} />
                  <tbody id="tokens-body"></tbody>
                </table>
              </div>
            </section>
            <section id="view-integrations" aria-labelledby="integrations-h" hidden>
              <h1 id="integrations-h">Integrations</h1>
              <p class="muted">Whether each integration is connected. Keys and tokens are stored encrypted and never shown.</p>
              <ul id="integrations-list" class="checks"></ul>
            </section>
          </div>
        </main>
      </body>
    </html>
  )
}

const asset = (body: string, type: string) => new Response(body, { headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' } })

const html = { 'text/html': { schema: { type: 'string' } } }
const assetResponse = (type: string) => ({ description: `The console's ${type}`, content: { [type]: { schema: { type: 'string' } } } })

/** `GET /console` and its same-origin assets. Public: the page holds no data until a token is given. */
export function consoleRoutes() {
  return new Router('Meta')
    .get(
      '/',
      { operationId: 'console', summary: 'The web console: runs, agents, tokens and integrations, signed in with an API token kept in the tab', response: { description: 'HTML page', content: html } },
      async (c) => {
        const page = await renderDocument(<ConsolePage actionNames={actions.map((a) => a.name).sort()} />)
        return c.html(page, 200, { 'content-security-policy': CONSOLE_CSP, 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' })
      },
    )
    .get('/assets/app.css', { operationId: 'consoleStyles', summary: 'The console and report pages stylesheet', response: assetResponse('text/css') }, () => asset(APP_CSS, 'text/css'))
    .get('/assets/console.js', { operationId: 'consoleScript', summary: 'The console script', response: assetResponse('text/javascript') }, () => asset(CONSOLE_JS, 'text/javascript'))
    .get('/assets/report.js', { operationId: 'reportScript', summary: 'The report pages script (filters)', response: assetResponse('text/javascript') }, () => asset(REPORT_JS, 'text/javascript'))
}
