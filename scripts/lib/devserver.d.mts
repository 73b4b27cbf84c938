/** Types of devserver.mjs for TypeScript callers (the Node-side tests). */
export interface DevServer {
  url: string
  adminToken: string
  pid: number
  stop(): Promise<void>
  executeSql(sql: string): void
  log(): string
}
export function freePort(): Promise<number>
export function startDevServer(opts: { name: string; sql?: string[]; vars?: Record<string, string>; fresh?: boolean }): Promise<DevServer>
export function createBenchToken(server: DevServer, name?: string): Promise<{ accountId: string; token: string }>
export function pool<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<T[]>
