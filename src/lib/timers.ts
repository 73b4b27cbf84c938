/**
 * A signal that aborts after `ms`, with a timer its owner clears once the work it guards is done.
 * workerd allows an isolate 10,000 active timers and counts AbortSignal.timeout's among them until
 * they fire, so every timer that guards a call must end with the call: one left running per request
 * exhausts the isolate under load, after which every timer (and so every outbound call) throws.
 */
export function clearableTimeout(ms: number, reason: () => unknown = () => new DOMException(`timed out after ${ms} ms`, 'TimeoutError')): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController()
  const id = setTimeout(() => controller.abort(reason()), ms)
  return { signal: controller.signal, clear: () => clearTimeout(id) }
}
