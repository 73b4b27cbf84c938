/**
 * Bearer challenges and OAuth 2.0 Protected Resource Metadata (RFC 9728). The service issues its own
 * API tokens (no OAuth authorization server), and says so in a form MCP clients read: the metadata
 * names bearer tokens in the Authorization header and lists no authorization server, and a 401 for a
 * presented token carries `error="invalid_token"` (RFC 6750), so a client reports a bad token.
 */

/** Well-known path of the metadata document (RFC 9728 section 3). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource'

/** Resources with a metadata document of their own, at RESOURCE_METADATA_PATH + path. */
const RESOURCE_PATHS = ['/mcp'] as const

/** The protected resource a request path belongs to: `/mcp` for the MCP server, the whole API otherwise. */
function resourcePath(pathname: string): string {
  return RESOURCE_PATHS.find((p) => pathname === p || pathname.startsWith(`${p}/`)) ?? ''
}

/** The metadata document for a resource path ('' is the whole API, '/mcp' the MCP server), or undefined. */
export function resourceMetadata(origin: string, path: string): Record<string, unknown> | undefined {
  if (path !== '' && !(RESOURCE_PATHS as readonly string[]).includes(path)) return undefined
  return {
    resource: `${origin}${path}`,
    resource_name: path === '/mcp' ? 'Agent Action API MCP server' : 'Agent Action API',
    resource_documentation: `${origin}/docs`,
    // API tokens (aak_...) are made by the service itself (POST /v1/tokens, the admin CLI), not by OAuth.
    bearer_methods_supported: ['header'],
  }
}

/**
 * The `WWW-Authenticate` value of a 401. `tokenSent` tells a missing token (a bare challenge, as RFC
 * 6750 asks) from one that was refused (`invalid_token` with the reason).
 */
export function bearerChallenge(url: string, tokenSent: boolean, reason: string): string {
  const u = new URL(url)
  const parts = ['Bearer realm="agent-action-api"']
  // Operator routes take the ADMIN_TOKEN secret, which no client discovers.
  if (!u.pathname.startsWith('/v1/admin')) parts.push(`resource_metadata="${u.origin}${RESOURCE_METADATA_PATH}${resourcePath(u.pathname)}"`)
  if (tokenSent) parts.push('error="invalid_token"', `error_description="${reason.replace(/["\\\r\n]/g, ' ').slice(0, 200)}"`)
  return parts.join(', ')
}
