// The CUDA driver API (libcuda.so.1) through koffi: the calls the backend needs and nothing else.
// Handles (context, stream, module, function, event) are opaque `void *` values (BigInt in koffi 3);
// device pointers are CUdeviceptr (uint64), kept as JS numbers (device addresses fit in 53 bits).
// Out-parameters are passed as typed arrays, which koffi hands to C as pointers to their memory.
import { bindLibrary, koffi, type NativeFunction } from './koffi.js';

export type Handle = bigint;
export type DevicePtr = number;

const CUDA_SUCCESS = 0;
const CUDA_ERROR_NOT_READY = 600;
export const CUDA_ERROR_OUT_OF_MEMORY = 2;

/** A CUDA driver call that returned an error; `code` is the CUresult. */
export class CudaError extends Error {
  constructor(readonly call: string, readonly code: number, detail: string) {
    super(`${call} failed: ${detail} (CUresult ${code})`);
    this.name = 'CudaError';
  }
}

export interface DeviceInfo {
  ordinal: number;
  name: string;
  /** e.g. 'sm_90' */
  arch: string;
  computeCapability: [number, number];
  multiprocessors: number;
  totalMemory: number;
  /** Largest dynamic shared memory a block may opt in to. */
  maxSharedPerBlockOptin: number;
  /** e.g. '13.0' (the driver's CUDA version) */
  driverCudaVersion: string;
}

// CUdevice_attribute values (cuda.h).
const ATTR_MULTIPROCESSOR_COUNT = 16;
const ATTR_CC_MAJOR = 75;
const ATTR_CC_MINOR = 76;
const ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97;
const FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
const CU_STREAM_NON_BLOCKING = 1;
const CU_EVENT_DISABLE_TIMING = 2;

export class CudaDriver {
  private readonly fn: Record<string, NativeFunction>;
  private readonly u64 = new BigUint64Array(1);
  private readonly i32 = new Int32Array(2);

  constructor(libraryPath: string) {
    this.fn = bindLibrary(libraryPath, [
      'int cuInit(unsigned int flags)',
      'int cuDriverGetVersion(void *version)',
      'int cuDeviceGetCount(void *count)',
      'int cuDeviceGet(void *device, int ordinal)',
      'int cuDeviceGetName(void *name, int len, int device)',
      'int cuDeviceGetAttribute(void *value, int attribute, int device)',
      'int cuDeviceTotalMem_v2(void *bytes, int device)',
      'int cuDevicePrimaryCtxRetain(void *context, int device)',
      'int cuCtxSetCurrent(void *context)',
      'int cuStreamCreate(void *stream, unsigned int flags)',
      'int cuStreamSynchronize(void *stream)',
      'int cuStreamQuery(void *stream)',
      'int cuMemAlloc_v2(void *dptr, size_t bytes)',
      'int cuMemFree_v2(uint64_t dptr)',
      'int cuMemAllocHost_v2(void *pointer, size_t bytes)',
      'int cuMemFreeHost(void *pointer)',
      'int cuMemGetInfo_v2(void *free, void *total)',
      'int cuMemcpyHtoDAsync_v2(uint64_t dst, void *src, size_t bytes, void *stream)',
      'int cuMemcpyDtoHAsync_v2(void *dst, uint64_t src, size_t bytes, void *stream)',
      'int cuMemcpyDtoDAsync_v2(uint64_t dst, uint64_t src, size_t bytes, void *stream)',
      'int cuMemsetD8Async(uint64_t dst, uint8_t value, size_t count, void *stream)',
      'int cuModuleLoadData(void *module, void *image)',
      'int cuModuleGetFunction(void *fn, void *module, const char *name)',
      'int cuFuncSetAttribute(void *fn, int attribute, int value)',
      'int cuLaunchKernel(void *fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int sharedBytes, void *stream, void *params, void *extra)',
      'int cuEventCreate(void *event, unsigned int flags)',
      'int cuEventRecord(void *event, void *stream)',
      'int cuEventQuery(void *event)',
      'int cuEventSynchronize(void *event)',
      'int cuEventElapsedTime(void *ms, void *start, void *end)',
      'int cuEventDestroy_v2(void *event)',
      'int cuGetErrorName(int code, void *name)',
    ]);
  }

