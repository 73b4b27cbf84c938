import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { putAccountSecret } from '../../src/auth/secrets'
import { openCrm } from '../../src/crm/service'
import { toApiError } from '../../src/http/map-error'
import { createGuardedFetch } from '../../src/providers/web/fetch'
import { SecretSet } from '../../src/runtime/secrets'
import { mockFetch, newCaller } from '../helpers'
import { FakeHubSpot } from './fake-hubspot'
import { TEST_DNS } from '../fake-dns'

const guarded = () => createGuardedFetch({ userAgent: 'test', allowPrivate: false, dns: TEST_DNS })

describe('choosing the CRM', () => {
  it('answers "CRM not connected" (412) when the built-in CRM is turned off and nothing is connected', async () => {
    const { accountId } = await newCaller()
    const err = await openCrm({ db: env.DB, env: { ...env, CRM_BUILTIN_ENABLED: 'false' }, fetch: guarded(), account: { id: accountId, teamIds: [] }, agent: null, secrets: new SecretSet() }).catch(
      (e: unknown) => e,
    )
    const api = toApiError(err)
    expect(api?.status).toBe(412)
    expect(api?.message).toMatch(/^CRM not connected/)
  })

  it('talks to the HubSpot base named by HUBSPOT_API_BASE', async () => {
    const { accountId } = await newCaller()
    const fake = new FakeHubSpot({ base: 'https://hubspot-proxy.example' })
    const id = fake.seed('companies', { name: 'Proxy Co' })
    mockFetch(fake.handler)
    await putAccountSecret(env.DB, env.ENCRYPTION_KEY, accountId, 'crm', 'hubspot', fake.token, {})
    const crm = await openCrm({
      db: env.DB,
      env: { ...env, HUBSPOT_API_BASE: 'https://hubspot-proxy.example/' },
      fetch: guarded(),
      account: { id: accountId, teamIds: [] },
      agent: null,
      secrets: new SecretSet(),
    })
    expect(crm.provider).toBe('hubspot')
    const rec = await crm.lookup({ objectType: 'companies', ref: { by: 'id', value: id }, properties: ['name'], associations: [] })
    expect(rec.properties).toEqual({ name: 'Proxy Co' })
    expect(fake.violations).toEqual([])
  })

  it('names HUBSPOT_API_BASE when it is not a URL', async () => {
    const { accountId } = await newCaller()
    await putAccountSecret(env.DB, env.ENCRYPTION_KEY, accountId, 'crm', 'hubspot', 'pat-na1-x', {})
    const err = await openCrm({ db: env.DB, env: { ...env, HUBSPOT_API_BASE: 'not a url' }, fetch: guarded(), account: { id: accountId, teamIds: [] }, agent: null, secrets: new SecretSet() }).catch(
      (e: unknown) => e,
    )
    expect(toApiError(err)).toMatchObject({ status: 503 })
    expect(toApiError(err)?.message).toContain('HUBSPOT_API_BASE')
  })

  it('asks to reconnect when the stored token was sealed under another key', async () => {
    const { accountId } = await newCaller()
    const otherKey = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))
    await putAccountSecret(env.DB, otherKey, accountId, 'crm', 'hubspot', 'pat-na1-old', {})
    const err = await openCrm({ db: env.DB, env, fetch: guarded(), account: { id: accountId, teamIds: [] }, agent: null, secrets: new SecretSet() }).catch((e: unknown) => e)
    expect(toApiError(err)).toMatchObject({ status: 412 })
    expect(toApiError(err)?.message).toMatch(/^CRM not connected: the stored HubSpot token can no longer be opened/)
  })
})
