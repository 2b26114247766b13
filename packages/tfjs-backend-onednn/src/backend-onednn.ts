import type { backend_util, DataId, TensorInfo } from '@tensorflow/tfjs-core';
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { loadOnednn, type OnednnLibrary } from './onednn-library.js';
import { RowWorkers } from './row-workers.js';
import { WasmKernels } from './wasm-kernels.js';

export interface OnednnBackendOptions {
  /** Threads for oneDNN's GEMMs; default: every core of the machine (the OpenMP runtime's default). */
  threads?: number;
}

/**
 * tfjs' cpu backend (tensors in JavaScript typed arrays, every tfjs kernel) with the hot @virnucpro/ops kernels
 * replaced: GEMMs in oneDNN (multi-threaded, AVX-512 where the CPU has it) called through koffi on the arrays
 * themselves, and the element-wise work between them in WebAssembly SIMD (`WasmKernels`).
 */
/** Free SharedArrayBuffers kept for reuse (a layer needs two at a time: the GeGLU input and output). */
const SHARED_POOL_SIZE = 4;

function unshared(values: backend_util.BackendValues): backend_util.BackendValues {
  return values instanceof Float32Array && values.buffer instanceof SharedArrayBuffer ? values.slice() : values;
}

export class OnednnBackend extends MathBackendCPU {
  readonly onednn: OnednnLibrary;
  readonly wasm = new WasmKernels();

  constructor(options: OnednnBackendOptions = {}) {
    super();
    this.onednn = loadOnednn();
    if (options.threads !== undefined) this.onednn.threads = options.threads;
  }

  /**
   * Helper threads for the element-wise kernels, one fewer than the GEMMs' threads (the calling thread is one);
   * undefined with one thread. Started on first use.
   */
  rowWorkers(): RowWorkers | undefined {
    const helpers = (this.onednn.threads ?? 1) - 1;
    if (helpers < 1) return undefined;
    if (this.workers?.helpers !== helpers) {
      this.workers?.terminate();
      this.workers = new RowWorkers(helpers);
    }
    return this.workers;
  }

  private workers: RowWorkers | undefined;

  override dispose(): void {
    super.dispose();
    this.workers?.terminate();
    this.workers = undefined;
  }

  /**
   * SharedArrayBuffers of disposed tensors, reused by `sharedFloats`: V8 does not count their memory as pressure,
   * so without reuse each layer's GeGLU input and output stayed allocated until some later collection (measured:
   * DNABERT-S full size, 200 sequences, peak RSS 6.2 GB against 1.1 GB).
   */
  private readonly sharedPool: SharedArrayBuffer[] = [];

  /** A float32 array of `count` values on a SharedArrayBuffer (a reused one when one is free; not zeroed). */
  sharedFloats(count: number): Float32Array {
    const bytes = count * 4;
    let best = -1;
    this.sharedPool.forEach((buffer, i) => {
      if (buffer.byteLength >= bytes && (best < 0 || buffer.byteLength < this.sharedPool[best].byteLength)) best = i;
    });
    const buffer = best >= 0 ? this.sharedPool.splice(best, 1)[0] : new SharedArrayBuffer(bytes);
    return new Float32Array(buffer, 0, count);
  }

  override disposeData(dataId: DataId, force = false): boolean {
    const values = this.data.has(dataId) ? this.data.get(dataId).values : undefined;
    const deleted = super.disposeData(dataId, force);
    if (deleted && values instanceof Float32Array && values.buffer instanceof SharedArrayBuffer) {
      this.sharedPool.push(values.buffer);
      if (this.sharedPool.length > SHARED_POOL_SIZE) this.sharedPool.shift();
    }
    return deleted;
  }

  // What a reader gets must outlive the tensor, and a shared buffer is reused once the tensor is disposed: a copy.
  override readSync(dataId: DataId): backend_util.BackendValues {
    return unshared(super.readSync(dataId));
  }

  override async read(dataId: DataId): Promise<backend_util.BackendValues> {
    return unshared(await super.read(dataId));
  }

  /** The float32 values of a tensor (the typed array the tensor owns, not a copy). */
  floats(info: TensorInfo): Float32Array {
    return this.valuesOf(info.dataId) as Float32Array;
  }

  ints(info: TensorInfo): Int32Array {
    return this.valuesOf(info.dataId) as Int32Array;
  }

  private valuesOf(dataId: DataId): Float32Array | Int32Array {
    return this.data.get(dataId).values as Float32Array | Int32Array;
  }
}
