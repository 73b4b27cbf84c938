/** Types of bench-catalog.mjs for TypeScript callers (the Node-side tests): the parts they use. */
export function generator(initial?: number): { rand: () => number; phrase: (n: number) => string }
export function writeMix(options: {
  url: string
  headers: Record<string, string>
  ownerHeaders: Record<string, string>
  agents: number
  rand: () => number
  phrase: (n: number) => string
  updates?: number
}): (make: () => Promise<Response>) => () => Promise<Response>
