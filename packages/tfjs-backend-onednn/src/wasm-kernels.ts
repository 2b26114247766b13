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

const PAGE = 65536;
/** The module's own data lives below this offset; the arena hands out what lies above. */
const ARENA_BASE = PAGE;
const ALIGN = 64;

/**
 * The kernels' module and its memory, used as an arena: each kernel call lays out the regions it needs from the
 * start (`layout`), copies its inputs in, runs, and copies its outputs out. Memory only grows (to the largest call).
 */
export class WasmKernels {
  readonly kernels: CpuKernelExports;
  private base = 0n;
  private baseBuffer: ArrayBuffer | undefined;

  constructor() {
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const bytes = Buffer.from(CPU_KERNELS_WASM_BASE64, 'base64');
    const instance = new wasm.Instance(new wasm.Module(bytes), { env: { abort: () => { throw new Error('cpu-kernels: abort'); } } });
    this.kernels = instance.exports as unknown as CpuKernelExports;
  }

  /** Byte offsets of regions of the given float (or int32) counts, 64-byte aligned; grows the memory to fit. */
  layout(...counts: number[]): number[] {
    const offsets: number[] = [];
    let top = ARENA_BASE;
    for (const count of counts) {
      offsets.push(top);
      top += Math.ceil((count * 4) / ALIGN) * ALIGN;
    }
    const memory = this.kernels.memory;
    const missing = Math.ceil(top / PAGE) - memory.buffer.byteLength / PAGE;
    if (missing > 0) memory.grow(missing);
    return offsets;
  }

  f32(offset: number, count: number): Float32Array {
    return new Float32Array(this.kernels.memory.buffer, offset, count);
  }

  i32(offset: number, count: number): Int32Array {
    return new Int32Array(this.kernels.memory.buffer, offset, count);
  }

  /** The process address of a byte offset in the module's memory, for oneDNN (valid until the memory grows). */
  address(offset: number): number {
    const buffer = this.kernels.memory.buffer;
    if (buffer !== this.baseBuffer) {
      this.baseBuffer = buffer;
      this.base = koffi().address(new Uint8Array(buffer));
    }
    return Number(this.base) + offset;
  }
}

/** The process address of a typed array's first element (its memory stays put: V8 never moves a backing store). */
export function addressOf(values: Float32Array | Int32Array): number {
  return Number(koffi().address(values));
}
