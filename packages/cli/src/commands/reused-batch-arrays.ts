/** Arrays kept beyond the most ever in use at once (a batch or two in flight when the rest are held). */
const SPARE = 2;
/** New arrays are made this many floats longer than asked (rounded up), so one fits the next batches' sizes too. */
const GRANULE = 1 << 16;

/**
 * The arrays a model reads a batch's vectors into (ops FloatAllocator), handed out again once every vector of theirs
 * has been written. `embed dnabert` reads ~30 batches of 6 MB a second on an H200: a new array each took a quarter of
 * its main thread's time (the allocation, the collector, and copies out of memory not yet in cache).
 *
 * A batch's vectors are views of one array: `hold` counts them, `release` takes each back once written, and the array
 * is free again when none is left. Vectors of arrays not from `allocate` (a backend that reads into its own) are
 * let be. Nothing may read a vector after its release.
 */
export class ReusedBatchArrays {
  private readonly free: Float32Array[] = [];
  /** Views held, per array handed out (by its buffer). */
  private readonly held = new Map<ArrayBufferLike, { array: Float32Array; views: number }>();
  /** Every array handed out, by its buffer (a vector's `buffer` finds it). */
  private readonly handedOut = new WeakMap<ArrayBufferLike, Float32Array>();
  /** The most arrays in use at once: the packer's reordering holds a window's batches or two until written. */
  private peakHeld = 0;
  /** Arrays made (what the reuse spared shows against the batches). */
  made = 0;

  readonly allocate = (floats: number): Float32Array => {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      if (this.free[i].length >= floats && (best < 0 || this.free[i].length < this.free[best].length)) best = i;
    }
    const array = best >= 0 ? this.free.splice(best, 1)[0] : this.make(floats);
    this.handedOut.set(array.buffer, array);
    return array;
  };

  /** A batch's vectors, as the model returned them: their arrays stay in use until each vector is released. */
  hold(vectors: readonly Float32Array[]): void {
    for (const vector of vectors) {
      const array = this.handedOut.get(vector.buffer);
      if (!array) continue;
      const entry = this.held.get(vector.buffer);
      if (entry) entry.views++;
      else this.held.set(vector.buffer, { array, views: 1 });
    }
    this.peakHeld = Math.max(this.peakHeld, this.held.size);
  }

  /** The vector has been written and is not read again: its array is free once its other vectors are too. */
  release(vector: Float32Array): void {
    const entry = this.held.get(vector.buffer);
    if (!entry) return;
    if (--entry.views > 0) return;
    this.held.delete(vector.buffer);
    this.free.push(entry.array);
    // What is kept stays at the most the run ever used at once (its memory then), not more.
    if (this.free.length + this.held.size > this.peakHeld + SPARE) {
      // The smallest goes: the larger ones fit every batch it fits.
      let smallest = 0;
      for (let i = 1; i < this.free.length; i++) if (this.free[i].length < this.free[smallest].length) smallest = i;
      this.free.splice(smallest, 1);
    }
  }

  private make(floats: number): Float32Array {
    this.made++;
    return new Float32Array(Math.ceil((floats + 1) / GRANULE) * GRANULE);
  }
}
