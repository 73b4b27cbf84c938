/** How `npm run dev` reads its arguments and what it passes to wrangler: pure, so tests check it. */

/** Rate limits under `npm run dev`: enough to follow every README example in a row. */
export const LOCAL_LIMITS = { perMinute: 600, perDay: 100_000 }

/** Where `--no-seed` keeps its local database, apart from the seeded one. */
export const NO_SEED_STATE = '.wrangler/no-seed'

/**
 * The plan for `npm run dev -- <args>`: `--no-seed` is this script's; everything else goes to
 * `wrangler dev`, after generous local rate limits (unless a RATE_LIMIT_PER_* var is given) and
 * `--test-scheduled`. `persist` is the `--persist-to` the D1 commands share with wrangler dev.
 */
export function planDev(args) {
  const noSeed = args.includes('--no-seed')
  const passed = args.filter((a) => a !== '--no-seed')
  const option = (name) => {
    const i = passed.findIndex((a) => a === name || a.startsWith(`${name}=`))
    return i < 0 ? undefined : passed[i].includes('=') ? passed[i].slice(name.length + 1) : passed[i + 1]
  }
  const ownPersist = option('--persist-to')
  const persistTo = ownPersist ?? (noSeed ? NO_SEED_STATE : undefined)
  const persist = persistTo ? ['--persist-to', persistTo] : []
  const limitsGiven = passed.some((a) => /^RATE_LIMIT_PER_(MINUTE|DAY)[:=]/.test(a))
  const extra = []
  if (!limitsGiven) extra.push('--var', `RATE_LIMIT_PER_MINUTE:${LOCAL_LIMITS.perMinute}`, '--var', `RATE_LIMIT_PER_DAY:${LOCAL_LIMITS.perDay}`)
  if (!passed.includes('--test-scheduled')) extra.push('--test-scheduled')
  // A --persist-to of the user's is among the passed arguments already.
  if (persistTo && !ownPersist) extra.push(...persist)
  const host = option('--ip') ?? 'localhost'
  return {
    noSeed,
    persist,
    persistTo,
    limitsGiven,
    devArgs: ['dev', ...extra, ...passed],
    base: `http://${host.includes(':') ? `[${host}]` : host}:${option('--port') ?? '8787'}`,
    adminVarGiven: passed.some((a) => a.startsWith('ADMIN_TOKEN:')),
  }
}
