import { koffi } from './koffi.js';
import { CPU_KERNELS_WASM_BASE64 } from './wasm/cpu-kernels-wasm.js';

// The WebAssembly JS API types used here (the package compiles without the DOM lib); types only, erased.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/** The exports of assembly/cpu-kernels.ts (addresses are byte offsets in `memory`). */
export interface CpuKernelExports {
  memory: WasmMemory;
  linearEpilogue(y: number, rows: number, cols: number, bias: number, residual: number, gelu: number): void;
  layerNorm(x: number, out: number, rows: number, d: number, gamma: number, beta: number, eps: number): void;
  softmaxRows(s: number, rows: number, n: number, slope: number): void;
  rotaryQk(qkv: number, rows: number, heads: number, hd: number, cos: number, sinSigned: number, positions: number): void;
  geglu(x: number, out: number, rows: number, f: number): void;
}

/** A new instance of the kernels' module (each thread has its own: its memory is the thread's arena). */
export function instantiateCpuKernels(): CpuKernelExports {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const bytes = Buffer.from(CPU_KERNELS_WASM_BASE64, 'base64');
  const instance = new wasm.Instance(new wasm.Module(bytes), { env: { abort: () => { throw new Error('cpu-kernels: abort'); } } });
  return instance.exports as unknown as CpuKernelExports;
}

/** The process address of a typed array's first element (its memory stays put: V8 never moves a backing store). */
export function addressOf(values: Float32Array | Int32Array): number {
  return Number(koffi().address(values));
}
