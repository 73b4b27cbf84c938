import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js'
import { SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { BASE, newCaller } from '../helpers'

const get = (path: string, headers: Record<string, string> = {}) => SELF.fetch(`${BASE}${path}`, { headers })
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
const mcp = (headers: Record<string, string>) =>
  SELF.fetch(`${BASE}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) })

describe('protected resource metadata (RFC 9728)', () => {
  it('describes the MCP server and the API as resources taking bearer tokens in the header, with no OAuth server', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource/mcp', `${BASE}/mcp`],
      ['/.well-known/oauth-protected-resource', BASE],
    ]) {
      const res = await get(path)
      expect(res.status, path).toBe(200)
      const doc = (await res.json()) as Record<string, unknown>
      expect(OAuthProtectedResourceMetadataSchema.safeParse(doc).success).toBe(true)
      expect(doc.resource).toBe(resource)
      expect(doc.bearer_methods_supported).toEqual(['header'])
      expect(doc.authorization_servers).toBeUndefined()
      expect(doc.resource_documentation).toBe(`${BASE}/docs`)
    }
  })

  it('answers 404 with the envelope for a resource it does not describe', async () => {
    const res = await get('/.well-known/oauth-protected-resource/v1/nothing')
    expect(res.status).toBe(404)
    expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND')
  })
})

describe('401 challenges', () => {
  it('a refused token on /mcp gets invalid_token and the MCP metadata URL', async () => {
    const res = await mcp({ authorization: `Bearer aak_${'x'.repeat(43)}` })
    expect(res.status).toBe(401)
    const challenge = res.headers.get('www-authenticate')!
    expect(challenge).toMatch(/^Bearer /)
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`)
    expect(challenge).toContain('error="invalid_token"')
  })

  it('no token on /mcp gets a bare challenge with the metadata URL, without an error code (RFC 6750)', async () => {
    const res = await mcp({})
    expect(res.status).toBe(401)
    const challenge = res.headers.get('www-authenticate')!
    expect(challenge).toContain('resource_metadata=')
    expect(challenge).not.toContain('error=')
  })

  it('the HTTP API points at the API metadata; admin routes do not', async () => {
    const api = await get('/v1/me', { authorization: 'Bearer nope' })
    expect(api.status).toBe(401)
    expect(api.headers.get('www-authenticate')).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource"`)
    expect(api.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const admin = await get('/v1/admin/accounts', { authorization: 'Bearer nope' })
    expect(admin.status).toBe(401)
    expect(admin.headers.get('www-authenticate')).not.toContain('resource_metadata')
  })

  it('a valid token is still accepted on /mcp', async () => {
    const { token } = await newCaller('prm')
    const res = await mcp({ authorization: `Bearer ${token}` })
    expect(res.status).toBe(200)
  })
})
