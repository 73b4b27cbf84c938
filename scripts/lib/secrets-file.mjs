/** Writing the deploy secrets file: once, private, never over an existing file. */
import { chmodSync, writeFileSync } from 'node:fs'

/**
 * Creates `path` with `text`, readable only by its owner (0600). Throws, writing nothing, when the
 * file exists: the secrets in it may be the only copy of what a deployed Worker holds.
 */
export function saveSecretsOnce(path, text) {
  try {
    writeFileSync(path, text, { flag: 'wx', mode: 0o600 })
  } catch (err) {
    if (err.code === 'EEXIST') throw new Error(`${path} exists already: it is never overwritten`)
    throw err
  }
  // The umask can narrow the creation mode below 0600; the owner still needs to read the file.
  chmodSync(path, 0o600)
}
