import type { backend_util, DataId, DataType, TensorInfo } from '@tensorflow/tfjs-core';
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { koffi } from './koffi.js';
import { loadOnednn, type OnednnLibrary } from './onednn-library.js';
import { makeLane, ROW_JOBS, splitByCost, type Lane, type RowJob, type RowJobName, type RowRange } from './row-jobs.js';
import { RowWorkers } from './row-workers.js';
import { instantiateCpuKernels } from './wasm-kernels.js';

export interface OnednnBackendOptions {
  /** Threads for oneDNN's GEMMs; default: every core of the machine (the OpenMP runtime's default). */
  threads?: number;
}

/**
 * tfjs' cpu backend (tensors in JavaScript typed arrays, every tfjs kernel) with the hot @virnucpro/ops kernels
 * replaced: GEMMs in oneDNN (multi-threaded, AVX-512 where the CPU has it) called through koffi on the arrays
 * themselves, and the element-wise work between them in WebAssembly SIMD (row-jobs.ts), their rows split among helper threads.
 */
/**
 * Free SharedArrayBuffers kept for reuse: every kernel output of a layer is one (DNABERT-S: 7 per layer, all freed
 * together at the layer's end), so the next layer finds them all.
 */
const SHARED_POOL_SIZE = 12;


function unshared(values: backend_util.BackendValues): backend_util.BackendValues {
  return values instanceof Float32Array && values.buffer instanceof SharedArrayBuffer ? values.slice() : values;
}

export class OnednnBackend extends MathBackendCPU {
  readonly onednn: OnednnLibrary;
  /** The calling thread's kernels: its WebAssembly instance (an arena) and oneDNN's sgemm. */
  readonly wasm: Lane;

  constructor(options: OnednnBackendOptions = {}) {
    super();
    this.onednn = loadOnednn();
    if (options.threads !== undefined) this.onednn.threads = options.threads;
    const onednn = this.onednn;
    this.wasm = makeLane(instantiateCpuKernels(), (buffer) => Number(koffi().address(new Uint8Array(buffer))), (...args) => onednn.sgemm(...args));
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
      this.workers = new RowWorkers(helpers, this.onednn.path);
    }
    return this.workers;
  }

  private workers: RowWorkers | undefined;

  /**
   * Runs row job `name` over `count` rows (or segments) split into contiguous ranges of about equal `cost`, one per
   * thread (the calling thread takes the last), or over all of them here with one thread. `job` makes a range's
   * argument. While the helpers run, the calling thread's own GEMMs (attention) run on it alone: the other cores
   * are busy with the helpers' ranges.
   */
  runRows<N extends RowJobName>(name: N, count: number, job: (range: RowRange) => RowJob<N>, cost: (i: number) => number = () => 1): void {
    const run = ROW_JOBS[name] as (lane: Lane, job: RowJob<N>) => void;
    const workers = this.rowWorkers();
    if (!workers) {
      run(this.wasm, job({ from: 0, to: count }));
      return;
    }
    const ranges = splitByCost(count, workers.helpers + 1, cost);
    const mine = ranges.pop() as RowRange;
    const threads = this.onednn.threads;
    this.onednn.threads = 1;
    try {
      workers.run(name, ranges.map((range) => (range.to > range.from ? job(range) : null)), () => run(this.wasm, job(mine)));
    } finally {
      this.onednn.threads = threads;
    }
  }

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

  /**
   * The values on a SharedArrayBuffer, for the helper threads: `values` themselves when they are, else a copy in a
   * pooled buffer, which `done()` gives back once the kernel no longer reads it.
   */
  sharedInput(values: Float32Array): { values: Float32Array; done: () => void } {
    if (values.buffer instanceof SharedArrayBuffer) return { values, done: () => {} };
    const copy = this.sharedFloats(values.length);
    copy.set(values);
    return { values: copy, done: () => this.recycle(copy.buffer as SharedArrayBuffer) };
  }

  /**
   * Tensors whose values lie on each SharedArrayBuffer. Usually one, but tfjs' cpu kernels may hand out a view of
   * their input as their output (a contiguous slice is a subarray): a buffer goes back to the pool only when the
   * last tensor on it is disposed (measured: recycled at the first, segmentMean's slices of DNABERT-S's last
   * layer shared their buffer with the next batch's tensors, and the embeddings changed).
   */
  private readonly sharedUsers = new Map<SharedArrayBuffer, number>();

  private track(values: backend_util.BackendValues | undefined): void {
    const buffer = values instanceof Float32Array ? values.buffer : undefined;
    if (buffer instanceof SharedArrayBuffer) this.sharedUsers.set(buffer, (this.sharedUsers.get(buffer) ?? 0) + 1);
  }

  override write(values: backend_util.BackendValues, shape: number[], dtype: DataType): DataId {
    const dataId = super.write(values, shape, dtype);
    this.track(values);
    return dataId;
  }

  override move(dataId: DataId, values: backend_util.BackendValues, shape: number[], dtype: DataType, refCount: number): void {
    super.move(dataId, values, shape, dtype, refCount);
    this.track(values);
  }

  override disposeData(dataId: DataId, force = false): boolean {
    const values = this.data.has(dataId) ? this.data.get(dataId).values : undefined;
    const deleted = super.disposeData(dataId, force);
    const buffer = deleted && values instanceof Float32Array ? values.buffer : undefined;
    if (buffer instanceof SharedArrayBuffer) {
      const users = (this.sharedUsers.get(buffer) ?? 1) - 1;
      if (users > 0) this.sharedUsers.set(buffer, users);
      else {
        this.sharedUsers.delete(buffer);
        this.recycle(buffer);
      }
    }
    return deleted;
  }

  private recycle(buffer: SharedArrayBuffer): void {
    this.sharedPool.push(buffer);
    if (this.sharedPool.length > SHARED_POOL_SIZE) this.sharedPool.shift();
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
