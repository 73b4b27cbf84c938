/**
 * Counts the array elements code visits, for tests that bound work without timing it. While `fn`
 * runs, Array.prototype's searches, callbacks, copies and iterators are wrapped: a search counts
 * the elements it compared, a callback method its calls, a copy the elements it copied, an
 * iteration (`for...of`, spread) the elements it yielded, `shift`/`unshift`/`splice` the elements
 * they move. A loop that searches or copies a list it is growing (`if (!out.includes(x))
 * out.push(x)`) counts the square of the list's length; a Set or Map lookup counts nothing. The
 * count is the same on every run and machine, so a bound on it is no timed test.
 */

type Method = (this: unknown[], ...args: unknown[]) => unknown

const CALLBACKS = ['every', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap', 'forEach', 'map', 'reduce', 'reduceRight', 'some'] as const
const ITERATORS = ['entries', 'keys', 'values'] as const

/** Runs `fn` (awaited when it returns a promise) and returns its result with the elements visited. */
export async function arrayWork<T>(fn: () => T | Promise<T>): Promise<{ result: T; work: number }> {
  const proto = Array.prototype as unknown as Record<string | symbol, Method>
  const saved = new Map<string | symbol, Method>()
  let work = 0
  const wrap = (name: string | symbol, counted: (original: Method) => Method) => {
    const original = proto[name]
    saved.set(name, original)
    Object.defineProperty(Array.prototype, name, { value: counted(original), writable: true, configurable: true, enumerable: false })
  }
  const start = (len: number, from: unknown) => {
    const n = Math.trunc(Number(from ?? 0)) || 0
    return n < 0 ? Math.max(0, len + n) : Math.min(n, len)
  }
  const counting = (iterator: Iterator<unknown>): IterableIterator<unknown> => ({
    next() {
      const step = iterator.next()
      if (!step.done) work++
      return step
    },
    [Symbol.iterator]() {
      return this
    },
  })

  for (const name of CALLBACKS) {
    wrap(
      name,
      (original) =>
        function (this: unknown[], callback: unknown, ...rest: unknown[]) {
          const counted =
            typeof callback === 'function'
              ? function (this: unknown, ...args: unknown[]) {
                  work++
                  return Reflect.apply(callback, this, args)
                }
              : callback
          // Built by index: a spread would iterate, and count, the arguments themselves.
          const args: unknown[] = [counted]
          for (let i = 0; i < rest.length; i++) args[i + 1] = rest[i]
          return Reflect.apply(original, this, args)
        },
    )
  }
  wrap(
    'includes',
    (original) =>
      function (this: unknown[], value: unknown, from?: unknown) {
        const found = Reflect.apply(original, this, [value, from]) as boolean
        const at = found ? Reflect.apply(saved.get('indexOf')!, this, [value, from]) : -1
        work += (typeof at === 'number' && at >= 0 ? at + 1 : this.length) - start(this.length, from)
        return found
      },
  )
  wrap(
    'indexOf',
    (original) =>
      function (this: unknown[], value: unknown, from?: unknown) {
        const at = Reflect.apply(original, this, [value, from]) as number
        work += (at >= 0 ? at + 1 : this.length) - start(this.length, from)
        return at
      },
  )
  wrap(
    'lastIndexOf',
    (original) =>
      function (this: unknown[], ...args: unknown[]) {
        const at = Reflect.apply(original, this, args) as number
        work += at >= 0 ? this.length - at : this.length
        return at
      },
  )
  for (const name of ['slice', 'concat'] as const) {
    wrap(
      name,
      (original) =>
        function (this: unknown[], ...args: unknown[]) {
          const out = Reflect.apply(original, this, args) as unknown[]
          work += out.length
          return out
        },
    )
  }
  wrap(
    'join',
    (original) =>
      function (this: unknown[], ...args: unknown[]) {
        work += this.length
        return Reflect.apply(original, this, args)
      },
  )
  for (const name of ['shift', 'unshift'] as const) {
    wrap(
      name,
      (original) =>
        function (this: unknown[], ...args: unknown[]) {
          work += this.length
          return Reflect.apply(original, this, args)
        },
    )
  }
  wrap(
    'splice',
    (original) =>
      function (this: unknown[], ...args: unknown[]) {
        work += this.length - start(this.length, args[0])
        return Reflect.apply(original, this, args)
      },
  )
  for (const name of [...ITERATORS, Symbol.iterator]) {
    wrap(
      name,
      (original) =>
        function (this: unknown[]) {
          return counting(Reflect.apply(original, this, []) as Iterator<unknown>)
        },
    )
  }

  try {
    const result = await fn()
    return { result, work }
  } finally {
    for (const [name, original] of saved) Object.defineProperty(Array.prototype, name, { value: original, writable: true, configurable: true, enumerable: false })
  }
}
