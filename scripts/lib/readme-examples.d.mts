/** Types of readme-examples.mjs for TypeScript callers (the Node-side tests). */
export interface CurlRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
}
export const README_BASE: string
export function shellBlocks(markdown: string): { text: string; line: number }[]
export function shellCommands(text: string, vars?: Record<string, string>): string[][]
export function curlRequest(words: string[]): CurlRequest
export function curlExamples(markdown: string, vars?: Record<string, string>): { line: number; request: CurlRequest }[]
export function runExamples(
  examples: { line: number; request: CurlRequest }[],
  opts: { base: string; timeoutMs?: number },
): Promise<{ line: number; method: string; path: string; status: number; body: any }[]> // eslint-disable-line @typescript-eslint/no-explicit-any
