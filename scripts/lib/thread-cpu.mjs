/**
 * CPU time per thread of a process tree, read from Linux's /proc (empty elsewhere). Benchmarks use it
 * to say where a request's time goes: wrangler dev runs the Worker and its local D1 on one workerd
 * thread and routes requests through a proxy worker in another process, so a route's throughput is
 * bound by the busiest thread's CPU time per request.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** /proc reports CPU time in USER_HZ ticks, which Linux fixes at 100 a second for user space. */
const TICK_MS = 10

const read = (path) => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/** The fields of a stat line after the command name (which may hold spaces and parentheses). */
const statFields = (line) => line.slice(line.lastIndexOf(')') + 2).split(' ')

/** Every process in the trees rooted at `roots` (their pids included). */
function descendants(roots) {
  let pids
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  const childrenOf = new Map()
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`)
    if (!stat) continue
    const ppid = statFields(stat)[1]
    const siblings = childrenOf.get(ppid)
    if (siblings) siblings.push(pid)
    else childrenOf.set(ppid, [pid])
  }
  const found = new Set()
  const queue = roots.map(String)
  while (queue.length > 0) {
    const pid = queue.shift()
    if (found.has(pid)) continue
    found.add(pid)
    queue.push(...(childrenOf.get(pid) ?? []))
  }
  return [...found]
}

/** CPU milliseconds so far of every thread of the trees rooted at `roots`, by `<name> <pid>/<tid>`. */
export function threadCpu(roots) {
  const out = new Map()
  for (const pid of descendants(roots)) {
    const name = (read(`/proc/${pid}/comm`) ?? '?').trim()
    let tids = []
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`)
      if (!stat) continue
      const f = statFields(stat)
      // utime and stime are the 14th and 15th fields; f starts at the 3rd.
      out.set(`${name} ${pid}/${tid}`, (Number(f[11]) + Number(f[12])) * TICK_MS)
    }
  }
  return out
}

/** Adds each thread's CPU time between two snapshots to `into`. */
export function addCpu(into, before, after) {
  for (const [thread, ms] of after) {
    const spent = ms - (before.get(thread) ?? 0)
    if (spent > 0) into.set(thread, (into.get(thread) ?? 0) + spent)
  }
}
