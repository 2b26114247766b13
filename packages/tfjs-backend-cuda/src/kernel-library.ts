// CUDA C sources compiled by NVRTC at first use (cached on disk as CUBIN for the device's arch), loaded as
// modules, and launched with arguments written into one reused parameter block (no allocation per launch).
import type { CudaDriver, Handle } from './cuda-driver.js';
import { prelude } from './cuda/prelude.js';
import type { KernelCache } from './kernel-cache.js';
import { koffi } from './koffi.js';
import type { Nvrtc } from './nvrtc.js';

/** A CUDA source file: one or more `extern "C" __global__` kernels. */
export interface CudaSource {
  /** Names the program in compiler errors. */
  name: string;
  code: string;
}

/** Argument kinds of a launch signature: p = device pointer (u64), l = int64 (long long), i = int32, f = float32. */
export type ArgSignature = string;

const MAX_ARGS = 32;

export class KernelLibrary {
  private readonly functions = new Map<string, Handle>();
  private readonly modules = new Map<string, Handle>();
  // Argument i lives in slot i (8 bytes); params[i] points at it. cuLaunchKernel copies the values, so the
  // block is rewritten for every launch.
  private readonly slots = Buffer.alloc(8 * MAX_ARGS);
  private readonly params = new BigUint64Array(MAX_ARGS);
  private readonly paramsAddress: bigint;
  /** Seconds spent compiling (cache misses) and loading, for reports. */
  compileSeconds = 0;
  compiledPrograms = 0;
  cachedPrograms = 0;

  constructor(
    private readonly driver: CudaDriver,
    private readonly nvrtc: Nvrtc,
    private readonly cache: KernelCache,
    private readonly arch: string,
    private readonly includeDir: string,
  ) {
    const base = koffi().address(this.slots);
    for (let i = 0; i < MAX_ARGS; i++) this.params[i] = base + BigInt(8 * i);
    this.paramsAddress = koffi().address(this.params);
  }

  /** The kernel `kernel` of `source` compiled with `defines` (e.g. ['-DVNP_F16', '-DHD=64']). */
  get(source: CudaSource, kernel: string, defines: readonly string[]): Handle {
    const key = `${source.name}\0${defines.join(' ')}\0${kernel}`;
    let fn = this.functions.get(key);
    if (fn === undefined) {
      fn = this.driver.getFunction(this.module(source, defines), kernel);
      this.functions.set(key, fn);
    }
    return fn;
  }

  /** Allows a kernel to use more than 48 KiB of dynamic shared memory. */
  allowShared(fn: Handle, bytes: number): void {
    this.driver.setMaxDynamicShared(fn, bytes);
  }

  launch(fn: Handle, grid: [number, number, number], block: [number, number, number], sharedBytes: number, stream: Handle, signature: ArgSignature, ...args: number[]): void {
    if (signature.length !== args.length) throw new Error(`launch: signature '${signature}' for ${args.length} arguments`);
    for (let i = 0; i < args.length; i++) {
      const at = 8 * i;
      const kind = signature.charCodeAt(i);
      if (kind === 112 /* p */ || kind === 108 /* l */) {
        // Two 32-bit halves: no BigInt per launch (addresses and sizes are below 2^53, non-negative).
        this.slots.writeUInt32LE(args[i] % 4294967296, at);
        this.slots.writeUInt32LE(Math.floor(args[i] / 4294967296), at + 4);
      } else if (kind === 105 /* i */) this.slots.writeInt32LE(args[i], at);
      else if (kind === 102 /* f */) this.slots.writeFloatLE(args[i], at);
      else throw new Error(`launch: unknown argument kind '${signature[i]}'`);
    }
    this.driver.launch(fn, grid, block, sharedBytes, stream, this.paramsAddress);
  }

  private module(source: CudaSource, defines: readonly string[]): Handle {
    const key = `${source.name}\0${defines.join(' ')}`;
    let module = this.modules.get(key);
    if (module !== undefined) return module;
    const start = performance.now();
    const code = prelude + source.code;
    const options = [`--gpu-architecture=${this.arch}`, '-std=c++17', `--include-path=${this.includeDir}`, ...defines];
    const cacheKey = this.cache.key({ source: code, arch: this.arch, nvrtcVersion: this.nvrtc.version, options });
    let cubin = this.cache.get(cacheKey);
    if (cubin) this.cachedPrograms++;
    else {
      cubin = this.nvrtc.compile(code, `${source.name}.cu`, options);
      this.cache.put(cacheKey, cubin);
      this.compiledPrograms++;
    }
    module = this.driver.loadModule(cubin);
    this.modules.set(key, module);
    this.compileSeconds += (performance.now() - start) / 1000;
    return module;
  }
}
