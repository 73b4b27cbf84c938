/** Types of profile-names.mjs for TypeScript callers (the Node-side tests). */
export interface ParsedScript {
  scriptId: string
  url: string
  sourceMapURL?: string
}
export interface CallFrame {
  scriptId: string
  functionName: string
  url: string
  lineNumber: number
  columnNumber: number
}
export function frameNamer(scripts: ParsedScript[]): (frame: CallFrame) => string
export function areaOf(name: string): string