  /** Throws CudaError for a failed call, with the driver's own name for the error. */
  check(call: string, code: number): void {
    if (code === CUDA_SUCCESS) return;
    let detail = 'unknown error';
    const out = new BigUint64Array(1);
    if (this.fn.cuGetErrorName(code, out) === CUDA_SUCCESS && out[0] !== 0n) {
      detail = koffi().decode(out[0], 'char', -1) as string;
    }
    throw new CudaError(call, code, detail);
  }

  private call(name: string, ...args: unknown[]): void {
    this.check(name, this.fn[name](...args));
  }

  /** `call` on one of libuv's threads: settles with the status checked, this thread free meanwhile. */
  private callAsync(name: string, ...args: unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.fn[name].async(...args, (error: unknown, code: number) => {
        if (error) reject(error as Error);
        else {
          try {
            this.check(name, code);
            resolve();
          } catch (failed) {
            reject(failed as Error);
          }
        }
      });
    });
  }

  private handleOut(name: string, ...args: unknown[]): Handle {
    this.u64[0] = 0n;
    this.call(name, this.u64, ...args);
    return this.u64[0];
  }

  private intOut(name: string, ...args: unknown[]): number {
    this.call(name, this.i32, ...args);
    return this.i32[0];
  }

  init(): void {
    this.call('cuInit', 0);
  }

  /** init() on one of libuv's threads: cuInit takes 0.5–1 s with several GPUs, and this thread may do other work meanwhile. */
  initAsync(): Promise<void> {
    return this.callAsync('cuInit', 0);
  }

  deviceCount(): number {
    return this.intOut('cuDeviceGetCount');
  }

  deviceInfo(ordinal: number): DeviceInfo {
    const device = this.intOut('cuDeviceGet', ordinal);
    const nameBuffer = Buffer.alloc(256);
    this.call('cuDeviceGetName', nameBuffer, nameBuffer.length, device);
    const attribute = (a: number) => this.intOut('cuDeviceGetAttribute', a, device);
    const major = attribute(ATTR_CC_MAJOR);
    const minor = attribute(ATTR_CC_MINOR);
    const total = new BigUint64Array(1);
    this.call('cuDeviceTotalMem_v2', total, device);
    const version = this.intOut('cuDriverGetVersion');
    return {
      ordinal: device,
      name: nameBuffer.toString('utf8', 0, nameBuffer.indexOf(0)),
      arch: `sm_${major}${minor}`,
      computeCapability: [major, minor],
      multiprocessors: attribute(ATTR_MULTIPROCESSOR_COUNT),
      totalMemory: Number(total[0]),
      maxSharedPerBlockOptin: attribute(ATTR_MAX_SHARED_PER_BLOCK_OPTIN),
      driverCudaVersion: `${Math.floor(version / 1000)}.${(version % 1000) / 10}`,
    };
  }

  /**
   * Retains the device's primary context on one of libuv's threads (0.3–0.6 s on a host of several GPUs) and makes it
   * current nowhere: `useDevice` later retains it again on this thread and finds it made. It stays retained for the
   * process's life.
   */
  retainPrimaryContextAsync(ordinal: number): Promise<void> {
    const device = this.intOut('cuDeviceGet', ordinal);
    const context = new BigUint64Array(1); // its own: the call writes it from another thread
    return this.callAsync('cuDevicePrimaryCtxRetain', context, device);
  }

  /** Makes the device's primary context current on this thread (the one JS thread) and returns it. */
  useDevice(ordinal: number): Handle {
    const device = this.intOut('cuDeviceGet', ordinal);
    const context = this.handleOut('cuDevicePrimaryCtxRetain', device);
    this.call('cuCtxSetCurrent', context);
    return context;
  }

  createStream(): Handle {
    return this.handleOut('cuStreamCreate', CU_STREAM_NON_BLOCKING);
  }

  synchronize(stream: Handle): void {
    this.call('cuStreamSynchronize', stream);
  }

  /** True when all work queued on the stream has finished. */
  streamDone(stream: Handle): boolean {
    const code = this.fn.cuStreamQuery(stream);
    if (code === CUDA_ERROR_NOT_READY) return false;
    this.check('cuStreamQuery', code);
    return true;
  }

  /** Device memory, or undefined when the device is out of memory (other errors throw). */
  tryMalloc(bytes: number): DevicePtr | undefined {
    this.u64[0] = 0n;
    const code = this.fn.cuMemAlloc_v2(this.u64, bytes);
    if (code === CUDA_ERROR_OUT_OF_MEMORY) return undefined;
    this.check('cuMemAlloc_v2', code);
    return Number(this.u64[0]);
  }

  free(ptr: DevicePtr): void {
    this.call('cuMemFree_v2', ptr);
  }

  /** Page-locked host memory (for asynchronous device-to-host copies). */
  mallocHost(bytes: number): bigint {
    return this.handleOut('cuMemAllocHost_v2', bytes);
  }

  freeHost(pointer: bigint): void {
    this.call('cuMemFreeHost', pointer);
  }

  memInfo(): { free: number; total: number } {
    const free = new BigUint64Array(1);
    const total = new BigUint64Array(1);
    this.call('cuMemGetInfo_v2', free, total);
    return { free: Number(free[0]), total: Number(total[0]) };
  }

  copyHtoD(dst: DevicePtr, src: ArrayBufferView | bigint, bytes: number, stream: Handle): void {
    this.call('cuMemcpyHtoDAsync_v2', dst, src, bytes, stream);
  }

  copyDtoH(dst: ArrayBufferView | bigint, src: DevicePtr, bytes: number, stream: Handle): void {
    this.call('cuMemcpyDtoHAsync_v2', dst, src, bytes, stream);
  }

  copyDtoD(dst: DevicePtr, src: DevicePtr, bytes: number, stream: Handle): void {
    this.call('cuMemcpyDtoDAsync_v2', dst, src, bytes, stream);
  }

  memset(dst: DevicePtr, value: number, bytes: number, stream: Handle): void {
    this.call('cuMemsetD8Async', dst, value, bytes, stream);
  }

  loadModule(image: Buffer): Handle {
    return this.handleOut('cuModuleLoadData', image);
  }

  getFunction(module: Handle, name: string): Handle {
    return this.handleOut('cuModuleGetFunction', module, name);
  }

  setMaxDynamicShared(fn: Handle, bytes: number): void {
    this.call('cuFuncSetAttribute', fn, FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  }

  /** `params` is the address of an array of pointers, one per kernel argument (see KernelArgs). */
  launch(fn: Handle, grid: [number, number, number], block: [number, number, number], sharedBytes: number, stream: Handle, params: bigint): void {
    const code = this.fn.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes, stream, params, null);
    if (code !== CUDA_SUCCESS) this.check('cuLaunchKernel', code);
  }

  createEvent(timing = false): Handle {
    return this.handleOut('cuEventCreate', timing ? 0 : CU_EVENT_DISABLE_TIMING);
  }

  record(event: Handle, stream: Handle): void {
    this.call('cuEventRecord', event, stream);
  }

  /** True once all work recorded before the event has finished. */
  eventDone(event: Handle): boolean {
    const code = this.fn.cuEventQuery(event);
    if (code === CUDA_ERROR_NOT_READY) return false;
    this.check('cuEventQuery', code);
    return true;
  }

  eventSynchronize(event: Handle): void {
    this.call('cuEventSynchronize', event);
  }

  elapsedMs(start: Handle, end: Handle): number {
    const ms = new Float32Array(1);
    this.call('cuEventElapsedTime', ms, start, end);
    return ms[0];
  }

  destroyEvent(event: Handle): void {
    this.call('cuEventDestroy_v2', event);
  }
}
