/** A repeatable random source in [0, 1) (a linear congruential generator): generated catalogs are the same every run. */
export function seededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state / 2 ** 31
  }
}
