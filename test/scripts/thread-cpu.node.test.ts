import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { addCpu, threadCpu } from '../../scripts/lib/thread-cpu.mjs'

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)

describe.runIf(process.platform === 'linux')("bench:search's CPU time per thread", () => {
  it('counts the CPU a child process spends, under its own name, and none it did not', async () => {
    // A child that spins for 300 ms of its own CPU time, then idles until killed.
    const child = spawn(process.execPath, ['-e', 'const s = process.cpuUsage(); while (process.cpuUsage(s).user < 300000); setInterval(() => {}, 1000)'])
    try {
      const before = threadCpu([process.pid])
      await new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          const mine = [...threadCpu([child.pid!])].filter(([thread]) => thread.startsWith('node ')).reduce((a, [, ms]) => a + ms, 0)
          if (mine < 300) return
          clearInterval(poll)
          resolve()
        }, 50)
        child.once('exit', () => {
          clearInterval(poll)
          reject(new Error('the child exited'))
        })
      })
      const spent = new Map<string, number>()
      addCpu(spent, before, threadCpu([process.pid]))
      const childs = [...spent].filter(([thread]) => thread.split(' ')[1].startsWith(`${child.pid}/`))
      expect(childs.length).toBeGreaterThan(0)
      // Ticks are 10 ms: the spin's 300 ms show as at least 290 in the child's threads.
      expect(total(new Map(childs))).toBeGreaterThanOrEqual(290)
      // A tree given twice (the child is also under this process) is counted once.
      const once = threadCpu([process.pid])
      expect([...threadCpu([process.pid, child.pid!]).keys()].sort()).toEqual([...once.keys()].sort())
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('gives nothing for a process that does not exist', () => {
    expect(threadCpu([2 ** 31 - 1]).size).toBe(0)
  })
})
