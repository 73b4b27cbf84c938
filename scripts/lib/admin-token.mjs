/**
 * Which admin token the admin CLI may send where. An exported ADMIN_TOKEN goes wherever it is told;
 * the local `.dev.vars` token goes only to this machine; the deploy secrets file's token goes only to
 * the Worker URL that file was written for.
 */

/** True when `url` (http or https) points at this machine: localhost, 127.0.0.0/8 or [::1], as the URL parser reads it. */
export function isLocalUrl(url) {
  let u
  try {
    u = new URL(url)
  } catch {
    return false
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false
  const host = u.hostname.replace(/\.$/, '')
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function sameOrigin(a, b) {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/**
 * The token for `url` and where it came from, or `{ error }` saying what to do.
 * `sources`: `env` (process.env), `devVars` and `deploySecrets` (parsed files, or undefined when absent),
 * `deploySecretsPath` (for the message).
 */
export function adminTokenFor(url, { env, devVars, deploySecrets, deploySecretsPath }) {
  if (env.ADMIN_TOKEN) return { token: env.ADMIN_TOKEN, source: 'the ADMIN_TOKEN environment variable' }
  if (isLocalUrl(url)) {
    if (devVars?.ADMIN_TOKEN) return { token: devVars.ADMIN_TOKEN, source: '.dev.vars' }
    return { error: 'ADMIN_TOKEN is not set: export it, or run `npm run dev` once to write .dev.vars' }
  }
  if (deploySecrets?.ADMIN_TOKEN && deploySecrets.WORKER_URL && sameOrigin(url, deploySecrets.WORKER_URL)) {
    return { token: deploySecrets.ADMIN_TOKEN, source: deploySecretsPath }
  }
  const fromFile = deploySecrets?.WORKER_URL ? ` (${deploySecretsPath} holds the token of ${deploySecrets.WORKER_URL} only)` : ''
  return {
    error: `ADMIN_TOKEN is not set for ${new URL(url).origin}: export it (ADMIN_TOKEN=... npm run admin -- --url ${url} ...); the local .dev.vars token is only sent to localhost${fromFile}`,
  }
}
