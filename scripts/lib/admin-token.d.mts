/** Types of admin-token.mjs for TypeScript callers (the Node-side tests). */
export function isLocalUrl(url: string): boolean
export function adminTokenFor(
  url: string,
  sources: { env: Record<string, string | undefined>; devVars?: Record<string, string>; deploySecrets?: Record<string, string>; deploySecretsPath: string },
): { token: string; source: string; error?: undefined } | { error: string; token?: undefined }
