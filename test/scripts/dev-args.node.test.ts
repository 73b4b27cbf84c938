import { describe, expect, it } from 'vitest'
import { LOCAL_LIMITS, NO_SEED_STATE, planDev } from '../../scripts/lib/dev-args.mjs'

describe('npm run dev', () => {
  it('gives wrangler dev generous local rate limits and the cron route, and leaves wrangler.toml alone', () => {
    const plan = planDev([])
    expect(plan.devArgs).toEqual(['dev', '--var', `RATE_LIMIT_PER_MINUTE:${LOCAL_LIMITS.perMinute}`, '--var', `RATE_LIMIT_PER_DAY:${LOCAL_LIMITS.perDay}`, '--test-scheduled'])
    expect(LOCAL_LIMITS.perMinute).toBeGreaterThanOrEqual(100)
    expect(plan).toMatchObject({ noSeed: false, persist: [], base: 'http://localhost:8787', limitsGiven: false })
  })

  it('keeps limits, --test-scheduled and a --persist-to the user passed, and passes every other argument on', () => {
    const plan = planDev(['--port', '8788', '--var', 'RATE_LIMIT_PER_MINUTE:20', '--test-scheduled', '--persist-to=/tmp/state', '--ip', '::1'])
    expect(plan.devArgs).toEqual(['dev', '--port', '8788', '--var', 'RATE_LIMIT_PER_MINUTE:20', '--test-scheduled', '--persist-to=/tmp/state', '--ip', '::1'])
    expect(plan).toMatchObject({ limitsGiven: true, persist: ['--persist-to', '/tmp/state'], base: 'http://[::1]:8788' })
  })

  it('with --no-seed keeps an empty catalog in its own local database, for the D1 commands and wrangler dev alike', () => {
    const plan = planDev(['--no-seed', '--port=8790'])
    expect(plan.noSeed).toBe(true)
    expect(plan.persist).toEqual(['--persist-to', NO_SEED_STATE])
    expect(plan.devArgs).not.toContain('--no-seed')
    expect(plan.devArgs.slice(-3)).toEqual(['--persist-to', NO_SEED_STATE, '--port=8790'])
    expect(plan.base).toBe('http://localhost:8790')
  })

  it('notices an admin token passed with --var, which the admin CLI cannot read from .dev.vars', () => {
    expect(planDev(['--var', 'ADMIN_TOKEN:xyz']).adminVarGiven).toBe(true)
    expect(planDev([]).adminVarGiven).toBe(false)
  })
})
