// The tfjs KernelBackend 'cuda': tensor data in device memory (caching allocator), one stream per process,
// kernels compiled by NVRTC, GEMMs by cuBLASLt. Float32 tensors are stored in the precision's storage type.
import { DataStorage, engine, KernelBackend, type BackendTimingInfo, type BackendValues, type DataId, type DataType, type TensorInfo } from '@tensorflow/tfjs-core';
import { CachingAllocator } from './caching-allocator.js';
import { CublasLt } from './cublaslt.js';
import { CudaDriver, type DeviceInfo, type DevicePtr, type Handle } from './cuda-driver.js';
import { castSource } from './cuda/cast.js';
import { hostTrace } from './host-trace.js';
import { GpuUtilizationSampler, nvmlUtilizationReader, type UtilizationTotals } from './gpu-utilization.js';
import { KernelCache } from './kernel-cache.js';
import { KernelProfiler, type KernelTime } from './kernel-profiler.js';
import { koffi } from './koffi.js';
import { KernelLibrary, type ArgSignature, type CudaSource } from './kernel-library.js';
import { findCudaLibraries, type CudaLibraries } from './library-discovery.js';
import { Nvrtc } from './nvrtc.js';
import { bytesPerElement, defaultPrecision, floatStorage, storageDefine, type Precision, type StorageType } from './precision.js';

export interface CudaBackendOptions {
  /** Ordinal among the visible devices (CUDA_VISIBLE_DEVICES picks which those are). Default 0. */
  device?: number;
  /** Storage precision of float32 tensors. Default 'fp16'. */
  precision?: Precision;
  /** Library paths; found with findCudaLibraries() when not given. */
  libraries?: CudaLibraries;
  /** Folder of the NVRTC kernel cache (default: see KernelCache). */
  cacheDir?: string;
}

export interface CudaBackendDescription {
  device: string;
  arch: string;
  driverCudaVersion: string;
  nvrtcVersion: string;
  cublasLtVersion: number;
  precision: Precision;
  libraries: { cuda: string; cublasLt: string; nvrtc: string; includeDir: string };
}

export interface TensorData {
  ptr: DevicePtr;
  /** Elements. */
  size: number;
  storage: StorageType;
  dtype: DataType;
  refCount: number;
}

const WORKSPACE_BYTES = 64 * 2 ** 20;
const THREADS = 256;

export class CudaBackend extends KernelBackend {
  readonly driver: CudaDriver;
  readonly device: DeviceInfo;
  readonly stream: Handle;
  readonly allocator: CachingAllocator;
  readonly kernels: KernelLibrary;
  readonly blas: CublasLt;
  /** The precision the backend was created with (float tensors are stored in it unless in withFullPrecision). */
  readonly precision: Precision;
  readonly libraries: CudaLibraries;
  readonly nvrtcVersion: string;
  private readonly data: DataStorage<TensorData>;
  private readonly staging: { ptr: bigint; bytes: number; busy: boolean }[] = [];
  private readonly constants = new Map<string, DevicePtr>();
  private profiler: KernelProfiler | undefined;
  private utilization: GpuUtilizationSampler | undefined;
  private storage: StorageType;

  constructor(options: CudaBackendOptions = {}) {
    super();
    this.libraries = options.libraries ?? findCudaLibraries();
    this.driver = new CudaDriver(this.libraries.cuda);
    this.driver.init();
    const ordinal = options.device ?? 0;
    const count = this.driver.deviceCount();
    if (ordinal >= count) throw new Error(`CUDA device ${ordinal} requested but ${count} visible (CUDA_VISIBLE_DEVICES=${process.env.CUDA_VISIBLE_DEVICES ?? 'unset'})`);
    this.device = this.driver.deviceInfo(ordinal);
    this.driver.useDevice(ordinal);
    this.stream = this.driver.createStream();
    this.allocator = new CachingAllocator(this.driver);
    this.precision = options.precision ?? defaultPrecision;
    this.storage = floatStorage(this.precision);
    const nvrtc = new Nvrtc(this.libraries.nvrtc, this.libraries.nvrtcBuiltins);
    this.nvrtcVersion = nvrtc.version;
    this.kernels = new KernelLibrary(this.driver, nvrtc, new KernelCache(options.cacheDir), this.device.arch, this.libraries.includeDir);
    const workspace = { ptr: this.allocator.alloc(WORKSPACE_BYTES), bytes: WORKSPACE_BYTES };
    this.blas = new CublasLt(this.libraries.cublasLt, workspace);
    this.data = new DataStorage(this, engine());
  }

