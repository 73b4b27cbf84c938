/**
 * A cache bounded by the memory its values take, least recently used out first. A value larger than
 * a quarter of the budget is not kept: it would push out too much else. Each entry belongs to a
 * group (what it was derived from, say), so that dropping every entry of some groups walks only
 * those entries, not the whole cache.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number; group: string }>()
  private readonly groups = new Map<string, Set<string>>()
  private total = 0

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  set(key: string, value: V, bytes: number, group = ''): void {
    if (bytes > this.budget / 4) return
    // Concurrent requests may compute the same value; count it once.
    this.delete(key)
    this.entries.set(key, { value, bytes, group })
    let members = this.groups.get(group)
    if (!members) this.groups.set(group, (members = new Set()))
    members.add(key)
    this.total += bytes
    for (const oldest of this.entries.keys()) {
      if (this.total <= this.budget) break
      this.delete(oldest)
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.total -= entry.bytes
    const members = this.groups.get(entry.group)!
    members.delete(key)
    if (members.size === 0) this.groups.delete(entry.group)
  }

  /** Drops every entry of each group for which `drop` is true. */
  deleteGroups(drop: (group: string) => boolean): void {
    for (const [group, members] of this.groups) if (drop(group)) for (const key of members) this.delete(key)
  }

  forEach(each: (key: string, value: V, bytes: number) => void): void {
    for (const [key, entry] of this.entries) each(key, entry.value, entry.bytes)
  }

  get bytes(): number {
    return this.total
  }
}
