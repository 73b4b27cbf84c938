/** Types of secrets-file.mjs for TypeScript callers (the Node-side tests). */
export function saveSecretsOnce(path: string, text: string): void