  // ---- tensor storage -------------------------------------------------------------------------

  /** Storage type of float tensors written or computed now. */
  get floatStorage(): StorageType {
    return this.storage;
  }

  /**
   * Runs `fn` with float tensors stored (and so computed) in exact fp32, e.g. to build an fp32 copy of a model and
   * recompute a batch whose fp16 output overflowed. The setting holds while `fn` runs synchronously: a model's
   * forward pass queues all its kernels before its first await, and reading results back works in any setting.
   */
  withFullPrecision<T>(fn: () => T): T {
    const previous = this.storage;
    this.storage = 'f32';
    try {
      return fn();
    } finally {
      this.storage = previous;
    }
  }

  storageOf(dtype: DataType): StorageType {
    if (dtype === 'float32') return this.floatStorage;
    if (dtype === 'int32' || dtype === 'bool') return 'i32';
    throw new Error(`the cuda backend does not store ${dtype} tensors`);
  }

  override write(values: BackendValues | null, shape: number[], dtype: DataType): DataId {
    const dataId = {};
    this.store(dataId, values, shape, dtype, 1);
    return dataId;
  }

  override move(dataId: DataId, values: BackendValues | null, shape: number[], dtype: DataType, refCount: number): void {
    this.store(dataId, values, shape, dtype, refCount);
  }

  private store(dataId: DataId, values: BackendValues | null, shape: number[], dtype: DataType, refCount: number): void {
    const size = shape.reduce((a, b) => a * b, 1);
    const storage = this.storageOf(dtype);
    const ptr = this.allocator.alloc(size * bytesPerElement(storage));
    this.data.set(dataId, { ptr, size, storage, dtype, refCount });
    if (values != null && size > 0) this.upload(ptr, values, size, storage);
  }

  private upload(ptr: DevicePtr, values: BackendValues, size: number, storage: StorageType): void {
    if (storage === 'i32') {
      const ints = values instanceof Int32Array ? values : Int32Array.from(values as ArrayLike<number>);
      this.driver.copyHtoD(ptr, ints, size * 4, this.stream);
      return;
    }
    const floats = values instanceof Float32Array ? values : Float32Array.from(values as ArrayLike<number>);
    if (storage === 'f32') {
      this.driver.copyHtoD(ptr, floats, size * 4, this.stream);
      return;
    }
    // fp32 up, converted on the GPU: the host never touches a half.
    const temp = this.allocator.alloc(size * 4);
    this.driver.copyHtoD(temp, floats, size * 4, this.stream);
    this.launch(castSource, 'f32_to_t', [], blocks(size), [THREADS, 1, 1], 0, 'ppl', temp, ptr, size);
    this.allocator.release(temp);
  }

  /** Output tensor of the given shape, uninitialised. */
  makeOutput(shape: number[], dtype: DataType = 'float32'): TensorInfo {
    return { dataId: this.write(null, shape, dtype), shape, dtype };
  }

  /** Output tensor holding `values` (host data). */
  makeTensorInfo(shape: number[], dtype: DataType, values?: BackendValues): TensorInfo {
    return { dataId: this.write(values ?? null, shape, dtype), shape, dtype };
  }

  tensorData(dataId: DataId): TensorData {
    const d = this.data.get(dataId);
    if (!d) throw new Error('cuda backend: tensor data not found (disposed, or from another backend)');
    return d;
  }

  /** Device address of a kernel input's data; float inputs must be stored in the current storage type. */
  ptr(info: TensorInfo): DevicePtr {
    const d = this.tensorData(info.dataId);
    if (d.storage !== this.storage && d.storage !== 'i32') {
      throw new Error(`cuda backend: a tensor stored as ${d.storage} is used where kernels compute in ${this.storage} (mixing tensors made inside and outside withFullPrecision)`);
    }
    return d.ptr;
  }

  override refCount(dataId: DataId): number {
    return this.data.has(dataId) ? this.data.get(dataId).refCount : 0;
  }

  override incRef(dataId: DataId): void {
    this.data.get(dataId).refCount++;
  }

  override numDataIds(): number {
    return this.data.numDataIds();
  }

