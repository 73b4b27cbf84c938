/** Types of dev-args.mjs for TypeScript callers (the Node-side tests). */
export const LOCAL_LIMITS: { perMinute: number; perDay: number }
export const NO_SEED_STATE: string
export function planDev(args: string[]): {
  noSeed: boolean
  persist: string[]
  persistTo: string | undefined
  limitsGiven: boolean
  devArgs: string[]
  base: string
  adminVarGiven: boolean
}
