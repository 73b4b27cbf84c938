export declare const SEED_ACCOUNTS: Record<string, { id: string; name: string }>
export declare const SEED_TEAMS: Record<string, { id: string; name: string; members: string[] }>
export declare function parameterText(parameters: unknown): string
export declare function buildSeed(agents: unknown[], now?: number): { sql: string; params: unknown[] }[]
export declare function renderSql(statements: { sql: string; params: unknown[] }[]): string
