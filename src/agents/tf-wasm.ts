/**
 * TensorFlow.js's WASM backend (XNNPACK kernels with SIMD) for the offline encoder: 10-30x faster
 * than the pure-JS CPU backend on its graph, with the same outputs. workerd refuses to compile
 * WebAssembly from bytes at run time, so the binary is a module the bundler compiles at build time,
 * handed to the backend's Emscripten loader through its `instantiateWasm` hook instead of the
 * loader's own fetch-and-compile.
 */
import * as tf from '@tensorflow/tfjs-core'
import { BackendWasm } from '@tensorflow/tfjs-backend-wasm'
import createBackendModule, { type BackendModule } from '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.js'
import simdBinary from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm'

const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const

type NodeLike = { __dirname?: string; process?: { listeners?(e: string): unknown[]; removeListener?(e: string, l: unknown): void } }

/**
 * Starts the Emscripten module. Under nodejs_compat its loader takes workerd for Node: it reads
 * `__dirname` (which workerd does not define: it gets a directory it never uses, since the binary
 * comes through `instantiateWasm`) and adds process handlers that rethrow every uncaught error (they
 * are taken back as soon as it returns, so the Worker's own error handling stays as it was).
 */
function startModule(): Promise<BackendModule> {
  const g = globalThis as NodeLike
  const proc = g.process
  const before = PROCESS_EVENTS.map((e) => new Set(proc?.listeners?.(e) ?? []))
  const hadDirname = '__dirname' in g
  if (!hadDirname) g.__dirname = '/'
  try {
    return createBackendModule({
      instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        void WebAssembly.instantiate(simdBinary, imports).then((instance) => receive(instance, simdBinary))
        return {}
      },
    })
  } finally {
    if (!hadDirname) delete g.__dirname
    PROCESS_EVENTS.forEach((e, i) => proc?.listeners?.(e).forEach((l) => before[i].has(l) || proc.removeListener?.(e, l)))
  }
}

let registered = false

/**
 * Makes the WASM backend tfjs's backend. Registered once per isolate (by the first start to finish:
 * a second start, after a load was taken over, drops its module); no pending start is shared between
 * requests (see lib/isolate-lease.ts).
 */
export async function useWasmBackend(): Promise<void> {
  if (!registered) {
    const wasm = await startModule()
    if (!registered) {
      // The bridge the backend expects on its module (as its own loader sets it up).
      wasm.tfjs = {
        init: wasm.cwrap('init', null, []),
        initWithThreadsCount: wasm.cwrap('init_with_threads_count', null, ['number']),
        getThreadsCount: wasm.cwrap('get_threads_count', 'number', []),
        registerTensor: wasm.cwrap('register_tensor', null, ['number', 'number', 'number']),
        disposeData: wasm.cwrap('dispose_data', null, ['number']),
        dispose: wasm.cwrap('dispose', null, []),
      }
      // The package registers a backend of its own on import, which would fetch and compile the binary.
      tf.removeBackend('wasm')
      tf.registerBackend('wasm', () => new BackendWasm(wasm as never), 3)
      registered = true
    }
  }
  if (tf.getBackend() !== 'wasm' && !(await tf.setBackend('wasm'))) throw new Error('the WASM backend did not start')
}