  override disposeData(dataId: DataId, force = false): boolean {
    if (!this.data.has(dataId)) return true;
    const d = this.data.get(dataId);
    d.refCount--;
    if (!force && d.refCount > 0) return false;
    this.allocator.release(d.ptr);
    this.data.delete(dataId);
    return true;
  }

  disposeIntermediateTensorInfo(info: TensorInfo): void {
    this.disposeData(info.dataId);
  }

  override readSync(dataId: DataId): BackendValues {
    const d = this.tensorData(dataId);
    const host = d.storage === 'i32' ? new Int32Array(d.size) : new Float32Array(d.size);
    if (d.size === 0) return this.hostValues(host, d.dtype);
    const src = this.asFloat32OrInt(d);
    // A device-to-pageable copy returns only when the copy (and all work queued before it) has finished.
    this.driver.copyDtoH(host, src.ptr, d.size * 4, this.stream);
    this.driver.synchronize(this.stream);
    src.release();
    return this.hostValues(host, d.dtype);
  }

  override async read(dataId: DataId): Promise<BackendValues> {
    const d = this.tensorData(dataId);
    const bytes = d.size * 4;
    if (d.size === 0) return this.hostValues(d.storage === 'i32' ? new Int32Array(0) : new Float32Array(0), d.dtype);
    const src = this.asFloat32OrInt(d);
    const stage = this.stagingBuffer(bytes);
    this.driver.copyDtoH(stage.ptr, src.ptr, bytes, this.stream);
    src.release();
    await this.whenDone();
    const view = new Uint8Array(koffiView(stage.ptr, bytes));
    const copy = new Uint8Array(bytes);
    copy.set(view);
    stage.busy = false;
    const host = d.storage === 'i32' ? new Int32Array(copy.buffer) : new Float32Array(copy.buffer);
    return this.hostValues(host, d.dtype);
  }

  /** Resolves once all work queued so far on the stream has finished, polling an event (the JS thread stays free). */
  async whenDone(): Promise<void> {
    const event = this.driver.createEvent();
    this.driver.record(event, this.stream);
    try {
      let wait = 0;
      while (!this.driver.eventDone(event)) {
        await new Promise((resolve) => (wait < 20 ? setImmediate(resolve) : setTimeout(resolve, 1)));
        wait++;
      }
      const trace = hostTrace();
      if (trace && this.driver.streamDone(this.stream)) trace.streamDrained();
    } finally {
      this.driver.destroyEvent(event);
    }
  }

  private hostValues(host: Float32Array | Int32Array, dtype: DataType): BackendValues {
    return dtype === 'bool' ? Uint8Array.from(host) : host;
  }

  /** The tensor's data as fp32/int32 on the device (a converted copy for 16-bit storage). */
  private asFloat32OrInt(d: TensorData): { ptr: DevicePtr; release(): void } {
    if (d.storage === 'f32' || d.storage === 'i32') return { ptr: d.ptr, release() {} };
    const temp = this.allocator.alloc(d.size * 4);
    this.launchIn(d.storage, castSource, 't_to_f32', [], blocks(d.size), [THREADS, 1, 1], 0, 'ppl', d.ptr, temp, d.size);
    return { ptr: temp, release: () => this.allocator.release(temp) };
  }

  private stagingBuffer(bytes: number): { ptr: bigint; bytes: number; busy: boolean } {
    let stage = this.staging.find((s) => !s.busy && s.bytes >= bytes);
    if (!stage) {
      const size = Math.max(bytes, 2 ** 20);
      stage = { ptr: this.driver.mallocHost(size), bytes: size, busy: false };
      this.staging.push(stage);
    }
    stage.busy = true;
    return stage;
  }

  /** A small constant array on the device (e.g. ALiBi slopes), uploaded once per distinct content. */
  constantFloats(values: readonly number[]): DevicePtr {
    const key = values.join(',');
    let ptr = this.constants.get(key);
    if (ptr === undefined) {
      ptr = this.allocator.alloc(values.length * 4);
      this.driver.copyHtoD(ptr, Float32Array.from(values), values.length * 4, this.stream);
      this.constants.set(key, ptr);
    }
    return ptr;
  }

  // ---- kernels ---------------------------------------------------------------------------------

  /** Launches `kernel` of `source`, compiled for this backend's storage type plus `defines`. */
  launch(source: CudaSource, kernel: string, defines: readonly string[], grid: [number, number, number], block: [number, number, number], sharedBytes: number, signature: ArgSignature, ...args: number[]): void {
    this.launchIn(this.storage, source, kernel, defines, grid, block, sharedBytes, signature, ...args);
  }

