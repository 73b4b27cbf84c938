/** Types of deploy.mjs for TypeScript callers (the Node-side tests). */
export const WORKER_SECRETS: { name: string; bytes: number; encoding: 'hex' | 'base64' }[]
export const SECRETS_FILE: string
export function generateSecrets(names?: string[]): Record<string, string>
export function tomlTables(text: string): { header: string; array: boolean; start: number; end: number; keys: Record<string, { value: unknown; line: number }> }[]
export function readWranglerConfig(text: string): {
  name: string
  d1: { binding: string; name: string; id: string }[]
  kv: { binding: string; id: string }[]
  queues: string[]
}
export function setResourceIds(text: string, ids: { d1?: Record<string, string>; kv?: Record<string, string> }): string
export function parseJsonOutput(stdout: string): any // eslint-disable-line @typescript-eslint/no-explicit-any
export function parseTable(stdout: string): Record<string, string>[]
export function deployedUrl(output: string): string | null
export function renderSecretsFile(opts: { worker: string; url: string | null; secrets: Record<string, string>; createdAt: string }): string
export function parseEnvFile(text: string): Record<string, string>
export function planSecrets(opts: {
  worker: string
  url: string | null
  saved: Record<string, string> | null
  present: string[]
  fresh: Record<string, string>
  createdAt: string
}): { file: string | null; put: Record<string, string>; notes: string[]; error?: undefined } | { error: string; file?: undefined; put?: undefined; notes?: undefined }
