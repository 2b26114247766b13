import { describe, expect, it } from 'vitest';
import type { CudaDriver } from '../src/cuda-driver.js';
import type { KernelCache } from '../src/kernel-cache.js';
import { KernelLibrary } from '../src/kernel-library.js';
import { koffi } from '../src/koffi.js';
import type { Nvrtc } from '../src/nvrtc.js';

/** Records what would reach cuLaunchKernel: the 8-byte argument slots the parameter array points at. */
function recordingLibrary(store = new Map<string, Buffer>()) {
  const launches: { slots: Buffer[]; grid: number[]; block: number[]; shared: number }[] = [];
  let compiled = 0;
  const driver = {
    loadModule: () => 1n,
    getFunction: (_m: bigint, name: string) => BigInt(name.length),
    launch(_fn: bigint, grid: number[], block: number[], shared: number, _stream: bigint, params: bigint) {
      const pointers = new BigUint64Array(koffi().view(params, 8 * 4));
      const slots = [...pointers].map((p) => Buffer.from(koffi().view(p, 8)));
      launches.push({ slots, grid, block, shared });
    },
  } as unknown as CudaDriver;
  const nvrtc = { version: '13.0', compile: () => (compiled++, Buffer.from('cubin')) } as unknown as Nvrtc;
  const cache = { key: (p: { source: string; options: string[] }) => `${p.source.length}:${p.options.join(' ')}`, get: (k: string) => store.get(k), put: (k: string, v: Buffer) => store.set(k, v) } as unknown as KernelCache;
  const library = new KernelLibrary(driver, nvrtc, cache, 'sm_90', '/usr/local/cuda/include');
  return { library, launches, compiled: () => compiled };
}

describe('KernelLibrary', () => {
  it('writes each argument into its own 8-byte slot: pointers and int64 whole, int32 and float32 in the low half', () => {
    const { library, launches } = recordingLibrary();
    const fn = library.get({ name: 'k', code: 'extern "C" __global__ void k() {}' }, 'k', ['-DVNP_F16']);
    library.launch(fn, [2, 3, 4], [128, 1, 1], 1024, 0n, 'plif', 2 ** 40 + 5, 2 ** 33 + 1, -7, 0.5);
    const [{ slots, grid, block, shared }] = launches;
    expect(grid).toEqual([2, 3, 4]);
    expect(block).toEqual([128, 1, 1]);
    expect(shared).toBe(1024);
    expect(slots[0].readBigUInt64LE(0)).toBe(2n ** 40n + 5n);
    expect(slots[1].readBigUInt64LE(0)).toBe(2n ** 33n + 1n);
    expect(slots[2].readInt32LE(0)).toBe(-7);
    expect(slots[3].readFloatLE(0)).toBe(0.5);
  });

  it('overwrites every byte a pointer or int64 argument owns, whatever an earlier launch left there', () => {
    const { library, launches } = recordingLibrary();
    const fn = library.get({ name: 'k', code: 'x' }, 'k', []);
    library.launch(fn, [1, 1, 1], [1, 1, 1], 0, 0n, 'pp', 2 ** 45 + 3, 2 ** 45 + 9);
    library.launch(fn, [1, 1, 1], [1, 1, 1], 0, 0n, 'pl', 12, 100);
    expect(launches[1].slots[0].readBigUInt64LE(0)).toBe(12n);
    expect(launches[1].slots[1].readBigUInt64LE(0)).toBe(100n);
  });

  it('rejects a signature that does not match the arguments, or an unknown kind', () => {
    const { library } = recordingLibrary();
    const fn = library.get({ name: 'k', code: 'x' }, 'k', []);
    expect(() => library.launch(fn, [1, 1, 1], [1, 1, 1], 0, 0n, 'pi', 1)).toThrow(/signature 'pi' for 1 arguments/);
    expect(() => library.launch(fn, [1, 1, 1], [1, 1, 1], 0, 0n, 'x', 1)).toThrow(/unknown argument kind 'x'/);
  });

  it('compiles a source once per set of defines, whatever kernels of it are asked for', () => {
    const first = recordingLibrary();
    const source = { name: 'k', code: 'extern "C" __global__ void a() {} extern "C" __global__ void b() {}' };
    first.library.get(source, 'a', ['-DVNP_F16']);
    first.library.get(source, 'b', ['-DVNP_F16']);
    expect(first.compiled()).toBe(1);
    first.library.get(source, 'a', ['-DVNP_BF16']);
    expect(first.compiled()).toBe(2);
    expect(first.library.compiledPrograms).toBe(2);
  });

  it('a second process (a new library over the same cache) loads the CUBIN without compiling', () => {
    const store = new Map<string, Buffer>();
    const source = { name: 'k', code: 'extern "C" __global__ void a() {}' };
    const first = recordingLibrary(store);
    first.library.get(source, 'a', ['-DVNP_F16']);
    const second = recordingLibrary(store);
    second.library.get(source, 'a', ['-DVNP_F16']);
    expect(first.compiled()).toBe(1);
    expect(second.compiled()).toBe(0);
    expect(second.library.cachedPrograms).toBe(1);
  });
});
