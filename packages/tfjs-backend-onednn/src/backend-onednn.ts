import type { DataId, TensorInfo } from '@tensorflow/tfjs-core';
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { loadOnednn, type OnednnLibrary } from './onednn-library.js';
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
export class OnednnBackend extends MathBackendCPU {
  readonly onednn: OnednnLibrary;
  readonly wasm = new WasmKernels();

  constructor(options: OnednnBackendOptions = {}) {
    super();
    this.onednn = loadOnednn();
    if (options.threads !== undefined) this.onednn.threads = options.threads;
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
