// Device memory through a caching allocator. All work runs on one stream, in order, so a block freed by
// a tensor can be handed to the next allocation at once: any kernel that still reads it was queued earlier
// on the same stream and runs first (the stream-ordered reuse PyTorch's allocator does per stream).
import type { CudaDriver, DevicePtr } from './cuda-driver.js';

/** Device memory ran out even after the cache was emptied. Callers may split their work and retry. */
export class CudaOutOfMemoryError extends Error {
  constructor(readonly requestedBytes: number, readonly inUseBytes: number) {
    super(`CUDA out of memory: asked for ${fmt(requestedBytes)} with ${fmt(inUseBytes)} in use`);
    this.name = 'CudaOutOfMemoryError';
  }
}

function fmt(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * Rounds a request up so that similar sizes share blocks: multiples of 512 bytes below 1 MiB, above that
 * 8 steps per power of two (at most 12.5% waste). Packed batches vary a little in size; this lets the
 * blocks of one batch serve the next.
 */
export function roundBlockSize(bytes: number): number {
  const b = Math.max(bytes, 1);
  if (b < 2 ** 20) return Math.ceil(b / 512) * 512;
  const step = 2 ** (Math.floor(Math.log2(b)) - 3);
  return Math.ceil(b / step) * step;
}

export class CachingAllocator {
  private readonly free = new Map<number, DevicePtr[]>();
  private readonly sizeOf = new Map<DevicePtr, number>();
  private cachedBytes = 0;
  private inUse = 0;
  private peak = 0;

  constructor(private readonly driver: CudaDriver) {}

  alloc(bytes: number): DevicePtr {
    const size = roundBlockSize(bytes);
    const reuse = this.free.get(size)?.pop();
    if (reuse !== undefined) {
      this.cachedBytes -= size;
      return this.track(reuse, size);
    }
    let ptr = this.driver.tryMalloc(size);
    if (ptr === undefined) {
      this.emptyCache();
      ptr = this.driver.tryMalloc(size);
      if (ptr === undefined) throw new CudaOutOfMemoryError(size, this.inUse);
    }
    this.sizeOf.set(ptr, size);
    return this.track(ptr, size);
  }

  release(ptr: DevicePtr): void {
    const size = this.sizeOf.get(ptr);
    if (size === undefined) throw new Error(`CachingAllocator: ${ptr} was not allocated here`);
    this.inUse -= size;
    this.cachedBytes += size;
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(ptr);
  }

  /** Gives every cached (unused) block back to the driver. */
  emptyCache(): void {
    for (const list of this.free.values()) {
      for (const ptr of list) {
        this.driver.free(ptr);
        this.sizeOf.delete(ptr);
      }
    }
    this.free.clear();
    this.cachedBytes = 0;
  }

  stats(): { inUseBytes: number; cachedBytes: number; peakInUseBytes: number } {
    return { inUseBytes: this.inUse, cachedBytes: this.cachedBytes, peakInUseBytes: this.peak };
  }

  private track(ptr: DevicePtr, size: number): DevicePtr {
    this.inUse += size;
    this.peak = Math.max(this.peak, this.inUse);
    return ptr;
  }
}
