import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { addCpu, threadCpu } from '../../scripts/lib/thread-cpu.mjs'

/** CPU milliseconds between two snapshots of this process's tree, spent by process `pid`'s threads. */
function spentBy(pid: number, before: Map<string, number>, after: Map<string, number>): number {
  const spent = new Map<string, number>()
  addCpu(spent, before, after)
  return [...spent].filter(([thread]) => thread.split(' ')[1].startsWith(`${pid}/`)).reduce((a, [, ms]) => a + ms, 0)
}

describe.runIf(process.platform === 'linux')("bench:search's CPU time per thread", () => {
  it('counts the CPU a child process spends, under its own threads, and none while it idles', async () => {
    // A child that spins for 300 ms of its own CPU time, says so, then idles until killed.
    const child = spawn(process.execPath, ['-e', "const s = process.cpuUsage(); while (process.cpuUsage(s).user < 300000); console.log('spun'); setInterval(() => {}, 1000)"])
    try {
      const before = threadCpu([process.pid])
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve())
        child.once('exit', () => reject(new Error('the child exited')))
      })
      const spun = threadCpu([process.pid])
      // Ticks are 10 ms: the spin's 300 ms show as at least 290 in the child's threads.
      expect(spentBy(child.pid!, before, spun)).toBeGreaterThanOrEqual(290)
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Idle, it spends next to nothing: a tick or two at most.
      expect(spentBy(child.pid!, spun, threadCpu([process.pid]))).toBeLessThanOrEqual(20)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('gives nothing for a process that does not exist', () => {
    expect(threadCpu([2 ** 31 - 1]).size).toBe(0)
  })
})
