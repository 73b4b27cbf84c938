/** Types of thread-cpu.mjs for TypeScript callers (the Node-side tests). */
export function threadCpu(roots: number[]): Map<string, number>
export function addCpu(into: Map<string, number>, before: Map<string, number>, after: Map<string, number>): void
