/** Types of lockfile.mjs for TypeScript callers (the Node-side tests). */
export interface MissingEntry {
  name: string
  version: string
  location: string
  from: string
}
export function missingOptionalEntries(lock: { packages: Record<string, Record<string, unknown>> }): MissingEntry[]
export function lockEntry(version: string, manifest: Record<string, unknown>, opts: { dev: boolean; integrity: string | undefined }): Record<string, unknown>
export function withEntries<T extends { packages: Record<string, unknown> }>(lock: T, entries: Record<string, unknown>): T
