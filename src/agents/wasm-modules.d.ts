/** A `.wasm` import is a module compiled at build time (wrangler's and the test pool's rule). */
declare module '*.wasm' {
  const module: WebAssembly.Module
  export default module
}

/** The Emscripten loader of tfjs's WASM backend (the package ships no types for it). */
declare module '@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.js' {
  export interface BackendModule {
    cwrap(name: string, returns: string | null, args: string[]): (...args: number[]) => number
    tfjs?: Record<string, (...args: number[]) => number>
  }
  const factory: (config: { instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void): object }) => Promise<BackendModule>
  export default factory
}
