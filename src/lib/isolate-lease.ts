/**
 * Work one request of an isolate does on behalf of all of them (loading the encoder, an embedding
 * run), without any request awaiting a promise another request settles. workerd ties I/O and promise
 * continuations to the request that started them: a request awaiting another's load hangs, or fails
 * with "Cannot perform I/O on behalf of a different request", when that request ends first (a client
 * that disconnects is enough). So the holder works in its own context and the others wait on their own
 * timers, taking the work over when the holder stops showing progress.
 */

export interface LeaseOptions {
  /** A holder silent this long is taken to be gone (its request ended), and the next waiter takes over. */
  staleMs: number
  /** How often a waiter looks again. */
  pollMs: number
}

export interface Lease {
  /** Tells waiters the holder is still at work. */
  beat(): void
  release(): void
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Held by one caller at a time in this isolate. */
export class IsolateLease {
  private holder: { beat: number } | null = null

  constructor(private readonly options: LeaseOptions) {}

  /** Resolves once this caller holds the lease; `ready()` true ends the wait early (and resolves null). */
  async acquire(ready: () => boolean = () => false): Promise<Lease | null> {
    for (;;) {
      if (ready()) return null
      if (!this.holder || Date.now() - this.holder.beat > this.options.staleMs) return this.take()
      await sleep(this.options.pollMs)
    }
  }

  private take(): Lease {
    const mine = { beat: Date.now() }
    this.holder = mine
    return {
      beat: () => {
        mine.beat = Date.now()
      },
      release: () => {
        if (this.holder === mine) this.holder = null
      },
    }
  }
}

/**
 * A value made once per isolate and then shared (a value, never a pending promise). A failed make
 * leaves it unmade for the next caller; when a holder taken for gone finishes after all, the value
 * made second is handed to `discard`.
 */
export class IsolateOnce<T> {
  private value: T | undefined
  private readonly lease: IsolateLease

  constructor(
    options: LeaseOptions,
    private readonly discard: (extra: T) => void = () => {},
  ) {
    this.lease = new IsolateLease(options)
  }

  async get(make: (beat: () => void) => Promise<T>): Promise<T> {
    if (this.value !== undefined) return this.value
    const lease = await this.lease.acquire(() => this.value !== undefined)
    if (!lease) return this.value as T
    try {
      const made = await make(lease.beat)
      if (this.value === undefined) this.value = made
      else this.discard(made)
      return this.value
    } finally {
      lease.release()
    }
  }
}
