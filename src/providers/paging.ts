/**
 * Reading an upstream's cursor-paged list. Whether there is a next page is the upstream's word, so a
 * broken or hostile one could page forever: a cursor that comes round again, one that changes on
 * every page, empty pages that still point on, pages far larger than asked for. The bounds hold
 * whatever it answers.
 */

/** How much of a paged list is read at most. */
export interface PageBounds {
  /** Requests sent for the list. */
  maxPages: number
  /** Distinct items kept; the rest of a page past it is dropped. */
  maxItems: number
}

/** One page as the caller reads it: its items and the cursor of the next page, if the upstream names one. */
export interface Page<T> {
  items: T[]
  next?: string
}

/**
 * The distinct items (by `key`, first seen wins) of a cursor-paged list, reading pages through
 * `read` (given the previous page's cursor; none for the first) until the upstream names no next
 * page, names a cursor it named before, or a bound is reached. `truncated` is true when a bound or
 * a repeated cursor, not the upstream, ended the list.
 * @example const { items } = await readPages({ maxPages: 10, maxItems: 5000 }, (after) => onePage(after), String)
 */
export async function readPages<T>(bounds: PageBounds, read: (cursor: string | undefined) => Promise<Page<T>>, key: (item: T) => string): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = []
  const keys = new Set<string>()
  const cursors = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < bounds.maxPages; page++) {
    const got = await read(cursor)
    for (const item of got.items) {
      if (items.length >= bounds.maxItems) return { items, truncated: true }
      const k = key(item)
      if (keys.has(k)) continue
      keys.add(k)
      items.push(item)
    }
    if (got.next === undefined) return { items, truncated: false }
    if (items.length >= bounds.maxItems || cursors.has(got.next)) return { items, truncated: true }
    cursors.add(got.next)
    cursor = got.next
  }
  return { items, truncated: true }
}
