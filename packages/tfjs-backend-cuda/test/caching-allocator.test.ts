import { describe, expect, it } from 'vitest';
import { CachingAllocator, CudaOutOfMemoryError, roundBlockSize } from '../src/caching-allocator.js';
import type { CudaDriver } from '../src/cuda-driver.js';

/** A driver stand-in with a fixed amount of "device memory" that counts its calls. */
function fakeDriver(capacity: number) {
  let used = 0;
  let next = 4096;
  const sizes = new Map<number, number>();
  const calls = { malloc: 0, free: 0 };
  const driver = {
    tryMalloc(bytes: number) {
      calls.malloc++;
      if (used + bytes > capacity) return undefined;
      used += bytes;
      const ptr = next;
      next += bytes;
      sizes.set(ptr, bytes);
      return ptr;
    },
    free(ptr: number) {
      calls.free++;
      used -= sizes.get(ptr)!;
      sizes.delete(ptr);
    },
  } as unknown as CudaDriver;
  return { driver, calls, used: () => used };
}

describe('roundBlockSize', () => {
  it('rounds small requests to 512 bytes and large ones to an eighth of their power of two', () => {
    expect(roundBlockSize(0)).toBe(512);
    expect(roundBlockSize(1)).toBe(512);
    expect(roundBlockSize(513)).toBe(1024);
    expect(roundBlockSize(2 ** 20)).toBe(2 ** 20);
    expect(roundBlockSize(2 ** 20 + 1)).toBe(2 ** 20 + 2 ** 17);
    const big = 16384 * 10240 * 2 + 7;
    const rounded = roundBlockSize(big);
    expect(rounded).toBeGreaterThanOrEqual(big);
    expect(rounded / big).toBeLessThan(1.125);
  });
});

describe('CachingAllocator', () => {
  it('hands a released block to the next request of the same rounded size without asking the driver', () => {
    const { driver, calls } = fakeDriver(2 ** 30);
    const allocator = new CachingAllocator(driver);
    const a = allocator.alloc(3000);
    allocator.release(a);
    expect(allocator.alloc(2900)).toBe(a); // same 3,072-byte class
    expect(calls.malloc).toBe(1);
    const b = allocator.alloc(5000);
    expect(b).not.toBe(a);
    expect(calls.malloc).toBe(2);
  });

  it('tracks bytes in use, cached and the peak', () => {
    const { driver } = fakeDriver(2 ** 30);
    const allocator = new CachingAllocator(driver);
    const a = allocator.alloc(1024);
    const b = allocator.alloc(2048);
    allocator.release(a);
    expect(allocator.stats()).toEqual({ inUseBytes: 2048, cachedBytes: 1024, peakInUseBytes: 3072 });
    allocator.release(b);
    allocator.emptyCache();
    expect(allocator.stats()).toEqual({ inUseBytes: 0, cachedBytes: 0, peakInUseBytes: 3072 });
  });

  it('empties its cache and retries before reporting out of memory', () => {
    const { driver, calls, used } = fakeDriver(8192);
    const allocator = new CachingAllocator(driver);
    allocator.release(allocator.alloc(6000)); // 6,144 bytes cached, not in use
    const p = allocator.alloc(7000); // does not fit beside the cached block
    expect(p).toBeDefined();
    expect(calls.free).toBe(1);
    expect(used()).toBe(7168);
    expect(() => allocator.alloc(4096)).toThrow(CudaOutOfMemoryError);
    try {
      allocator.alloc(4096);
    } catch (error) {
      expect((error as Error).name).toBe('CudaOutOfMemoryError');
      expect((error as Error).message).toMatch(/CUDA out of memory: asked for .* with .* in use/);
    }
  });

  it('refuses to release an address it never gave out', () => {
    const allocator = new CachingAllocator(fakeDriver(2 ** 20).driver);
    expect(() => allocator.release(12345)).toThrow(/not allocated here/);
  });
});