  private launchIn(storage: StorageType, source: CudaSource, kernel: string, defines: readonly string[], grid: [number, number, number], block: [number, number, number], sharedBytes: number, signature: ArgSignature, ...args: number[]): void {
    const fn = this.kernels.get(source, kernel, [storageDefine(storage), ...defines]);
    if (sharedBytes > 48 * 1024) this.kernels.allowShared(fn, sharedBytes);
    const run = () => this.kernels.launch(fn, grid, block, sharedBytes, this.stream, signature, ...args);
    if (this.profiler) this.profiler.around(kernel, run);
    else run();
  }

  /** Y = X·W (+bias) (+residual) through cuBLASLt (see CublasLt.matmul). */
  gemm(rows: number, inner: number, cols: number, x: DevicePtr, w: DevicePtr, y: DevicePtr, bias: DevicePtr | undefined, residual: DevicePtr | undefined): void {
    const run = () => this.blas.matmul({ rows, inner, cols, bias: bias !== undefined, storage: this.storage }, x, w, y, bias, residual, this.stream);
    if (this.profiler) this.profiler.around(`gemm ${inner}→${cols}${residual !== undefined ? ' +residual' : ''}`, run);
    else run();
  }

  /**
   * Starts collecting how busy this GPU is (the driver's own utilisation samples through NVML, read every
   * `intervalMs`); false when NVML is not available. `utilizationTotals()` returns the samples so far.
   */
  startUtilizationSampling(intervalMs = 1000): boolean {
    if (!this.utilization) {
      const read = nvmlUtilizationReader(this.libraries.cuda, this.device.ordinal);
      if (!read) return false;
      this.utilization = new GpuUtilizationSampler(read);
    }
    this.utilization.start(intervalMs);
    return true;
  }

  utilizationTotals(): UtilizationTotals | undefined {
    return this.utilization?.current;
  }

  /** Starts timing every kernel launch (CUDA events); `stopProfile()` returns GPU time per kernel. */
  startProfile(): void {
    this.profiler = new KernelProfiler(this.driver, this.stream);
  }

  stopProfile(): KernelTime[] {
    const summary = this.profiler?.summary() ?? [];
    this.profiler = undefined;
    return summary;
  }

  /** What a run report should say about this backend. */
  describe(): CudaBackendDescription {
    return {
      device: this.device.name,
      arch: this.device.arch,
      driverCudaVersion: this.device.driverCudaVersion,
      nvrtcVersion: this.nvrtcVersion,
      cublasLtVersion: this.blas.version,
      precision: this.precision,
      libraries: { cuda: this.libraries.cuda, cublasLt: this.libraries.cublasLt, nvrtc: this.libraries.nvrtc, includeDir: this.libraries.includeDir },
    };
  }

  // ---- KernelBackend bookkeeping ---------------------------------------------------------------

  override memory(): { unreliable: boolean; numBytesInGPU: number; numBytesInGPUAllocated: number; peakBytesInGPU: number } {
    const s = this.allocator.stats();
    return { unreliable: false, numBytesInGPU: s.inUseBytes, numBytesInGPUAllocated: s.inUseBytes + s.cachedBytes, peakBytesInGPU: s.peakInUseBytes };
  }

  override timerAvailable(): boolean {
    return true;
  }

  /** GPU time of the work `f` queues (CUDA events around it). */
  override async time(f: () => void): Promise<BackendTimingInfo> {
    const start = this.driver.createEvent(true);
    const end = this.driver.createEvent(true);
    this.driver.record(start, this.stream);
    f();
    this.driver.record(end, this.stream);
    await this.whenDone();
    const kernelMs = this.driver.elapsedMs(start, end);
    this.driver.destroyEvent(start);
    this.driver.destroyEvent(end);
    return { kernelMs };
  }

  override floatPrecision(): 16 | 32 {
    return 32;
  }

  override dispose(): void {
    this.utilization?.stop();
    this.driver.synchronize(this.stream);
    hostTrace()?.stop();
  }
}

/** Grid of 1-D blocks covering n elements. */
export function blocks(n: number, threads = THREADS): [number, number, number] {
  return [Math.max(1, Math.ceil(n / threads)), 1, 1];
}

function koffiView(ptr: bigint, bytes: number): ArrayBuffer {
  return koffi().view(ptr, bytes);
}
