import { env, SELF } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, BASE, createTeam, newCaller, request } from './helpers'

/**
 * Routes whose body may be left out (`PUT /v1/grants/:agent`, the admin's team membership) take
 * their default only when there is no body. A body without a JSON content type (Python's requests
 * sends `data=` bytes with none) is a 415 like on every other route: read as "no body", a grant of
 * nothing became a grant of everything the agent declares.
 */

let owner: { token: string; accountId: string }
let user: { token: string; accountId: string }
let agentId: string

beforeAll(async () => {
  ;[owner, user] = await Promise.all([newCaller('optional body owner'), newCaller('optional body user')])
  const created = await request('POST', '/v1/agents', {
    token: owner.token,
    body: {
      name: 'CRM reader',
      description: 'Reads a contact',
      visibility: 'public',
      workflow: { steps: [{ id: 's', action: 'crm.v2.lookup_object', input: { object_type: 'contacts', object_id: '1' } }] },
    },
  })
  expect(created.status).toBe(201)
  agentId = created.body.response.id
})

/** PUT with a byte body and no Content-Type header (a Uint8Array body gets none). */
async function putBytes(path: string, token: string, text: string | null): Promise<{ status: number; body: { code?: string; response?: { integrations?: string[]; role?: string } } }> {
  const res = await SELF.fetch(`${BASE}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: text === null ? undefined : new TextEncoder().encode(text) })
  return { status: res.status, body: await res.json() }
}

const grants = async () => (await env.DB.prepare('SELECT integrations FROM agent_grants WHERE account_id = ?').bind(user.accountId).all<{ integrations: string }>()).results

describe('an optional body', () => {
  it('{"integrations":[]} without a content type is a 415 and grants nothing (the minimal case: it granted crm)', async () => {
    const res = await putBytes(`/v1/grants/${agentId}`, user.token, '{"integrations":[]}')
    expect(res.status).toBe(415)
    expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    expect(await grants()).toEqual([])
  })

  it('with any content and no content type is a 415 that stores nothing; no body or a blank one takes the default (fast-check)', async () => {
    const team = await createTeam('optional body team', [])
    const bodyText = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ integrations: fc.array(fc.constantFrom('crm', 'model')) }).map((v) => JSON.stringify(v)),
      fc.record({ role: fc.constantFrom('member', 'owner') }).map((v) => JSON.stringify(v)),
      fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    )
    await fc.assert(
      fc.asyncProperty(bodyText, async (text) => {
        const grant = await putBytes(`/v1/grants/${agentId}`, user.token, text)
        expect(grant.status, text).toBe(415)
        expect(await grants()).toEqual([])
        const member = await putBytes(`/v1/admin/teams/${team}/members/${user.accountId}`, ADMIN.slice('Bearer '.length), text)
        expect(member.status, text).toBe(415)
        const { results } = await env.DB.prepare('SELECT * FROM team_members WHERE team_id = ?').bind(team).all()
        expect(results).toEqual([])
      }),
      { numRuns: 60, seed: 20261129 },
    )
    for (const text of [null, '', '  \n']) {
      const grant = await putBytes(`/v1/grants/${agentId}`, user.token, text)
      expect(grant.status, JSON.stringify(text)).toBe(200)
      expect(grant.body.response?.integrations).toEqual(['crm'])
      expect((await request('DELETE', `/v1/grants/${agentId}`, { token: user.token })).status).toBe(200)
      const member = await putBytes(`/v1/admin/teams/${team}/members/${user.accountId}`, ADMIN.slice('Bearer '.length), text)
      expect(member.status, JSON.stringify(text)).toBe(200)
      expect(member.body.response?.role).toBe('member')
    }
  })
})
