/**
 * Optional dependencies missing from package-lock.json. npm records a package's optional platform
 * builds (workerd's darwin and windows binaries, say) only when the registry it resolves against has
 * them; when one is missing, `npm install` still works but `npm ci` refuses the lockfile as out of sync.
 * These pure functions find such gaps and say where npm would put the missing entries.
 */

/** Parent folders of a lockfile path, deepest first: `a/node_modules/b` -> [`a/node_modules/b`, `a`, ``]. */
function ancestors(path) {
  const out = [path]
  let rest = path
  for (;;) {
    const cut = rest.lastIndexOf('/node_modules/')
    if (cut < 0) break
    rest = rest.slice(0, cut)
    out.push(rest)
  }
  if (path !== '') out.push('')
  return [...new Set(out)]
}

const at = (folder, name) => (folder === '' ? `node_modules/${name}` : `${folder}/node_modules/${name}`)

/**
 * Every optional dependency (pinned to an exact version) that Node's resolution from its dependent finds
 * nowhere in `lock.packages`, with the location npm would hoist it to: the shallowest free folder
 * below any entry of that name with another version. Returns [{ name, version, location, from }],
 * shallowest dependents first.
 */
export function missingOptionalEntries(lock) {
  const packages = { ...lock.packages }
  const missing = []
  const paths = Object.keys(packages).sort((a, b) => a.split('/node_modules/').length - b.split('/node_modules/').length || a.localeCompare(b))
  for (const from of paths) {
    for (const [name, range] of Object.entries(packages[from].optionalDependencies ?? {})) {
      if (!/^\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/.test(range)) continue
      let location = null
      let resolved = false
      for (const folder of ancestors(from)) {
        const entry = packages[at(folder, name)]
        if (entry) {
          // Resolution stops at the nearest entry of that name; another version there needs one below it.
          resolved = entry.version === range
          break
        }
        location = at(folder, name)
      }
      if (resolved || !location) continue
      missing.push({ name, version: range, location, from })
      packages[location] = { version: range }
    }
  }
  return missing
}

/** A lockfile entry for a platform build: what npm writes, from the registry's manifest of that package. */
export function lockEntry(version, manifest, { dev, integrity }) {
  const entry = { version }
  if (integrity) entry.integrity = integrity
  for (const key of ['cpu']) if (manifest[key]) entry[key] = manifest[key]
  if (dev) entry.dev = true
  if (manifest.license) entry.license = manifest.license
  entry.optional = true
  for (const key of ['os', 'engines']) if (manifest[key]) entry[key] = manifest[key]
  return entry
}

/** `lock` with `entries` ({ location: entry }) added, keys in npm's sorted order. */
export function withEntries(lock, entries) {
  const all = { ...lock.packages, ...entries }
  const [root, ...rest] = Object.keys(all)
  const sorted = { [root]: all[root] }
  for (const key of rest.sort((a, b) => a.localeCompare(b, 'en'))) sorted[key] = all[key]
  return { ...lock, packages: sorted }
}
