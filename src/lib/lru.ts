/**
 * A cache bounded by the memory its values take, least recently used out first. A value larger than
 * a quarter of the budget is not kept: it would push out too much else.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>()
  private total = 0

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: string, value: V, bytes: number): void {
    if (bytes > this.budget / 4) return
    // Concurrent requests may compute the same value; count it once.
    this.total -= this.entries.get(key)?.bytes ?? 0
    this.entries.delete(key)
    this.entries.set(key, { value, bytes })
    this.total += bytes
    for (const [oldest, old] of this.entries) {
      if (this.total <= this.budget) break
      this.entries.delete(oldest)
      this.total -= old.bytes
    }
  }

  /** Drops every entry for which `drop` is true. */
  deleteWhere(drop: (key: string, value: V) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (!drop(key, entry.value)) continue
      this.entries.delete(key)
      this.total -= entry.bytes
    }
  }

  forEach(each: (key: string, value: V, bytes: number) => void): void {
    for (const [key, entry] of this.entries) each(key, entry.value, entry.bytes)
  }

  get bytes(): number {
    return this.total
  }
}
